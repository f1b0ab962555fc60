/**
 * What the desktop shell offers the gateway. Headless, there is none; the Electron shell passes one in through
 * createGateway, so server/ never imports electron.
 */
export interface DesktopBridge {
  /** Shows a native notification; false when the system refused. */
  notify(notification: { title: string; message: string; urgency: 'low' | 'normal' | 'critical' }): Promise<boolean>;
  readClipboard(): Promise<string>;
  writeClipboard(text: string): Promise<void>;
}

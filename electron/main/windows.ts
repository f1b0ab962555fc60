import { BrowserWindow, shell, type Session, type WebContents, type WebPreferences } from 'electron';

/**
 * Security: every window runs web content with no Node, in Chromium's sandbox, isolated from its preload; pages
 * can neither leave the gateway's origin nor open windows of their own (a page that navigated elsewhere would keep
 * the window's privileges — the popup's IPC bridge — for content we never vetted).
 */
export function hardenedWebPreferences(extra: Pick<WebPreferences, 'preload' | 'partition'> = {}): WebPreferences {
  return {
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    spellcheck: false,
    ...extra,
  };
}

/** Keeps a window's pages on the gateway's origin; https links the owner clicks open in their browser instead. */
export function confineToOrigin(contents: WebContents, origin: string): void {
  const stayHome = (event: { preventDefault(): void }, url: string) => {
    if (originOf(url) !== origin) event.preventDefault();
  };
  contents.on('will-navigate', stayHome);
  contents.on('will-redirect', stayHome);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (originOf(url)?.startsWith('https://')) void shell.openExternal(url);
    return { action: 'deny' };
  });
}

/**
 * Security: pages get no device, notification or other permission prompts (the shell shows notifications itself),
 * except writing to the clipboard, which the dashboard's copy buttons use — only for the gateway's own pages.
 */
export function denyPermissions(session: Session, origin: string): void {
  const allowed = (permission: string, requestingUrl: string | undefined) =>
    permission === 'clipboard-sanitized-write' && requestingUrl !== undefined && originOf(requestingUrl) === origin;
  session.setPermissionRequestHandler((_contents, permission, callback, details) => callback(allowed(permission, details.requestingUrl)));
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin) => allowed(permission, requestingOrigin));
}

/** The dashboard window: one at a time, opened with a fresh one-time login so the owner never types a code. */
export class DashboardWindow {
  #window: BrowserWindow | undefined;

  constructor(
    private readonly origin: string,
    private readonly loginUrl: () => string,
  ) {}

  open(): void {
    if (this.#window && !this.#window.isDestroyed()) {
      if (this.#window.isMinimized()) this.#window.restore();
      this.#window.focus();
      return;
    }
    const window = new BrowserWindow({
      width: 1280,
      height: 820,
      minWidth: 720,
      minHeight: 480,
      title: 'Pincer',
      show: false,
      autoHideMenuBar: true,
      webPreferences: hardenedWebPreferences(),
    });
    confineToOrigin(window.webContents, this.origin);
    window.once('ready-to-show', () => window.show());
    window.on('closed', () => (this.#window = undefined));
    this.#window = window;
    void window.loadURL(this.loginUrl());
  }

  /** After a renderer crash: the page comes back, with a new login (the old page's session may be gone with it). */
  reloadIfCrashed(contents: WebContents): boolean {
    if (!this.#window || this.#window.isDestroyed() || this.#window.webContents !== contents) return false;
    void this.#window.loadURL(this.loginUrl());
    return true;
  }

  close(): void {
    if (this.#window && !this.#window.isDestroyed()) this.#window.destroy();
    this.#window = undefined;
  }
}

export function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

import type { DesktopApi } from '../../../electron/ipc-contract';

declare global {
  interface Window {
    /** The desktop app's preload bridge: present only in its popup windows, which have no session or token. */
    readonly pincer?: DesktopApi;
  }
}

export {};

import { clipboard, Notification } from 'electron';
import type { DesktopBridge } from '../../server/index.js';
import { plainText } from './plain-text.js';

/** The gateway's notify and clipboard tools, on the desktop: native notifications and the system clipboard. */
export function desktopBridge(): DesktopBridge {
  return {
    async notify({ title, message, urgency }) {
      if (!Notification.isSupported()) return false;
      new Notification({ title: plainText(title, 120), body: plainText(message, 1000), urgency }).show();
      return true;
    },
    async readClipboard() {
      return clipboard.readText();
    },
    async writeClipboard(text) {
      await clipboard.writeText(text);
    },
  };
}

import { BrowserWindow, Notification, screen, type WebContents } from 'electron';
import type { ApprovalEvent, PendingApproval } from '../../server/index.js';
import { plainText } from './plain-text.js';
import { confineToOrigin, hardenedWebPreferences } from './windows.js';

/** The popup page's size; the page is laid out for it (and tested at it in Chromium). */
export const POPUP_SIZE = { width: 460, height: 600 } as const;
/** Popups hold no cookies or storage of their own and share none with the dashboard: an in-memory partition. */
export const POPUP_PARTITION = 'pincer-popups';
/** More asks than this wait their turn (the tray counts them all): a flood of asks must not bury the screen. */
const MAX_OPEN_POPUPS = 4;
const CASCADE_PX = 28;

interface Popup {
  readonly approvalId: string;
  readonly window: BrowserWindow;
  notification?: Notification;
}

export interface PopupOptions {
  /** The gateway's origin; popups load `/popup/<id>` from it and may not leave it. */
  origin: string;
  /** The preload that gives a popup its typed IPC methods (and nothing else). */
  preload: string;
  /** What waits for the owner now, oldest first. */
  pending(): PendingApproval[];
}

/** One small always-on-top window per pending approval, plus a native notification; closed once it is answered. */
export class ApprovalPopups {
  readonly #open = new Map<string, Popup>();
  /** Approvals whose popup the owner closed unanswered (or whose page crashed): not reopened on their own. */
  readonly #dismissed = new Set<string>();
  /** The app is quitting: nothing opens any more. */
  #stopped = false;

  constructor(private readonly options: PopupOptions) {}

  /** Follows the gateway's approval events. */
  onApproval = (event: ApprovalEvent): void => {
    if (event.phase === 'requested') return this.#show(event.approval);
    this.#dismissed.delete(event.approval.id);
    this.#close(event.approval.id);
  };

  /** The tray's "Approvals": a window for every approval still waiting (within the cap), brought to the front. */
  showAll(): void {
    this.#dismissed.clear();
    for (const approval of this.options.pending()) this.#show(approval);
    for (const popup of this.#open.values()) popup.window.focus();
  }

  /** The approval a popup's page may read and decide: the one its window was opened for, nothing else. */
  approvalFor(contents: WebContents): string | undefined {
    for (const popup of this.#open.values()) if (!popup.window.isDestroyed() && popup.window.webContents === contents) return popup.approvalId;
    return undefined;
  }

  /** The page is done with its approval (answered, or the owner pressed Escape), or its renderer crashed. */
  closeFor(contents: WebContents): void {
    const id = this.approvalFor(contents);
    if (id === undefined) return;
    this.#dismissed.add(id);
    this.#close(id);
  }

  get openCount(): number {
    return this.#open.size;
  }

  closeAll(): void {
    this.#stopped = true;
    for (const id of [...this.#open.keys()]) this.#close(id);
  }

  #show(approval: PendingApproval): void {
    if (this.#stopped || this.#open.has(approval.id) || this.#open.size >= MAX_OPEN_POPUPS || approval.status !== 'pending') return;
    const { x, y } = this.#position(this.#open.size);
    const window = new BrowserWindow({
      ...POPUP_SIZE,
      x,
      y,
      minWidth: 380,
      minHeight: 420,
      title: `Pincer: allow ${approval.tool}?`,
      alwaysOnTop: true,
      show: false,
      minimizable: false,
      maximizable: false,
      fullscreenable: false,
      autoHideMenuBar: true,
      webPreferences: hardenedWebPreferences({ preload: this.options.preload, partition: POPUP_PARTITION }),
    });
    confineToOrigin(window.webContents, this.options.origin);
    // Security: shown without taking focus — an Enter or a shortcut key typed into another app at the moment a popup
    // appears must never answer it. The owner clicks the popup (or the notification) to act.
    window.once('ready-to-show', () => window.showInactive());
    window.on('closed', () => {
      const popup = this.#open.get(approval.id);
      if (popup?.window !== window) return;
      popup.notification?.close();
      this.#open.delete(approval.id);
      // A window closed unanswered leaves its approval waiting (the tray and dashboard still show it) and does not
      // come back by itself; another approval that waited for a free slot takes its place.
      this.#dismissed.add(approval.id);
      this.#showNext();
    });
    const popup: Popup = { approvalId: approval.id, window };
    this.#open.set(approval.id, popup);
    popup.notification = this.#notify(approval, window);
    void window.loadURL(`${this.options.origin}/popup/${encodeURIComponent(approval.id)}`);
  }

  #close(id: string): void {
    const popup = this.#open.get(id);
    if (!popup) return;
    this.#open.delete(id);
    popup.notification?.close();
    if (!popup.window.isDestroyed()) popup.window.destroy();
    this.#showNext();
  }

  #showNext(): void {
    for (const approval of this.options.pending()) {
      if (this.#open.size >= MAX_OPEN_POPUPS) return;
      if (!this.#open.has(approval.id) && !this.#dismissed.has(approval.id)) this.#show(approval);
    }
  }

  #notify(approval: PendingApproval, window: BrowserWindow): Notification | undefined {
    if (!Notification.isSupported()) return undefined;
    const notification = new Notification({
      title: `Pincer: ${plainText(approval.client, 60)} asks to run ${plainText(approval.tool, 64)}`,
      body: plainText(`${writtenBy(approval)}${approval.reason}`, 180),
      urgency: 'critical',
      timeoutType: 'never',
    });
    notification.on('click', () => {
      if (!window.isDestroyed()) window.focus();
    });
    notification.show();
    return notification;
  }

  /** Top right of the screen, each further popup a little lower and to the left. */
  #position(index: number): { x: number; y: number } {
    const area = screen.getPrimaryDisplay().workArea;
    const offset = index * CASCADE_PX;
    return {
      x: Math.max(area.x, area.x + area.width - POPUP_SIZE.width - 16 - offset),
      y: area.y + 16 + offset,
    };
  }
}

/** "Runs Makefile, written by client cursor. ": the first thing to know when a client wrote what the command runs. */
function writtenBy(approval: PendingApproval): string {
  const first = approval.provenance?.[0];
  if (!first) return '';
  const name = first.path.slice(first.path.lastIndexOf('/') + 1) || first.path;
  const more = approval.provenance.length > 1 ? ` (and ${approval.provenance.length - 1} more)` : '';
  return `Runs ${name}${more}, written by client ${first.client}. `;
}

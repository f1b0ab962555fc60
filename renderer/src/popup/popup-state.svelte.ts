import type { Approval, ApprovalAnswer } from '../lib/types';
import { Clock } from '../state/clock.svelte';
import { describeDecided, describeGone, type Told } from './messages';
import type { ApprovalSource, Sent } from './source';

export type PopupPanel = 'actions' | 'always' | 'deny';

/** What the popup shows: the approval to answer, or one message instead of it. */
export type PopupView =
  | { kind: 'loading' }
  | { kind: 'pending'; approval: Approval }
  /** Answered here, or found not waiting any more: final. */
  | { kind: 'ended'; told: Told }
  | { kind: 'signed-out'; loginCommand?: string | undefined }
  | { kind: 'failed'; message: string };

export interface PopupTiming {
  /** How often a shown approval is asked for again, so one answered elsewhere or withdrawn does not linger. */
  recheckMs: number;
  /** How long the desktop popup shows the outcome before it closes. */
  closeAfterMs: number;
  /** How long keys that decide wait after the popup appears or its window gains focus. */
  settleMs: number;
}

const TIMING: PopupTiming = { recheckMs: 3_000, closeAfterMs: 1_500, settleMs: 1_000 };

/** One approval popup: loads its approval from the source, sends the owner's answer, and says how it ended. */
export class PopupState {
  view = $state.raw<PopupView>({ kind: 'loading' });
  panel = $state<PopupPanel>('actions');
  busy = $state(false);
  /** Why the last answer was not taken while the approval still waits. */
  error = $state<string | null>(null);
  /** Whether keys may decide yet (see settle()). */
  armed = $state(false);

  /** The approval as last shown, to tell an expiry from an answer given elsewhere once it is gone. */
  #last: Approval | null = null;
  #lastCheck = 0;
  #checking = false;
  /** The error shown is a failed lookup's: the next lookup that works clears it (a refused answer's stays). */
  #lookupFailed = false;
  #armTimer: ReturnType<typeof setTimeout> | undefined;
  #closeTimer: ReturnType<typeof setTimeout> | undefined;
  /** Ticks while the countdown is shown; each tick may ask for the approval again. */
  #clock = new Clock(1000, () => this.#recheck());

  constructor(
    readonly source: ApprovalSource,
    readonly timing: PopupTiming = TIMING,
  ) {}

  /** The current time, ticking once a second while read (the countdown reads it). */
  get now(): number {
    return this.#clock.now;
  }

  /** Asks the source for the approval; `refusal` is what a refused answer said, for the message if it is gone. */
  async load(refusal: string | null = null): Promise<void> {
    if (this.#ended) return;
    this.#lastCheck = Date.now();
    const found = await this.source.load();
    // An answer sent meanwhile decides what the page says, not a lookup that crossed it.
    if (this.busy || this.#ended) return;
    switch (found.kind) {
      case 'pending': {
        const appearing = this.view.kind !== 'pending';
        this.#last = found.approval;
        this.view = { kind: 'pending', approval: found.approval };
        if (this.#lookupFailed) this.error = null;
        this.#lookupFailed = false;
        if (appearing) this.settle();
        break;
      }
      case 'gone':
        this.#end(describeGone(this.#last, Date.now(), refusal));
        break;
      case 'signed-out':
        this.view = { kind: 'signed-out', loginCommand: found.loginCommand };
        break;
      case 'failed':
        // A failed recheck keeps the approval on screen (an answer may still get through); say why beside it.
        if (this.view.kind === 'pending') {
          this.error = found.message;
          this.#lookupFailed = true;
        } else this.view = { kind: 'failed', message: found.message };
    }
  }

  async decide(answer: ApprovalAnswer): Promise<void> {
    if (this.view.kind !== 'pending' || this.busy) return;
    const approval = this.view.approval;
    this.busy = true;
    this.error = null;
    this.#lookupFailed = false;
    let sent: Sent;
    try {
      sent = await this.source.decide(answer);
    } catch (error) {
      sent = { kind: 'refused', message: error instanceof Error ? error.message : String(error) };
    }
    // Cleared with the outcome in hand, so a lookup that crossed the answer cannot speak in between.
    this.busy = false;
    switch (sent.kind) {
      case 'decided':
        this.#end(describeDecided(approval, answer, sent.status));
        if (this.source.close) this.#closeTimer = setTimeout(() => this.close(), this.timing.closeAfterMs);
        break;
      case 'gone':
        this.#end(describeGone(approval, Date.now(), sent.message));
        break;
      case 'signed-out':
        this.view = { kind: 'signed-out', loginCommand: sent.loginCommand };
        break;
      case 'refused':
        this.error = sent.message;
        await this.load(sent.message);
    }
  }

  /**
   * Security: keys that decide are ignored for a moment after the popup appears or its window gains focus. An
   * always-on-top window can come up while the owner types elsewhere, and a keystroke meant for another window must
   * not answer a call unread.
   */
  settle(): void {
    this.armed = false;
    clearTimeout(this.#armTimer);
    this.#armTimer = setTimeout(() => (this.armed = true), this.timing.settleMs);
  }

  /** Closes the window (the desktop app only; a browser tab is the person's to close). */
  close(): void {
    clearTimeout(this.#closeTimer);
    this.source.close?.();
  }

  dispose(): void {
    clearTimeout(this.#armTimer);
    clearTimeout(this.#closeTimer);
  }

  get #ended(): boolean {
    return this.view.kind === 'ended';
  }

  #end(told: Told): void {
    this.view = { kind: 'ended', told };
    this.panel = 'actions';
    this.error = null;
  }

  #recheck(): void {
    if (this.view.kind !== 'pending' || this.busy || this.#checking) return;
    const now = Date.now();
    // Past its expiry the gateway refuses it any moment: look each second, to say so promptly.
    const every = now >= Date.parse(this.view.approval.expires_at) ? 1_000 : this.timing.recheckMs;
    if (now - this.#lastCheck < every) return;
    this.#checking = true;
    void this.load().finally(() => (this.#checking = false));
  }
}

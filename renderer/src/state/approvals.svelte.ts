import { SvelteSet } from 'svelte/reactivity';
import { api, ApiError, describeError } from '../lib/api';
import type { Approval, ApprovalAnswer, ApprovalList, ApprovalRecord, GatewayEvents } from '../lib/types';
import { describeElsewhere, describeMine } from './approval-notices';
import { Clock } from './clock.svelte';
import type { GatewayFeed } from './feed.svelte';

const NOTICE_MS = 8_000;
/** An approval still listed this long after it expired means an event was missed: ask the gateway again. */
const STALE_MS = 5_000;
const ENDED_MEMORY = 500;

const newestFirst = (a: Approval, b: Approval) => Date.parse(b.created_at) - Date.parse(a.created_at);

/**
 * The calls waiting for the owner's say, newest first. It lives while the owner is logged in (the page title and
 * favicon show the count on every view), follows the event stream, and reloads whenever the stream reconnects, so
 * a decision made in another window, the CLI or the desktop popup, or an expiry, removes the card here too.
 */
export class ApprovalQueue {
  /** Pending approvals, newest first. */
  items = $state.raw<Approval[]>([]);
  loaded = $state(false);
  /** The last refusal from the gateway, for the error banner. */
  error = $state<string | null>(null);
  /** A short line about the last card that went away (answered here or elsewhere, expired, withdrawn). */
  notice = $state<string | null>(null);

  /** Approvals whose answer is on its way. */
  readonly #busy = new SvelteSet<string>();
  /** The card picked by the owner (click, focus, j/k, or the next one after a decision); null follows the newest. */
  #selected = $state<string | null>(null);
  #selectionMovedAt = -Infinity;
  /** Ids answered, expired or withdrawn: a list fetched before the event must not bring them back. */
  #ended = new Set<string>();
  /** Ids this window is answering, so their end is not reported as "elsewhere"; each only until its answer or end event. */
  #mine = new Set<string>();
  /** When each approval arrived by event (performance.now()), to keep it across a reload that started earlier. */
  #arrived = new Map<string, number>();
  #noticeTimer: ReturnType<typeof setTimeout> | undefined;
  #lastStaleReload = 0;
  /** The banner shows a failed load: a later successful one clears it (a refused decision's message stays). */
  #loadFailed = false;
  #unsubscribe: (() => void)[];
  /** One shared one-second clock, running only while something shows a countdown. */
  #clock = new Clock(1000, () => this.#reloadIfStale());

  constructor(readonly feed: GatewayFeed) {
    this.#unsubscribe = [
      feed.on('approval', (event) => this.#onEvent(event)),
      feed.onReconnect(
        () => void this.load(),
        () => this.#loadFailed,
      ),
    ];
    void this.load();
  }

  /** Approvals whose answer is on its way. */
  get busy(): ReadonlySet<string> {
    return this.#busy;
  }

  get count(): number {
    return this.items.length;
  }

  /** The current time, updated every second while read from a template or effect. */
  get now(): number {
    return this.#clock.now;
  }

  /** The card the keyboard acts on: the one picked, else the newest. */
  get selected(): Approval | undefined {
    return this.items.find((a) => a.id === this.#selected) ?? this.items[0];
  }

  /**
   * When the selection last moved without the owner (performance.now()): a new arrival took it, or the selected card
   * went (its caller withdrew it, it expired, it was answered elsewhere) and its neighbour took its place. Keys that
   * decide wait a moment after it, so a keystroke meant for the card that was selected never answers another unread.
   * Security: a client can withdraw a card the owner is reading just as a key is pressed, leaving its own other card
   * under the key.
   */
  get selectionMovedAt(): number {
    return this.#selectionMovedAt;
  }

  select(id: string): void {
    this.#selected = id;
    this.#selectionMovedAt = -Infinity;
  }

  /** Moves the selection down (+1, older) or up (-1, newer), stopping at the ends. */
  move(delta: number): void {
    const index = this.items.findIndex((a) => a.id === this.selected?.id);
    const next = this.items[Math.max(0, Math.min(this.items.length - 1, index + delta))];
    if (next) this.select(next.id);
  }

  async load(): Promise<void> {
    const started = performance.now();
    try {
      const list = await api<ApprovalList>('GET', '/approvals');
      const fresh = list.approvals.filter((a) => a.status === 'pending' && !this.#ended.has(a.id));
      const ids = new Set(fresh.map((a) => a.id));
      const newer = this.items.filter((a) => !ids.has(a.id) && (this.#arrived.get(a.id) ?? 0) > started);
      this.#set([...fresh, ...newer]);
      // An approval the list dropped (ended while no event said so) needs its arrival time no more.
      const kept = new Set([...ids, ...newer.map((a) => a.id)]);
      for (const id of this.#arrived.keys()) if (!kept.has(id)) this.#arrived.delete(id);
      this.loaded = true;
      if (this.#loadFailed) this.error = null;
      this.#loadFailed = false;
    } catch (error) {
      this.error = describeError(error);
      this.#loadFailed = true;
    }
  }

  /** Sends the owner's answer; true when the gateway took it. On a refusal the banner says why and the list reloads. */
  async decide(id: string, answer: ApprovalAnswer): Promise<boolean> {
    if (this.#busy.has(id)) return false;
    this.#busy.add(id);
    this.#mine.add(id);
    try {
      const ended = await api<ApprovalRecord>('POST', `/approvals/${encodeURIComponent(id)}`, answer);
      this.error = null;
      this.#end(id, true);
      this.#say(describeMine(ended));
      return true;
    } catch (error) {
      this.error =
        error instanceof ApiError && error.status === 404
          ? 'That call is no longer waiting: it was answered elsewhere, it expired, or its caller stopped waiting.'
          : describeError(error);
      void this.load();
      return false;
    } finally {
      // Its end is known now (the card is gone, or the list reloads): an event for it no longer needs telling apart.
      this.#mine.delete(id);
      this.#busy.delete(id);
    }
  }

  dismissError(): void {
    this.error = null;
  }

  dispose(): void {
    for (const off of this.#unsubscribe) off();
    clearTimeout(this.#noticeTimer);
  }

  #onEvent({ phase, approval }: GatewayEvents['approval']): void {
    if (phase === 'requested') {
      if (approval.status !== 'pending' || this.#ended.has(approval.id) || this.items.some((a) => a.id === approval.id)) return;
      const before = this.selected?.id;
      this.#arrived.set(approval.id, performance.now());
      this.#set([approval, ...this.items]);
      if (before !== undefined && this.selected?.id !== before) this.#selectionMovedAt = performance.now();
      return;
    }
    const listed = this.items.some((a) => a.id === approval.id);
    const mine = this.#mine.delete(approval.id);
    this.#end(approval.id);
    if (listed && !mine) this.#say(describeElsewhere(approval));
  }

  /**
   * Removes a card; when it was selected, the selection moves to the card that takes its place — noted as a move the
   * owner did not make unless the owner's own answer here removed it.
   */
  #end(id: string, answeredHere = false): void {
    this.#ended.add(id);
    if (this.#ended.size > ENDED_MEMORY) this.#ended.delete(this.#ended.values().next().value!);
    this.#arrived.delete(id);
    const index = this.items.findIndex((a) => a.id === id);
    if (index < 0) return;
    const wasSelected = this.selected?.id === id;
    this.#set(this.items.filter((a) => a.id !== id));
    if (!wasSelected) return;
    this.#selected = this.items[Math.min(index, this.items.length - 1)]?.id ?? null;
    if (!answeredHere && this.items.length > 0) this.#selectionMovedAt = performance.now();
  }

  #set(items: Approval[]): void {
    this.items = items.sort(newestFirst);
    if (this.#selected !== null && !items.some((a) => a.id === this.#selected)) this.#selected = null;
  }

  #say(text: string): void {
    clearTimeout(this.#noticeTimer);
    this.notice = text;
    this.#noticeTimer = setTimeout(() => (this.notice = null), NOTICE_MS);
  }

  #reloadIfStale(): void {
    const now = Date.now();
    if (now - this.#lastStaleReload < 2 * STALE_MS) return;
    if (this.items.some((a) => Date.parse(a.expires_at) < now - STALE_MS)) {
      this.#lastStaleReload = now;
      void this.load();
    }
  }
}

import { api, ApiError, describeError } from '../lib/api';
import type { CallPage, CallRecord, CallStatus, GatewayEvents } from '../lib/types';
import type { GatewayFeed } from './feed.svelte';

/** Calls kept in memory: a day of calls must not slow the page; older ones stay in the gateway's history. */
export const MAX_CALLS = 2000;
/** Live terminal output kept per running call (its tail); the finished result carries the full output. */
export const MAX_LIVE_OUTPUT = 64 * 1024;
const INITIAL_PAGE = 200;
const CATCH_UP_PAGE = 500;
/** Open calls looked up one by one after a reconnect (they may have ended while the stream was down). */
const MAX_OPEN_LOOKUPS = 50;
const MAX_OUTPUT_STREAMS = 20;
const MIN_PUBLISH_GAP_MS = 120;

export function isOpen(call: CallRecord): boolean {
  return call.status === 'running' || call.status === 'pending';
}

export type StatusFilter = '' | CallStatus | 'cached';

/** What the Live view shows; lives with the log so it survives switching views. */
export class CallFilter {
  tool = $state('');
  client = $state('');
  status = $state<StatusFilter>('');
  text = $state('');

  get active(): boolean {
    return this.tool !== '' || this.client !== '' || this.status !== '' || this.text.trim() !== '';
  }

  clear(): void {
    this.tool = this.client = this.status = this.text = '';
  }

  /** A predicate for the current filter (read it inside a derivation so it follows the filter). */
  predicate(): (call: CallRecord) => boolean {
    const { tool, client, status } = this;
    const words = this.text.trim().toLowerCase().split(/\s+/).filter(Boolean);
    return (call) =>
      (tool === '' || call.tool === tool) &&
      (client === '' || call.client === client) &&
      (status === '' || (status === 'cached' ? call.cache_hit : call.status === status)) &&
      (words.length === 0 || words.every((word) => haystack(call).includes(word)));
  }
}

/** How much of a big result free-text search looks at. */
const SEARCHED_CHARS = 20_000;
const haystacks = new WeakMap<CallRecord, string>();

/** The text a search matches against: tool, client, arguments, result, error, decision; built once per record. */
function haystack(call: CallRecord): string {
  let text = haystacks.get(call);
  if (text === undefined) {
    const result = call.result === null || call.result === undefined ? '' : JSON.stringify(call.result).slice(0, SEARCHED_CHARS);
    text = [call.id, call.tool, call.client, call.via, JSON.stringify(call.arguments ?? null), result, call.error?.name, call.error?.message, call.rule, call.reason]
      .filter(Boolean)
      .join('\n')
      .toLowerCase();
    haystacks.set(call, text);
  }
  return text;
}

function newestFirst(a: CallRecord, b: CallRecord): number {
  return a.started_at < b.started_at ? 1 : a.started_at > b.started_at ? -1 : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

function uniqueSorted(values: Iterable<string>): string[] {
  return [...new Set(values)].sort((a, b) => a.localeCompare(b));
}

/**
 * The calls the dashboard has seen, newest first: the recent history, then every `call` event from the gateway,
 * updated in place as calls finish. Changes are applied to the published list at most once per animation frame,
 * so a burst of calls costs one render. After the stream drops it fetches what it missed.
 */
export class CallLog {
  /** Newest first, at most MAX_CALLS; replaced whole on change. */
  calls = $state.raw<CallRecord[]>([]);
  /** True until the first history page has arrived (or failed). */
  loading = $state(true);
  error = $state<string | null>(null);
  paused = $state(false);
  readonly filter = new CallFilter();
  readonly tools = $derived(uniqueSorted(this.calls.map((c) => c.tool)));
  readonly clients = $derived(uniqueSorted(this.calls.map((c) => c.client)));

  #frozen = $state.raw<CallRecord[]>([]);
  #pauseMark = $state(0);
  #outputVersion = $state(0);
  #byId = new Map<string, CallRecord>();
  /** When each call first reached this page, in arrival order: tells "new since" without comparing lists. */
  #arrival = new Map<string, number>();
  #seq = 0;
  #mark = 0;
  #output = new Map<string, { text: string; dropped: number }>();
  #outputChanged = false;
  #callsChanged = false;
  #scheduled = false;
  #lastPublish = -Infinity;
  #loaded = false;
  #fetching: Promise<void> | undefined;
  #unsubscribe: (() => void)[];

  constructor(readonly feed: GatewayFeed) {
    this.#unsubscribe = [
      feed.on('call', (event: GatewayEvents['call']) => this.#upsert(event.call)),
      feed.on('output', (event: GatewayEvents['output']) => this.#appendOutput(event.call_id, event.chunk)),
      feed.onConnect((reconnected) => {
        if (reconnected || !this.#loaded) void this.#fetch();
      }),
    ];
    void this.#fetch();
  }

  /** What the list shows: the live calls, or the snapshot taken when the person paused. */
  get shown(): CallRecord[] {
    return this.paused ? this.#frozen : this.calls;
  }

  /** Arrival number of everything published so far; a list held at this mark shows no newer call. */
  get mark(): number {
    return this.#mark;
  }

  arrivalOf(id: string): number {
    return this.#arrival.get(id) ?? 0;
  }

  /** Calls in the live list that arrived after `mark`. */
  countNewerThan(mark: number): number {
    let n = 0;
    for (const call of this.calls) if (this.arrivalOf(call.id) > mark) n++;
    return n;
  }

  /** Calls received since the person paused. */
  get newWhilePaused(): number {
    return this.paused ? this.countNewerThan(this.#pauseMark) : 0;
  }

  pause(): void {
    if (this.paused) return;
    this.#frozen = this.calls;
    this.#pauseMark = this.#mark;
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.#frozen = [];
  }

  togglePause(): void {
    if (this.paused) this.resume();
    else this.pause();
  }

  /** Terminal output streamed so far by a running call, if any (only its tail beyond MAX_LIVE_OUTPUT). */
  liveOutput(id: string): { text: string; dropped: number } | undefined {
    void this.#outputVersion;
    return this.#output.get(id);
  }

  /** Tries again after an error: the first page if it never came, otherwise what was missed. */
  retry(): Promise<void> {
    return this.#fetch();
  }

  dispose(): void {
    for (const off of this.#unsubscribe) off();
    this.#unsubscribe = [];
  }

  #fetch(): Promise<void> {
    // One fetch at a time; a reconnect during the first load is covered by that load.
    this.#fetching ??= (this.#loaded ? this.#catchUp() : this.#loadFirst()).finally(() => (this.#fetching = undefined));
    return this.#fetching;
  }

  async #loadFirst(): Promise<void> {
    try {
      const page = await api<CallPage>('GET', `/calls?limit=${INITIAL_PAGE}`);
      // Oldest first, so arrival numbers follow time.
      for (const call of [...page.calls].reverse()) this.#upsert(call);
      this.#loaded = true;
      this.error = null;
    } catch (error) {
      this.error = `Could not load the call history: ${describeError(error)}`;
    } finally {
      this.loading = false;
    }
  }

  /** After the stream dropped: every call started since the newest one we had, then the ones we thought open. */
  async #catchUp(): Promise<void> {
    try {
      const known = [...this.#byId.values()];
      const newest = known.reduce((max, c) => (c.started_at > max ? c.started_at : max), '');
      let cursor: string | null = null;
      let fetched = 0;
      do {
        const query = new URLSearchParams({ limit: String(CATCH_UP_PAGE) });
        if (newest) query.set('since', newest);
        if (cursor) query.set('cursor', cursor);
        const page: CallPage = await api<CallPage>('GET', `/calls?${query}`);
        for (const call of [...page.calls].reverse()) this.#upsert(call);
        fetched += page.calls.length;
        cursor = page.next_cursor;
      } while (cursor && fetched < MAX_CALLS);
      const open = known.filter((c) => isOpen(c) && c.started_at < newest && isOpen(this.#byId.get(c.id) ?? c));
      await Promise.all(open.slice(0, MAX_OPEN_LOOKUPS).map((c) => this.#refresh(c.id)));
      this.error = null;
    } catch (error) {
      this.error = `Could not fetch the calls made while the connection was down: ${describeError(error)}`;
    }
  }

  async #refresh(id: string): Promise<void> {
    try {
      this.#upsert(await api<CallRecord>('GET', `/calls/${encodeURIComponent(id)}`));
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error;
    }
  }

  #upsert(call: CallRecord): void {
    const old = this.#byId.get(call.id);
    // Events and fetched pages can cross: a finished call never goes back to running.
    if (old && !isOpen(old) && isOpen(call)) return;
    this.#byId.set(call.id, call);
    if (!old) this.#arrival.set(call.id, ++this.#seq);
    if (!isOpen(call) && this.#output.delete(call.id)) this.#outputChanged = true;
    this.#callsChanged = true;
    this.#schedule();
  }

  #appendOutput(id: string, chunk: string): void {
    const previous = this.#output.get(id);
    let text = (previous?.text ?? '') + chunk;
    let dropped = previous?.dropped ?? 0;
    if (text.length > MAX_LIVE_OUTPUT) {
      dropped += text.length - MAX_LIVE_OUTPUT;
      text = text.slice(-MAX_LIVE_OUTPUT);
    }
    this.#output.delete(id);
    this.#output.set(id, { text, dropped });
    this.#outputChanged = true;
    // Streams whose end we never heard of (a missed event) must not pile up.
    for (const stale of this.#output.keys()) {
      if (this.#output.size <= MAX_OUTPUT_STREAMS) break;
      this.#output.delete(stale);
    }
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    const run = () => {
      if (this.#scheduled) this.#publish();
    };
    // At most one render per animation frame, and no more than ~8 a second in a burst: nobody reads faster, and
    // each render costs a layout of the list.
    const wait = Math.max(0, this.#lastPublish + MIN_PUBLISH_GAP_MS - performance.now());
    if (wait === 0) requestAnimationFrame(run);
    else setTimeout(() => requestAnimationFrame(run), wait);
    // Background tabs get no animation frames; the timer keeps a hidden tab's backlog bounded.
    setTimeout(run, wait + 250);
  }

  #publish(): void {
    this.#scheduled = false;
    this.#lastPublish = performance.now();
    if (this.#callsChanged) {
      this.#callsChanged = false;
      const next = [...this.#byId.values()].sort(newestFirst);
      for (const dropped of next.splice(MAX_CALLS)) {
        this.#byId.delete(dropped.id);
        this.#arrival.delete(dropped.id);
      }
      this.#mark = this.#seq;
      this.calls = next;
    }
    if (this.#outputChanged) {
      this.#outputChanged = false;
      this.#outputVersion++;
    }
  }
}

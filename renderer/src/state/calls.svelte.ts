import { describeError } from '../lib/api';
import type { GatewayEvents, LiveCall } from '../lib/types';
import { fetchCall, fetchRecent, fetchSince, rowOf } from './call-history';
import { CallFilter } from './call-filter.svelte';
import { CallPause } from './call-pause.svelte';
import type { GatewayFeed } from './feed.svelte';
import { FrameBatch } from './frame-batch';
import { LiveOutput, type OutputTail } from './live-output.svelte';

/** Calls kept in memory: a day of calls must not slow the page; older ones stay in the gateway's history. */
export const MAX_CALLS = 2000;
const INITIAL_PAGE = 200;
/** Open calls looked up one by one after a reconnect (they may have ended while the stream was down). */
const MAX_OPEN_LOOKUPS = 50;
/** Nobody reads faster than ~8 updates a second, and each costs a layout of the list. */
const MIN_PUBLISH_GAP_MS = 120;

/** Whether a call has yet to finish: running, or waiting for the owner. */
export function isOpen(call: Pick<LiveCall, 'status'>): boolean {
  return call.status === 'running' || call.status === 'pending';
}

function newestFirst(a: LiveCall, b: LiveCall): number {
  return a.started_at < b.started_at ? 1 : a.started_at > b.started_at ? -1 : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

function uniqueSorted(values: Iterable<string>): string[] {
  return [...new Set(values)].sort((a, b) => a.localeCompare(b));
}

/**
 * The calls the dashboard has seen, newest first: the recent history, then every `call` event from the gateway,
 * updated in place as calls finish. Each is kept as its live row (arguments in one line, no result): an opened row
 * fetches the whole record. Changes reach the published list in batches (one render per animation frame at most),
 * so a burst of calls costs one render. After the stream drops, or the gateway ends it for falling behind, it
 * fetches what it missed.
 */
export class CallLog {
  /** Newest first, at most MAX_CALLS; replaced whole on change. */
  calls = $state.raw<LiveCall[]>([]);
  /** True until the first history page has arrived (or failed). */
  loading = $state(true);
  error = $state<string | null>(null);
  readonly filter = new CallFilter();
  readonly pause: CallPause = new CallPause(this);
  readonly tools = $derived(uniqueSorted(this.calls.map((c) => c.tool)));
  readonly clients = $derived(uniqueSorted(this.calls.map((c) => c.client)));
  /** How many of the kept calls match the filter. */
  readonly matched = $derived(this.filter.active ? this.calls.filter(this.filter.predicate()).length : this.calls.length);

  #byId = new Map<string, LiveCall>();
  /** When each call first reached this page, in arrival order: tells "new since" without comparing lists. */
  #arrival = new Map<string, number>();
  #seq = 0;
  #mark = 0;
  #output = new LiveOutput();
  #callsChanged = false;
  #batch = new FrameBatch(() => this.#publish(), MIN_PUBLISH_GAP_MS);
  #loaded = false;
  #fetching: Promise<void> | undefined;
  #unsubscribe: (() => void)[];

  constructor(readonly feed: GatewayFeed) {
    this.#unsubscribe = [
      feed.on('call', (event: GatewayEvents['call']) => this.#upsert(event.call)),
      feed.on('output', (event: GatewayEvents['output']) => {
        this.#output.append(event.call_id, event.chunk);
        this.#batch.schedule();
      }),
      feed.onReconnect(
        () => void this.#fetch(),
        () => !this.#loaded,
      ),
    ];
    void this.#fetch();
  }

  /** Arrival number of everything published so far; a list held at this mark shows no newer call. */
  get mark(): number {
    return this.#mark;
  }

  arrivalOf(id: string): number {
    return this.#arrival.get(id) ?? 0;
  }

  /** Terminal output streamed so far by a running call, if any (only its tail beyond MAX_LIVE_OUTPUT). */
  liveOutput(id: string): OutputTail | undefined {
    return this.#output.get(id);
  }

  /** Tries again after an error: the first page if it never came, otherwise what was missed. */
  retry(): Promise<void> {
    return this.#fetch();
  }

  dispose(): void {
    for (const off of this.#unsubscribe) off();
    this.#unsubscribe = [];
    this.#batch.cancel();
  }

  #fetch(): Promise<void> {
    // One fetch at a time; a reconnect during the first load is covered by that load.
    this.#fetching ??= (this.#loaded ? this.#catchUp() : this.#loadFirst()).finally(() => (this.#fetching = undefined));
    return this.#fetching;
  }

  async #loadFirst(): Promise<void> {
    try {
      for (const call of await fetchRecent(INITIAL_PAGE)) this.#upsert(rowOf(call));
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
      await fetchSince(newest, MAX_CALLS, (calls) => calls.forEach((call) => this.#upsert(rowOf(call))));
      const open = known.filter((c) => isOpen(c) && c.started_at < newest && isOpen(this.#byId.get(c.id) ?? c));
      // A call's arguments never change: its row keeps the line it had, with the rest as the gateway has it now.
      const now = await Promise.all(open.slice(0, MAX_OPEN_LOOKUPS).map(async (c) => ({ call: await fetchCall(c.id), preview: c.preview })));
      for (const { call, preview } of now) if (call) this.#upsert(rowOf({ ...call, preview }));
      this.error = null;
    } catch (error) {
      this.error = `Could not fetch the calls made while the connection was down: ${describeError(error)}`;
    }
  }

  #upsert(call: LiveCall): void {
    const old = this.#byId.get(call.id);
    // Events and fetched pages can cross: a finished call never goes back to running.
    if (old && !isOpen(old) && isOpen(call)) return;
    this.#byId.set(call.id, call);
    if (!old) this.#arrival.set(call.id, ++this.#seq);
    if (!isOpen(call)) this.#output.end(call.id);
    this.#callsChanged = true;
    this.#batch.schedule();
  }

  #publish(): void {
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
    this.#output.publish();
  }
}

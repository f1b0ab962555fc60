import { createSubscriber } from 'svelte/reactivity';
import { api, describeError } from '../lib/api';
import type { GatewayEvents, StatsRange, StatsReport, ToolStats } from '../lib/types';
import type { GatewayFeed } from './feed.svelte';

export type SortKey = 'tool' | 'calls' | 'success_rate' | 'avg' | 'p95' | 'max' | 'last_call';
export type SortDirection = 'ascending' | 'descending';

/** New calls refresh the figures, but a busy assistant must not turn that into a request per call. */
const MIN_REFRESH_MS = 2_000;
/** The time window moves even when nothing happens. */
const POLL_MS = 30_000;

const SORT_VALUE: Record<SortKey, (t: ToolStats) => string | number | null> = {
  tool: (t) => t.tool,
  calls: (t) => t.calls,
  success_rate: (t) => t.success_rate,
  avg: (t) => t.latency_ms.avg,
  p95: (t) => t.latency_ms.p95,
  max: (t) => t.latency_ms.max,
  last_call: (t) => (t.last_call ? Date.parse(t.last_call.at) : null),
};

/**
 * The Stats view's data: `GET /stats` for the chosen range, kept fresh only while something reads `report`
 * (on an interval, after calls finish, after the event stream reconnects), plus the table's sort order.
 */
export class StatsBoard {
  #report = $state.raw<StatsReport | null>(null);
  range = $state<StatsRange>('24h');
  loading = $state(false);
  error = $state<string | null>(null);
  /** When the report was fetched, for "2 min ago" labels. */
  now = $state(Date.now());
  sortKey = $state<SortKey>('calls');
  sortDirection = $state<SortDirection>('descending');

  #seq = 0;
  #chosen = false;
  #subscribe: () => void;

  constructor(private readonly feed: GatewayFeed) {
    this.#subscribe = createSubscriber(() => {
      // Not in the same turn: the first read may happen while Svelte is rendering, where state must not change.
      queueMicrotask(() => void this.load());
      const poll = setInterval(() => void this.load(), POLL_MS);
      const finished = ({ phase }: GatewayEvents['call']) => phase !== 'started' && phase !== 'pending';
      const unfollow = this.feed.follow(() => void this.load(), { call: finished }, MIN_REFRESH_MS);
      return () => {
        clearInterval(poll);
        unfollow();
      };
    });
  }

  get report(): StatsReport | null {
    this.#subscribe();
    return this.#report;
  }

  /** Tools in the chosen order; tools never called stay last whatever the order. */
  readonly tools = $derived.by(() => {
    const report = this.report;
    if (!report) return [];
    const value = SORT_VALUE[this.sortKey];
    const sign = this.sortDirection === 'ascending' ? 1 : -1;
    return [...report.tools].sort((a, b) => {
      if ((a.calls === 0) !== (b.calls === 0)) return a.calls === 0 ? 1 : -1;
      const x = value(a);
      const y = value(b);
      // Missing figures (no latency yet) sort last in both directions.
      if (x === null || y === null) return x === y ? a.tool.localeCompare(b.tool) : x === null ? 1 : -1;
      const order = typeof x === 'string' ? x.localeCompare(String(y)) : x - (y as number);
      return order === 0 ? a.tool.localeCompare(b.tool) : sign * order;
    });
  });

  /** Sorts by a column; the same column again flips the direction. */
  sortBy(key: SortKey): void {
    if (this.sortKey === key) {
      this.sortDirection = this.sortDirection === 'ascending' ? 'descending' : 'ascending';
    } else {
      this.sortKey = key;
      this.sortDirection = key === 'tool' ? 'ascending' : 'descending';
    }
  }

  setRange(range: StatsRange): void {
    this.#chosen = true;
    if (range === this.range) return;
    this.range = range;
    void this.load();
  }

  async load(): Promise<void> {
    const seq = ++this.#seq;
    this.loading = true;
    try {
      const report = await api<StatsReport>('GET', `/stats?range=${this.range}`);
      if (seq !== this.#seq) return;
      this.error = null;
      this.now = Date.now();
      this.#report = report;
      if (this.#startsInLastHour(report)) {
        this.range = '1h';
        void this.load();
      }
    } catch (error) {
      if (seq === this.#seq) this.error = `Could not load the statistics: ${describeError(error)}`;
    } finally {
      if (seq === this.#seq) this.loading = false;
    }
  }

  /**
   * Until the owner picks a range: when every call of the last day is from the last hour (a fresh install), a
   * day of hourly bars would show one bar, so the first view is the last hour by the minute instead.
   */
  #startsInLastHour(report: StatsReport): boolean {
    if (this.#chosen || this.range !== '24h') return false;
    this.#chosen = true;
    const buckets = report.over_time.buckets;
    const calls = buckets.reduce((n, b) => n + b.calls, 0);
    return calls > 0 && buckets.at(-1)?.calls === calls;
  }
}

import type { CallStatus } from './calls.js';
import type { CacheStats } from './cache.js';

/** Figures on the wire: `GET /stats[?range=&by=]` and `GET /stats/tools/{name}`. */

/** Windows `GET /stats?range=` accepts for calls over time. */
export type StatsRange = '1h' | '24h' | '7d';

export interface ToolStats {
  tool: string;
  calls: number;
  succeeded: number;
  /** The tool ran and failed (an error result, a timeout). */
  failed: number;
  /** The gateway refused before running: unknown or disabled tool, bad arguments. */
  refused: number;
  /** Policy or the owner said no. */
  denied: number;
  /** Of the calls that ran, the share that succeeded. */
  success_rate: number | null;
  cache_hits: number;
  /** Over the tool's most recent 10,000 calls that ran. */
  latency_ms: { avg: number | null; p50: number | null; p95: number | null; p99: number | null; max: number | null };
  top_errors: { name: string; count: number }[];
  last_call: { id: string; status: CallStatus; at: string } | null;
}

/** The same figures for the calls one client made, over all tools. */
export type ClientStats = Omit<ToolStats, 'tool'> & { client: string };

export interface TimeBucket {
  at: string;
  calls: number;
  failed: number;
}

/** Every bucket of the range, oldest first, empty ones as zeros; `failed` counts failed, refused and denied calls. */
export interface CallsOverTime {
  since: string;
  bucket_s: number;
  range: StatsRange;
  buckets: TimeBucket[];
}

/** What `GET /stats` answers however it groups; the cache figures are since the gateway started. */
export interface StatsTotals {
  range: StatsRange;
  since: string;
  totals: { calls: number; succeeded: number; failed: number; refused: number; denied: number; cache_hits: number };
  over_time: CallsOverTime;
  cache: CacheStats;
}

/** `GET /stats`: the figures per tool. */
export interface StatsReport extends StatsTotals {
  tools: ToolStats[];
}

/** `GET /stats?by=client`: the figures per client. */
export interface ClientStatsReport extends StatsTotals {
  clients: ClientStats[];
}

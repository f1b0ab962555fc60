import type { CallStatus } from '../contract/calls.js';
import type { ClientStats, TimeBucket, ToolStats } from '../contract/stats.js';
import type { Db } from './db.js';

/** Latency figures describe a tool's most recent calls: bounded work, and what the tool is like now. */
const LATENCY_WINDOW = 10_000;

/** avg, p50, p95, p99 and max of durations (nearest-rank percentiles). */
function latencySummary(durations: number[]): ToolStats['latency_ms'] {
  if (durations.length === 0) return { avg: null, p50: null, p95: null, p99: null, max: null };
  const sorted = Float64Array.from(durations).sort();
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
  return {
    avg: durations.reduce((a, b) => a + b, 0) / durations.length,
    p50: rank(0.5),
    p95: rank(0.95),
    p99: rank(0.99),
    max: sorted[sorted.length - 1]!,
  };
}

/** Calls whose tool actually ran: the gateway accepted them (answered 200). */
const RAN = 'http_status = 200';

/**
 * The figures read over the call history (`calls`): which tools ran, per tool and per client, and over time.
 * CallStore adds the writes and the pages of the history itself.
 */
export class CallStatistics {
  constructor(protected readonly db: Db) {}

  /**
   * Tools that ran at least once (for one client's calls only, when `client` is given). Refused calls do not count:
   * any client can send a made-up tool name, and such names must not fill the statistics.
   */
  toolNames(client?: string): string[] {
    return this.db
      .prepare<[string | null, string | null], { tool: string }>(`SELECT DISTINCT tool FROM calls WHERE ${RAN} AND (? IS NULL OR client = ?) ORDER BY tool`)
      .all(client ?? null, client ?? null)
      .map((r) => r.tool);
  }

  /** Whether a tool has run at least once (see toolNames). */
  hasRun(tool: string, client?: string): boolean {
    return (
      this.db
        .prepare<[string, string | null, string | null], { n: number }>(`SELECT 1 AS n FROM calls WHERE tool = ? AND ${RAN} AND (? IS NULL OR client = ?) LIMIT 1`)
        .get(tool, client ?? null, client ?? null) !== undefined
    );
  }

  /**
   * One tool's figures, over the calls started at or after `sinceMs` (all of them when it is absent), and only one
   * client's calls when `client` is given.
   */
  toolStats(tool: string, sinceMs?: number, client?: string): ToolStats {
    return { tool, ...this.#stats('tool', tool, sinceMs, client) };
  }

  /** One client's figures over every tool, as toolStats. */
  clientStats(client: string, sinceMs?: number): ClientStats {
    return { client, ...this.#stats('client', client, sinceMs) };
  }

  /** Clients with calls started at or after `sinceMs` (ever, when it is absent). */
  clientNames(sinceMs?: number): string[] {
    return this.db
      .prepare<[number], { client: string }>('SELECT DISTINCT client FROM calls WHERE started_at >= ? ORDER BY client')
      .all(sinceMs ?? 0)
      .map((r) => r.client);
  }

  #stats(column: 'tool' | 'client', value: string, sinceMs = 0, client?: string): Omit<ToolStats, 'tool'> {
    const db = this.db;
    // `column` is one of two literals, never caller text.
    const where = `${column} = @value AND started_at >= @since AND (@client IS NULL OR client = @client)`;
    const params = { value, since: sinceMs, client: client ?? null };
    const totals = db
      .prepare<[typeof params], { calls: number; succeeded: number; failed: number; refused: number; denied: number; cache_hits: number }>(
        `SELECT count(*) AS calls,
                coalesce(sum(status = 'succeeded'), 0) AS succeeded,
                coalesce(sum(status = 'failed' AND http_status = 200), 0) AS failed,
                coalesce(sum(status = 'failed' AND http_status <> 200), 0) AS refused,
                coalesce(sum(status = 'denied'), 0) AS denied,
                coalesce(sum(cache_hit), 0) AS cache_hits
         FROM calls WHERE ${where}`,
      )
      .get(params)!;
    const latency = latencySummary(
      db
        .prepare<[typeof params & { window: number }], { d: number }>(
          `SELECT duration_ms AS d FROM calls WHERE ${where} AND ${RAN} AND duration_ms IS NOT NULL ORDER BY seq DESC LIMIT @window`,
        )
        .all({ ...params, window: LATENCY_WINDOW })
        .map((r) => r.d),
    );
    const topErrors = db
      .prepare<[typeof params], { name: string; count: number }>(
        `SELECT error_name AS name, count(*) AS count FROM calls WHERE ${where} AND error_name IS NOT NULL
         GROUP BY error_name ORDER BY count DESC, name LIMIT 5`,
      )
      .all(params);
    const last = db
      .prepare<[typeof params], { id: string; status: CallStatus; started_at: number }>(
        `SELECT id, status, started_at FROM calls WHERE ${where} ORDER BY seq DESC LIMIT 1`,
      )
      .get(params);
    const finished = totals.succeeded + totals.failed;
    return {
      calls: totals.calls,
      succeeded: totals.succeeded,
      failed: totals.failed,
      refused: totals.refused,
      denied: totals.denied,
      success_rate: finished === 0 ? null : totals.succeeded / finished,
      cache_hits: totals.cache_hits,
      latency_ms: latency,
      top_errors: topErrors,
      last_call: last ? { id: last.id, status: last.status, at: new Date(last.started_at).toISOString() } : null,
    };
  }

  /** Calls per time bucket, oldest first, for charts (one client's calls only, when `client` is given). */
  overTime(sinceMs: number, bucketMs: number, client?: string): TimeBucket[] {
    return this.db
      .prepare<[number, number, string | null, string | null], { bucket: number; calls: number; failed: number }>(
        // better-sqlite3 binds JS numbers as REAL: cast, or the division is not whole and every call is its own bucket.
        `SELECT (started_at / CAST(? AS INTEGER)) AS bucket, count(*) AS calls, coalesce(sum(status IN ('failed', 'denied')), 0) AS failed
         FROM calls WHERE started_at >= ? AND (? IS NULL OR client = ?) GROUP BY bucket ORDER BY bucket`,
      )
      .all(bucketMs, sinceMs, client ?? null, client ?? null)
      .map((r) => ({ at: new Date(r.bucket * bucketMs).toISOString(), calls: r.calls, failed: r.failed }));
  }
}

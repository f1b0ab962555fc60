import type { CallRecord, CallRecovery, CallStatus } from '../contract/calls.js';
import type { ClientStats, TimeBucket, ToolStats } from '../contract/stats.js';
import type { Db } from './db.js';

// A call's record is the wire contract's: the history, the events and the dashboard read this one type.
export type { CallRecord, CallRecovery, CallStatus } from '../contract/calls.js';
export type { ClientStats, TimeBucket, ToolStats } from '../contract/stats.js';
export const CALL_STATUSES: readonly CallStatus[] = ['running', 'pending', 'succeeded', 'failed', 'denied', 'cancelled'];

export interface CallFilter {
  tool?: string;
  status?: CallStatus;
  client?: string;
  /** Epoch milliseconds; only calls started at or after it. */
  since?: number;
  /** Opaque cursor from a previous page. */
  cursor?: string;
  limit: number;
}

interface CallRow {
  seq: number;
  id: string;
  tool: string;
  client: string;
  via: string;
  arguments: string | null;
  result: string | null;
  status: CallStatus;
  error_name: string | null;
  error_message: string | null;
  http_status: number | null;
  decision: string | null;
  rule: string | null;
  reason: string | null;
  cache_hit: number;
  started_at: number;
  finished_at: number | null;
  duration_ms: number | null;
  recovery: string | null;
}

/** What the history keeps: calls started at or after `before` (epoch ms), and at most the newest `keepRows`. */
export interface PruneLimits {
  before?: number;
  keepRows?: number;
}

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

function toJson(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

function fromJson(text: string | null): unknown {
  return text === null ? null : (JSON.parse(text) as unknown);
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

type NewCallRow = Omit<CallRow, 'seq'>;

function toRow(call: CallRecord): NewCallRow {
  return {
    id: call.id,
    tool: call.tool,
    client: call.client,
    via: call.via,
    arguments: toJson(call.arguments),
    result: toJson(call.result),
    status: call.status,
    error_name: call.error?.name ?? null,
    error_message: call.error?.message ?? null,
    http_status: call.http_status,
    decision: call.decision,
    rule: call.rule,
    reason: call.reason,
    cache_hit: call.cache_hit ? 1 : 0,
    started_at: Date.parse(call.started_at),
    finished_at: call.finished_at === null ? null : Date.parse(call.finished_at),
    duration_ms: call.duration_ms,
    recovery: call.recovery ? JSON.stringify(call.recovery) : null,
  };
}

function toRecord(row: CallRow): CallRecord {
  return {
    id: row.id,
    tool: row.tool,
    client: row.client,
    via: row.via,
    arguments: fromJson(row.arguments),
    result: fromJson(row.result),
    status: row.status,
    error: row.error_name ? { name: row.error_name, message: row.error_message ?? '' } : null,
    http_status: row.http_status,
    decision: row.decision,
    rule: row.rule,
    reason: row.reason,
    cache_hit: row.cache_hit === 1,
    started_at: new Date(row.started_at).toISOString(),
    finished_at: iso(row.finished_at),
    duration_ms: row.duration_ms,
    ...recoveryOf(row.recovery),
  };
}

function recoveryOf(text: string | null): Pick<CallRecord, 'recovered' | 'recovery'> {
  if (text === null) return {};
  const recovery = JSON.parse(text) as CallRecovery;
  return { ...(recovery.shape !== undefined && { recovered: true as const }), recovery };
}

/** Call history. Writes are synchronous so a call is on disk before its caller hears the answer. */
export class CallStore {
  readonly #upsert;
  readonly #byId;
  readonly #count;
  readonly #cancelOpen;
  readonly #saveAll: (rows: NewCallRow[]) => void;
  #queue: { row: NewCallRow; resolve: () => void; reject: (error: unknown) => void }[] = [];

  constructor(private readonly db: Db) {
    this.#upsert = db.prepare(`
      INSERT INTO calls (id, tool, client, via, arguments, result, status, error_name, error_message, http_status,
                         decision, rule, reason, cache_hit, started_at, finished_at, duration_ms, recovery)
      VALUES (@id, @tool, @client, @via, @arguments, @result, @status, @error_name, @error_message, @http_status,
              @decision, @rule, @reason, @cache_hit, @started_at, @finished_at, @duration_ms, @recovery)
      ON CONFLICT (id) DO UPDATE SET
        result = excluded.result, status = excluded.status, error_name = excluded.error_name,
        error_message = excluded.error_message, http_status = excluded.http_status, decision = excluded.decision,
        rule = excluded.rule, reason = excluded.reason, cache_hit = excluded.cache_hit,
        finished_at = excluded.finished_at, duration_ms = excluded.duration_ms`);
    this.#saveAll = db.transaction((rows: NewCallRow[]) => {
      for (const row of rows) this.#upsert.run(row);
    });
    this.#byId = db.prepare<[string], CallRow>('SELECT * FROM calls WHERE id = ?');
    this.#count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM calls');
    this.#cancelOpen = db.prepare(
      `UPDATE calls SET status = 'cancelled', error_name = 'CALL_CANCELLED',
         error_message = 'The gateway stopped before this call finished.', finished_at = ?
       WHERE status IN ('running', 'pending')`,
    );
  }

  /** Inserts a call, or updates the outcome of one recorded earlier (a call that ran long or waited for approval). */
  save(call: CallRecord): void {
    this.#upsert.run(toRow(call));
  }

  /**
   * Records a call together with the others that finish in the same turn of the event loop: one transaction,
   * one commit for all of them. Resolves once the call is committed, so a caller told "done" is never lost.
   */
  saveSoon(call: CallRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ row: toRow(call), resolve, reject });
      if (this.#queue.length === 1) setImmediate(() => this.flush());
    });
  }

  /** Commits every queued call now (also before the database closes). */
  flush(): void {
    const batch = this.#queue;
    if (batch.length === 0) return;
    this.#queue = [];
    try {
      this.#saveAll(batch.map((entry) => entry.row));
    } catch (error) {
      for (const entry of batch) entry.reject(error);
      return;
    }
    for (const entry of batch) entry.resolve();
  }

  get(id: string): CallRecord | undefined {
    const row = this.#byId.get(id);
    return row ? toRecord(row) : undefined;
  }

  count(): number {
    return this.#count.get()?.n ?? 0;
  }

  /** Calls started at or after `sinceMs` (the tray's "calls today"). */
  countSince(sinceMs: number): number {
    return this.db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM calls WHERE started_at >= ?').get(sinceMs)?.n ?? 0;
  }

  /** Marks calls left open by a previous run (crash, kill) as cancelled; returns how many. */
  cancelOpen(now = Date.now()): number {
    return this.#cancelOpen.run(now).changes;
  }

  /** Newest first, with a cursor for the next page. */
  list(filter: CallFilter): { calls: CallRecord[]; next_cursor: string | null } {
    const where: string[] = [];
    const params: Record<string, unknown> = { limit: filter.limit + 1 };
    if (filter.tool) (where.push('tool = @tool'), (params.tool = filter.tool));
    if (filter.status) (where.push('status = @status'), (params.status = filter.status));
    if (filter.client) (where.push('client = @client'), (params.client = filter.client));
    if (filter.since !== undefined) (where.push('started_at >= @since'), (params.since = filter.since));
    if (filter.cursor) (where.push('seq < @cursor'), (params.cursor = decodeCursor(filter.cursor)));
    const sql = `SELECT * FROM calls ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT @limit`;
    const rows = this.db.prepare<Record<string, unknown>, CallRow>(sql).all(params);
    const more = rows.length > filter.limit;
    const page = more ? rows.slice(0, filter.limit) : rows;
    return { calls: page.map(toRecord), next_cursor: more ? encodeCursor(page.at(-1)!.seq) : null };
  }

  /**
   * Deletes up to `limit` of the oldest finished calls that fall outside the retention: started before `before`, or
   * older than the newest `keepRows`. One short statement: a caller recording a call waits at most for this batch.
   */
  pruneBatch(limits: PruneLimits, limit: number): number {
    const cut = this.#pruneCut(limits);
    if (cut.before === null && cut.seq === null) return 0;
    return this.db
      .prepare(
        `DELETE FROM calls WHERE seq IN (
           SELECT seq FROM calls WHERE status NOT IN ('running', 'pending') AND (started_at < @before OR seq <= @seq)
           ORDER BY seq LIMIT @limit)`,
      )
      .run({ before: cut.before ?? -1, seq: cut.seq ?? -1, limit }).changes;
  }

  /** How many finished calls lie outside the retention now. */
  countPrunable(limits: PruneLimits): number {
    const cut = this.#pruneCut(limits);
    if (cut.before === null && cut.seq === null) return 0;
    return this.db
      .prepare<Record<string, number>, { n: number }>(
        `SELECT count(*) AS n FROM calls WHERE status NOT IN ('running', 'pending') AND (started_at < @before OR seq <= @seq)`,
      )
      .get({ before: cut.before ?? -1, seq: cut.seq ?? -1 })!.n;
  }

  #pruneCut(limits: PruneLimits): { before: number | null; seq: number | null } {
    const seq =
      limits.keepRows === undefined
        ? null
        : (this.db.prepare<[number], { seq: number }>('SELECT seq FROM calls ORDER BY seq DESC LIMIT 1 OFFSET ?').get(limits.keepRows)?.seq ?? null);
    return { before: limits.before ?? null, seq };
  }

  /**
   * The history oldest first, in pages: each page is its own short query, so no statement stays open between pages
   * (the connection must stay free to record calls while an export is read slowly). Calls recorded after the export
   * began are left out, so it ends.
   */
  *exportPages(filter: Omit<CallFilter, 'cursor' | 'limit'>, pageSize = 500): Generator<CallRecord[]> {
    const where: string[] = ['seq > @after', 'seq <= @last'];
    const params: Record<string, unknown> = { limit: pageSize, after: 0 };
    params.last = this.db.prepare<[], { seq: number | null }>('SELECT max(seq) AS seq FROM calls').get()?.seq ?? 0;
    if (filter.tool) (where.push('tool = @tool'), (params.tool = filter.tool));
    if (filter.status) (where.push('status = @status'), (params.status = filter.status));
    if (filter.client) (where.push('client = @client'), (params.client = filter.client));
    if (filter.since !== undefined) (where.push('started_at >= @since'), (params.since = filter.since));
    const page = this.db.prepare<Record<string, unknown>, CallRow>(`SELECT * FROM calls WHERE ${where.join(' AND ')} ORDER BY seq LIMIT @limit`);
    for (;;) {
      const rows = page.all(params);
      if (rows.length === 0) return;
      params.after = rows.at(-1)!.seq;
      yield rows.map(toRecord);
    }
  }

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

function encodeCursor(seq: number): string {
  return Buffer.from(String(seq)).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const seq = Number(Buffer.from(cursor, 'base64url').toString());
  if (!Number.isSafeInteger(seq) || seq <= 0) throw new RangeError('invalid cursor');
  return seq;
}

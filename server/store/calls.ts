import type { Statement } from 'better-sqlite3';
import type { CallRecord, CallStatus } from '../contract/calls.js';
import { ROW_COLUMNS, rowValues, toRecord, toRow, type CallRow, type NewCallRow } from './call-rows.js';
import { CallStatistics } from './call-stats.js';
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

/**
 * About how much of calls' arguments and results (their JSON text) one page of the history holds, whatever its row
 * limit. Security: a call can carry a 1 MiB argument and a 1 MiB result, so 500 rows read whole held the gateway for
 * seconds and took gigabytes; a page stops once it holds this much (at least one call), and the cursor goes on.
 */
export const PAGE_BYTES = 8 * 2 ** 20;

/** What the history keeps: calls started at or after `before` (epoch ms), and at most the newest `keepRows`. */
export interface PruneLimits {
  before?: number;
  keepRows?: number;
}

/**
 * Call history. Writes are synchronous so a call is on disk before its caller hears the answer. The figures read
 * over the same table (toolStats, overTime…) come from CallStatistics.
 */
export class CallStore extends CallStatistics {
  readonly #upsert;
  readonly #byId;
  readonly #count;
  readonly #cancelOpen;
  readonly #saveAll: (rows: NewCallRow[]) => void;
  #queue: { row: NewCallRow; resolve: () => void; reject: (error: unknown) => void }[] = [];

  constructor(db: Db) {
    super(db);
    // Anonymous parameters, bound from an array in column order: named ones cost a property look-up each, on every call.
    this.#upsert = db.prepare(`
      INSERT INTO calls (${ROW_COLUMNS.join(', ')})
      VALUES (${ROW_COLUMNS.map(() => '?').join(', ')})
      ON CONFLICT (id) DO UPDATE SET
        result = excluded.result, status = excluded.status, error_name = excluded.error_name,
        error_message = excluded.error_message, http_status = excluded.http_status, decision = excluded.decision,
        rule = excluded.rule, reason = excluded.reason, cache_hit = excluded.cache_hit,
        finished_at = excluded.finished_at, duration_ms = excluded.duration_ms`);
    this.#saveAll = db.transaction((rows: NewCallRow[]) => {
      for (const row of rows) this.#upsert.run(rowValues(row));
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
    this.#upsert.run(rowValues(toRow(call)));
  }

  /**
   * Records a call together with the others that finish in this turn of the event loop and the next: one
   * transaction, one commit for all of them. Resolves once the call is committed, so a caller told "done" is never
   * lost. Why two turns: under load the calls whose requests are read in the next turn join the commit, which then
   * holds about twice as many calls for the same pages written (measured: about a fifth more calls a second at 32
   * clients); with one call at a time the wait is one empty turn of the loop.
   */
  saveSoon(call: CallRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ row: toRow(call), resolve, reject });
      if (this.#queue.length === 1) setImmediate(() => setImmediate(() => this.flush()));
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
    const { rows, full } = boundedRows(this.db.prepare<Record<string, unknown>, CallRow>(sql), params);
    const more = rows.length > filter.limit || full;
    const page = rows.length > filter.limit ? rows.slice(0, filter.limit) : rows;
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
      const { rows } = boundedRows(page, params);
      if (rows.length === 0) return;
      params.after = rows.at(-1)!.seq;
      yield rows.map(toRecord);
    }
  }
}

/** A query's rows in order, read one by one until its LIMIT or PAGE_BYTES of arguments and results (`full`). */
function boundedRows(statement: Statement<Record<string, unknown>, CallRow>, params: Record<string, unknown>): { rows: CallRow[]; full: boolean } {
  const rows: CallRow[] = [];
  let bytes = 0;
  for (const row of statement.iterate(params)) {
    rows.push(row);
    bytes += (row.arguments?.length ?? 0) + (row.result?.length ?? 0);
    if (bytes >= PAGE_BYTES) return { rows, full: true };
  }
  return { rows, full: false };
}

function encodeCursor(seq: number): string {
  return Buffer.from(String(seq)).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const seq = Number(Buffer.from(cursor, 'base64url').toString());
  if (!Number.isSafeInteger(seq) || seq <= 0) throw new RangeError('invalid cursor');
  return seq;
}

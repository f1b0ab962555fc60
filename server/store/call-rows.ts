import type { CallRecord, CallRecovery, CallStatus } from '../contract/calls.js';

/** A call record as the `calls` table holds it, and back: JSON columns, epoch milliseconds, 0/1 for booleans. */

export interface CallRow {
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

function toJson(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

function fromJson(text: string | null): unknown {
  return text === null ? null : (JSON.parse(text) as unknown);
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

export type NewCallRow = Omit<CallRow, 'seq'>;

/** The columns a call is written with, in the order rowValues gives them. */
export const ROW_COLUMNS = [
  'id', 'tool', 'client', 'via', 'arguments', 'result', 'status', 'error_name', 'error_message', 'http_status',
  'decision', 'rule', 'reason', 'cache_hit', 'started_at', 'finished_at', 'duration_ms', 'recovery',
] as const satisfies readonly (keyof NewCallRow)[];

/** A row's values in ROW_COLUMNS order. */
export function rowValues(row: NewCallRow): NewCallRow[keyof NewCallRow][] {
  return [
    row.id, row.tool, row.client, row.via, row.arguments, row.result, row.status, row.error_name, row.error_message, row.http_status,
    row.decision, row.rule, row.reason, row.cache_hit, row.started_at, row.finished_at, row.duration_ms, row.recovery,
  ];
}

export function toRow(call: CallRecord): NewCallRow {
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

export function toRecord(row: CallRow): CallRecord {
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

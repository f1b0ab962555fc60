import { randomUUID } from 'node:crypto';
import type { ErrorBody } from '../errors.js';
import type { CallRecord, CallRecovery, CallStatus } from '../store/index.js';
import type { ProgressUpdate } from '../tools/types.js';
import type { CallerSignal } from './cancellation.js';

export interface CallRequest {
  tool: string;
  arguments: unknown;
  /** Who asked: a client name, or "owner". */
  client: string;
  /** Which door the call came through (http, tool_calls, cli, mcp, llm…), for the log. */
  via: string;
  /** Aborts the call when the caller goes away (an AbortSignal, or a lighter CallerGone). */
  signal?: CallerSignal;
  /** Set when the caller's arguments could not even be decoded (a tool_call's JSON string); the call is refused. */
  argumentsError?: string;
  /** True for the owner's own calls (dashboard, tray): no per-client tool set applies. */
  owner?: boolean;
  /** Called once the call waits for the owner's approval (lets a route answer 202 at once). */
  onPending?: (pending: { approval_id: string; call_id: string }) => void;
  /** The caller wants a fresh answer (`Cache-Control: no-cache`): the tool runs, and its answer refreshes the cache. */
  noCache?: boolean;
  /** Receives the running tool's progress reports (only tools that report any call it). */
  onProgress?: (update: ProgressUpdate) => void;
  /** How a model's call was recovered or mended before it came here (the LLM bridge), kept with the record. */
  recovery?: CallRecovery;
}

export type Envelope =
  | { success: true; result: unknown; duration_ms: number; cached: boolean; call_id: string }
  | { success: false; error: ErrorBody; duration_ms?: number; call_id: string };

export interface CallOutcome {
  callId: string;
  status: CallStatus;
  /** Whether the gateway accepted the call: 200 even when the tool ran and failed. */
  httpStatus: number;
  envelope: Envelope;
}

/** What running a tool came to: its result, or the error its caller is answered with. */
export type RunOutcome =
  | { ok: true; result: unknown }
  | { ok: false; status: CallStatus; httpStatus: number; error: ErrorBody };

/** Sortable, unique call ids: time first so ids of one run read in order. */
export function newCallId(now = Date.now()): string {
  // randomUUID draws from a pooled entropy buffer: far cheaper per call than randomBytes.
  return `c_${now.toString(36)}${randomUUID().slice(0, 8)}`;
}

/** A call's record as it arrives: running, nothing decided yet. */
export function newRecord(request: CallRequest, startedAt: number): CallRecord {
  // Built as one literal and then added to (no conditional spread): this runs for every call.
  const record: CallRecord = {
    id: newCallId(startedAt),
    tool: request.tool,
    client: request.client,
    via: request.via,
    arguments: request.arguments,
    result: null,
    status: 'running',
    error: null,
    http_status: null,
    decision: null,
    rule: null,
    reason: null,
    cache_hit: false,
    started_at: new Date(startedAt).toISOString(),
    finished_at: null,
    duration_ms: null,
  };
  if (request.recovery) {
    if (request.recovery.shape !== undefined) record.recovered = true;
    record.recovery = request.recovery;
  }
  return record;
}

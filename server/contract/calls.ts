import type { ErrorBody } from './envelope.js';

/**
 * Calls on the wire: the history (`GET /calls`, `GET /calls/{id}`, the JSONL export) and the live row the `call`
 * event carries. The store's record is this type, so a field renamed there changes what the dashboard compiles against.
 */

export type CallStatus = 'running' | 'pending' | 'succeeded' | 'failed' | 'denied' | 'cancelled';

/** Where a call is in the pipeline, as the `call` event says it. */
export type CallPhase = 'started' | 'succeeded' | 'failed' | 'denied' | 'pending' | 'cancelled';

/** What Pincer did to a model's call before it went through the pipeline. */
export interface CallRecovery {
  /** The model family's shape the call was written in as text; absent for a native call. */
  shape?: string;
  /** Repairs made to the arguments (`json`, `unwrapped`, `coerced limit`…). */
  repairs?: string[];
  /** The tool name as the model wrote it, when it was normalised to an offered one. */
  written_name?: string;
}

/** One call as recorded; arguments and result arrive here already redacted. */
export interface CallRecord {
  id: string;
  tool: string;
  client: string;
  /** Which door the call came through: http, openai, cli, mcp, llm… */
  via: string;
  arguments: unknown;
  result: unknown;
  status: CallStatus;
  error: { name: string; message: string } | null;
  http_status: number | null;
  decision: string | null;
  rule: string | null;
  reason: string | null;
  cache_hit: boolean;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  /** Set when a model's call was recovered from its text or mended on the way in (the LLM bridge and proxies). */
  recovered?: true;
  recovery?: CallRecovery;
  /** Set, with arguments and result null, when the reader may not see them (another client's memory call). */
  hidden?: string;
}

/**
 * A call as a live row shows it: what `call` events carry. Arguments and results can be a megabyte each and the
 * event goes to every viewer, so they stay out; the whole record is `GET /calls/{id}`. Every field is bounded.
 */
export interface LiveCall
  extends Pick<CallRecord, 'id' | 'tool' | 'client' | 'via' | 'status' | 'http_status' | 'decision' | 'rule' | 'cache_hit' | 'started_at' | 'finished_at' | 'duration_ms' | 'hidden'> {
  /** The error's name only; its message is in the record. */
  error: { name: string } | null;
  /** The policy's reason, cut to 300 characters. */
  reason: string | null;
  /** The arguments (secrets redacted) in one line, at most 240 characters; empty when `hidden`. */
  preview: string;
}

/**
 * What a call answers (`POST /tools/{name}/execute`, `POST /execute`): its result, or the error of a call that was
 * refused (HTTP 4xx) or ran and failed (HTTP 200, so a model reads it and acts).
 */
export type CallEnvelope =
  | { success: true; result: unknown; duration_ms: number; cached: boolean; call_id: string }
  | { success: false; error: ErrorBody; duration_ms?: number; call_id: string };

/** With `Prefer: respond-async`, a call that waits for the owner is answered 202 at once with this. */
export interface PendingCall {
  success: false;
  pending: true;
  approval_id: string;
  call_id: string;
}

/** A call as `GET /calls` lists it: the whole record, and the arguments line its live row shows. */
export interface ListedCall extends CallRecord {
  preview: string;
}

/** `GET /calls`: newest first; `next_cursor` fetches the next (older) page. */
export interface CallPage {
  calls: ListedCall[];
  next_cursor: string | null;
}

import type { CallRecord } from '../store/index.js';

/**
 * A call as the `call` event on GET /events carries it: what a live row shows, nothing more. Arguments and results
 * can be a megabyte each and the event goes to every viewer, so they stay out; the whole record (arguments, result,
 * error message) is GET /calls/{id}. Every field is bounded, so is the event.
 */
export interface LiveCall {
  id: string;
  tool: string;
  client: string;
  via: string;
  status: CallRecord['status'];
  /** The error's name only; its message is in the record. */
  error: { name: string } | null;
  http_status: number | null;
  decision: string | null;
  rule: string | null;
  /** The policy's reason, cut to MAX_REASON characters. */
  reason: string | null;
  cache_hit: boolean;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  /** The arguments (secrets already redacted) in one line, at most MAX_PREVIEW characters. */
  preview: string;
}

const MAX_PREVIEW = 240;
const MAX_REASON = 300;
/** A nested value (an object, an array) shows its JSON up to this many characters. */
const NESTED_PREVIEW = 80;

/** The live row's view of a call. `call` must already be redacted (the executor's public record is). */
export function liveCall(call: CallRecord): LiveCall {
  return {
    id: call.id,
    tool: call.tool,
    client: call.client,
    via: call.via,
    status: call.status,
    error: call.error ? { name: call.error.name } : null,
    http_status: call.http_status,
    decision: call.decision,
    rule: call.rule,
    reason: call.reason === null ? null : cut(call.reason, MAX_REASON),
    cache_hit: call.cache_hit,
    started_at: call.started_at,
    finished_at: call.finished_at,
    duration_ms: call.duration_ms,
    preview: argumentsPreview(call.arguments),
  };
}

/**
 * The arguments in one line ("command: ls -la · cwd: src"). The dashboard builds the same line for calls it reads
 * from GET /calls (renderer/src/lib/live-call.ts); a test holds the two to the same output.
 */
export function argumentsPreview(args: unknown): string {
  if (args === null || args === undefined) return '';
  if (typeof args !== 'object' || Array.isArray(args)) return previewValue(args).slice(0, MAX_PREVIEW);
  // Empty strings are mostly schema defaults filled in; they only crowd the line.
  const entries = Object.entries(args).filter(([, v]) => v !== '');
  const text = entries.length === 1 ? previewValue(entries[0]![1]) : entries.map(([k, v]) => `${k}: ${previewValue(v)}`).join(' · ');
  return cut(text, MAX_PREVIEW);
}

function previewValue(value: unknown): string {
  // Only the start of a long string can show: a megabyte of file content is not scanned for whitespace.
  if (typeof value === 'string') return (value.length > MAX_PREVIEW * 2 ? value.slice(0, MAX_PREVIEW * 2) : value).replace(/\s+/g, ' ');
  if (value === null || typeof value !== 'object') return String(value);
  const text = JSON.stringify(value) ?? '';
  return text.length > NESTED_PREVIEW ? `${text.slice(0, NESTED_PREVIEW - 1)}…` : text;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

import type { CallRecord, ListedCall, LiveCall } from '../contract/calls.js';

/**
 * The one place a call's live row is built: the `call` event on GET /events carries it, and GET /calls lists each
 * call with the same arguments line, so the dashboard shows a row alike whichever way its call arrived. Arguments and
 * results can be a megabyte each and the event goes to every viewer, so they stay out of the row; every field is
 * bounded, so is the event.
 */

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

/** A call as GET /calls lists it: the whole record (already shown to this reader, redacted) and its row's line. */
export function listedCall(call: CallRecord): ListedCall {
  return { ...call, preview: argumentsPreview(call.arguments) };
}

/** The arguments in one line ("command: ls -la · cwd: src"), for a live row and a chat step. */
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

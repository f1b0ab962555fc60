import type { CallRecord, LiveCall } from './types';

// What the call log keeps of a call: the fields of a live row. `call` events arrive in this shape; calls read from
// GET /calls are cut down to it, so every row is alike (and a day of calls with megabyte results stays small).

const MAX_PREVIEW = 240;
/** Only the start of a long string can show: a megabyte of file content is not scanned for whitespace. */
const STRING_SCAN = 2 * MAX_PREVIEW;
/** A nested value (an object, an array) shows its JSON up to this many characters. */
const NESTED_PREVIEW = 80;

function previewValue(value: unknown): string {
  if (typeof value === 'string') return (value.length > STRING_SCAN ? value.slice(0, STRING_SCAN) : value).replace(/\s+/g, ' ');
  if (value === null || typeof value !== 'object') return String(value);
  const text = JSON.stringify(value);
  return text.length > NESTED_PREVIEW ? `${text.slice(0, NESTED_PREVIEW - 1)}…` : text;
}

/**
 * The arguments in one line ("command: ls -la · cwd: src"), for the collapsed row. The gateway builds the same line
 * for `call` events (server/http/live-call.ts); a test holds the two to the same output.
 */
export function argumentsPreview(args: unknown): string {
  if (args === null || args === undefined) return '';
  if (typeof args !== 'object' || Array.isArray(args)) return previewValue(args).slice(0, MAX_PREVIEW);
  // Empty strings are mostly schema defaults filled in; they only crowd the line.
  const entries = Object.entries(args).filter(([, v]) => v !== '');
  const text = entries.length === 1 ? previewValue(entries[0]![1]) : entries.map(([k, v]) => `${k}: ${previewValue(v)}`).join(' · ');
  return text.length > MAX_PREVIEW ? `${text.slice(0, MAX_PREVIEW - 1)}…` : text;
}

/** A whole record from GET /calls as the live row it shows as. */
export function toLiveCall(call: CallRecord): LiveCall {
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
    reason: call.reason,
    cache_hit: call.cache_hit,
    started_at: call.started_at,
    finished_at: call.finished_at,
    duration_ms: call.duration_ms,
    preview: argumentsPreview(call.arguments),
  };
}

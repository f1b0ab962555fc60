import { api, ApiError } from '../lib/api';
import type { CallPage, CallRecord, ListedCall, LiveCall } from '../lib/types';

// The gateway's call history (`GET /calls`), read the two ways the call log needs it. Pages come newest first; the
// calls are handed over oldest first, so the log numbers them in the order they happened.

const PAGE = 500;

/**
 * A listed call as the call log keeps it: the fields of its live row, the arguments line as the gateway built it. The
 * log keeps rows alike whichever way a call arrived (a `call` event carries this shape), and a day of calls with
 * megabyte results stays small.
 */
export function rowOf(call: ListedCall): LiveCall {
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
    preview: call.preview,
  };
}

/** The newest `limit` calls, oldest first. */
export async function fetchRecent(limit: number): Promise<ListedCall[]> {
  const page = await api<CallPage>('GET', `/calls?limit=${limit}`);
  return [...page.calls].reverse();
}

/** Every call started since `since` (all of them when empty), page by page, up to about `max` calls. */
export async function fetchSince(since: string, max: number, onPage: (calls: ListedCall[]) => void): Promise<void> {
  let cursor: string | null = null;
  let fetched = 0;
  do {
    const query = new URLSearchParams({ limit: String(PAGE) });
    if (since) query.set('since', since);
    if (cursor) query.set('cursor', cursor);
    const page: CallPage = await api<CallPage>('GET', `/calls?${query}`);
    onPage([...page.calls].reverse());
    fetched += page.calls.length;
    cursor = page.next_cursor;
  } while (cursor && fetched < max);
}

/** One call as the gateway has it now, or null when it is no longer kept. */
export async function fetchCall(id: string): Promise<CallRecord | null> {
  try {
    return await api<CallRecord>('GET', `/calls/${encodeURIComponent(id)}`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

import { api, ApiError } from '../lib/api';
import type { CallPage, CallRecord } from '../lib/types';

// The gateway's call history (`GET /calls`), read the two ways the call log needs it. Pages come newest first; the
// calls are handed over oldest first, so the log numbers them in the order they happened.

const PAGE = 500;

/** The newest `limit` calls, oldest first. */
export async function fetchRecent(limit: number): Promise<CallRecord[]> {
  const page = await api<CallPage>('GET', `/calls?limit=${limit}`);
  return [...page.calls].reverse();
}

/** Every call started since `since` (all of them when empty), page by page, up to about `max` calls. */
export async function fetchSince(since: string, max: number, onPage: (calls: CallRecord[]) => void): Promise<void> {
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

import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, ApiError } from '../../../renderer/src/lib/api.js';

afterEach(() => {
  vi.unstubAllGlobals();
});

/** A fetch that waits until its signal aborts (or fails at once without one: a gateway not answering). */
function stubFetch(): void {
  vi.stubGlobal(
    'fetch',
    (_path: string, init: RequestInit) =>
      new Promise((_resolve, reject) => {
        if (!init.signal) reject(new TypeError('Failed to fetch'));
        init.signal?.addEventListener('abort', () => reject(init.signal!.reason));
      }),
  );
}

describe('api', () => {
  it('rejects a request called off with its AbortError, not as an unreachable gateway', async () => {
    stubFetch();
    const abort = new AbortController();
    const answer = api('GET', '/tools/search?q=x', undefined, { signal: abort.signal });
    abort.abort();
    await expect(answer).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('says the gateway is not answering when fetch fails on its own', async () => {
    stubFetch();
    const error = await api('GET', '/tools').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).error.name).toBe('GATEWAY_UNREACHABLE');
  });

  it('hands the signal to fetch', async () => {
    const seen: (AbortSignal | null | undefined)[] = [];
    vi.stubGlobal('fetch', async (_path: string, init: RequestInit) => {
      seen.push(init.signal);
      return new Response('{"results":[]}', { status: 200 });
    });
    const abort = new AbortController();
    expect(await api('GET', '/tools/search?q=x', undefined, { signal: abort.signal })).toEqual({ results: [] });
    expect(seen).toEqual([abort.signal]);
  });
});

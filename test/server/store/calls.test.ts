import { describe, expect, it } from 'vitest';
import type { CallRecord, CallStatus } from '../../../server/store/index.js';
import { call, newStore, T0, useTempStore } from './temp-store.js';

useTempStore();

describe('calls: saving and reading', () => {
  it('round-trips a call: JSON arguments and result, null error, cache_hit, ISO dates', () => {
    const store = newStore();
    const saved = call({
      arguments: { list: [1, 'two', { three: null }], nested: { deep: true } },
      result: { rows: [{ a: 1 }], text: 'ünïcødé 中文' },
      cache_hit: true,
      started_at: '2026-03-04T05:06:07.089Z',
      finished_at: '2026-03-04T05:06:07.123Z',
      duration_ms: 34.25,
    });
    store.calls.save(saved);
    const loaded = store.calls.get(saved.id);
    expect(loaded).toEqual(saved);
    expect(loaded?.error).toBeNull();
    expect(loaded?.cache_hit).toBe(true);
  });

  it('round-trips a failed call with its error and a null result', () => {
    const store = newStore();
    const failed = call({
      status: 'failed',
      result: null,
      error: { name: 'TOOL_TIMEOUT', message: 'did not finish' },
      http_status: 200,
      cache_hit: false,
    });
    store.calls.save(failed);
    expect(store.calls.get(failed.id)).toEqual(failed);
  });

  it('round-trips a running call with no finish time or duration', () => {
    const store = newStore();
    const running = call({ status: 'running', result: null, finished_at: null, duration_ms: null, http_status: null });
    store.calls.save(running);
    expect(store.calls.get(running.id)).toEqual(running);
  });

  it('answers undefined for an unknown id', () => {
    expect(newStore().calls.get('c_nope')).toBeUndefined();
  });

  it('updates the outcome of an existing id instead of adding a row', () => {
    const store = newStore();
    const pending = call({ status: 'pending', result: null, finished_at: null, duration_ms: null, http_status: null });
    store.calls.save(pending);
    store.calls.save(call());
    const done: CallRecord = {
      ...pending,
      status: 'succeeded',
      result: { ok: 1 },
      http_status: 200,
      decision: 'allow',
      rule: 'grant:7',
      finished_at: new Date(T0 + 99_000).toISOString(),
      duration_ms: 12,
    };
    store.calls.save(done);
    expect(store.calls.count()).toBe(2);
    expect(store.calls.get(pending.id)).toEqual(done);
    // It keeps its place in the history: the later call is still listed first.
    expect(store.calls.list({ limit: 10 }).calls.map((c) => c.id)).toEqual([expect.not.stringMatching(pending.id), pending.id]);
  });
});

describe('calls: listing', () => {
  it('lists newest first', () => {
    const store = newStore();
    const ids = [1, 2, 3, 4].map(() => {
      const c = call();
      store.calls.save(c);
      return c.id;
    });
    expect(store.calls.list({ limit: 10 }).calls.map((c) => c.id)).toEqual(ids.reverse());
  });

  it('filters by tool, status, client and since, alone and together', () => {
    const store = newStore();
    const a = call({ tool: 'alpha', client: 'ann', status: 'succeeded', started_at: new Date(T0).toISOString() });
    const b = call({ tool: 'alpha', client: 'bob', status: 'failed', started_at: new Date(T0 + 1000).toISOString() });
    const c = call({ tool: 'beta', client: 'ann', status: 'failed', started_at: new Date(T0 + 2000).toISOString() });
    const d = call({ tool: 'beta', client: 'bob', status: 'denied', started_at: new Date(T0 + 3000).toISOString() });
    for (const x of [a, b, c, d]) store.calls.save(x);
    const ids = (filter: Parameters<typeof store.calls.list>[0]) => store.calls.list(filter).calls.map((x) => x.id);
    expect(ids({ limit: 10, tool: 'alpha' })).toEqual([b.id, a.id]);
    expect(ids({ limit: 10, status: 'failed' })).toEqual([c.id, b.id]);
    expect(ids({ limit: 10, client: 'ann' })).toEqual([c.id, a.id]);
    expect(ids({ limit: 10, since: T0 + 2000 })).toEqual([d.id, c.id]); // inclusive
    expect(ids({ limit: 10, tool: 'beta', client: 'bob' })).toEqual([d.id]);
    expect(ids({ limit: 10, tool: 'alpha', status: 'denied' })).toEqual([]);
    expect(ids({ limit: 10, tool: 'gamma' })).toEqual([]);
  });

  it('visits every one of 125 calls exactly once in pages of 50', () => {
    const store = newStore();
    const all: string[] = [];
    for (let i = 0; i < 125; i++) {
      const c = call();
      store.calls.save(c);
      all.push(c.id);
    }
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const result = store.calls.list({ limit: 50, ...(cursor && { cursor }) });
      seen.push(...result.calls.map((c) => c.id));
      sizes.push(result.calls.length);
      if (result.next_cursor === null) break;
      cursor = result.next_cursor;
    }
    expect(sizes).toEqual([50, 50, 25]);
    expect(seen).toEqual([...all].reverse());
    expect(new Set(seen).size).toBe(125);
  });

  it('gives no next cursor when a page ends exactly at the last call', () => {
    const store = newStore();
    for (let i = 0; i < 4; i++) store.calls.save(call());
    const first = store.calls.list({ limit: 2 });
    expect(first.next_cursor).not.toBeNull();
    const second = store.calls.list({ limit: 2, cursor: first.next_cursor! });
    expect(second.calls).toHaveLength(2);
    expect(second.next_cursor).toBeNull();
  });

  it('pages within a filter', () => {
    const store = newStore();
    const alphas: string[] = [];
    for (let i = 0; i < 7; i++) {
      const c = call({ tool: i % 2 === 0 ? 'alpha' : 'beta' });
      store.calls.save(c);
      if (c.tool === 'alpha') alphas.push(c.id);
    }
    const first = store.calls.list({ limit: 3, tool: 'alpha' });
    const second = store.calls.list({ limit: 3, tool: 'alpha', cursor: first.next_cursor! });
    expect([...first.calls, ...second.calls].map((c) => c.id)).toEqual(alphas.reverse());
    expect(second.next_cursor).toBeNull();
  });

  it.each([
    ['not base64 at all', '!!!'],
    ['a word', Buffer.from('abc').toString('base64url')],
    ['zero', Buffer.from('0').toString('base64url')],
    ['a negative number', Buffer.from('-5').toString('base64url')],
    ['a fraction', Buffer.from('2.5').toString('base64url')],
  ])('refuses an invalid cursor (%s) with a RangeError', (_what, cursor) => {
    const store = newStore();
    store.calls.save(call());
    expect(() => store.calls.list({ limit: 10, cursor })).toThrow(RangeError);
  });
});

describe('calls: after a crash', () => {
  it('marks running and pending calls cancelled and leaves finished ones alone', () => {
    const store = newStore();
    const running = call({ status: 'running', finished_at: null, duration_ms: null, result: null });
    const pending = call({ status: 'pending', finished_at: null, duration_ms: null, result: null });
    const done = call({ status: 'succeeded' });
    const failed = call({ status: 'failed', error: { name: 'X', message: 'x' } });
    for (const c of [running, pending, done, failed]) store.calls.save(c);
    const now = T0 + 3_600_000;
    expect(store.calls.cancelOpen(now)).toBe(2);
    for (const c of [running, pending]) {
      const after = store.calls.get(c.id)!;
      expect(after.status).toBe('cancelled');
      expect(after.error?.name).toBe('CALL_CANCELLED');
      expect(after.finished_at).toBe(new Date(now).toISOString());
    }
    expect(store.calls.get(done.id)).toEqual(done);
    expect(store.calls.get(failed.id)).toEqual(failed);
    expect(store.calls.cancelOpen(now)).toBe(0);
  });
});

describe('calls: statistics', () => {
  it('computes p50, p95, max and avg latency exactly for durations 1..100', () => {
    const store = newStore();
    // Inserted out of order, so the percentiles must come from sorting by duration.
    const durations = Array.from({ length: 100 }, (_, i) => ((i * 37) % 100) + 1);
    expect(new Set(durations).size).toBe(100);
    for (const d of durations) store.calls.save(call({ tool: 'timed', duration_ms: d }));
    store.calls.save(call({ tool: 'other', duration_ms: 10_000 }));
    const stats = store.calls.toolStats('timed');
    expect(stats.calls).toBe(100);
    expect(stats.latency_ms).toEqual({ avg: 50.5, p50: 50, p95: 95, p99: 99, max: 100 });
  });

  it('uses nearest-rank percentiles on small sets', () => {
    const store = newStore();
    for (const d of [10, 20]) store.calls.save(call({ tool: 'two', duration_ms: d }));
    store.calls.save(call({ tool: 'one', duration_ms: 7 }));
    expect(store.calls.toolStats('two').latency_ms).toEqual({ avg: 15, p50: 10, p95: 20, p99: 20, max: 20 });
    expect(store.calls.toolStats('one').latency_ms).toEqual({ avg: 7, p50: 7, p95: 7, p99: 7, max: 7 });
  });

  it('leaves calls without a duration (still running) out of the latency', () => {
    const store = newStore();
    store.calls.save(call({ tool: 't', duration_ms: 4 }));
    store.calls.save(call({ tool: 't', status: 'running', duration_ms: null, finished_at: null }));
    expect(store.calls.toolStats('t').latency_ms).toEqual({ avg: 4, p50: 4, p95: 4, p99: 4, max: 4 });
  });

  it('counts outcomes; the success rate is over finished calls (succeeded + failed) only', () => {
    const store = newStore();
    const err = (name: string) => ({ status: 'failed' as CallStatus, error: { name, message: name } });
    for (let i = 0; i < 6; i++) store.calls.save(call({ tool: 't', cache_hit: i < 2 }));
    store.calls.save(call({ tool: 't', ...err('FILE_NOT_FOUND') }));
    store.calls.save(call({ tool: 't', ...err('FILE_NOT_FOUND') }));
    for (let i = 0; i < 3; i++) {
      store.calls.save(call({ tool: 't', status: 'denied', error: { name: 'POLICY_DENIED', message: 'no' } }));
    }
    store.calls.save(call({ tool: 't', status: 'running', duration_ms: null, finished_at: null }));
    const stats = store.calls.toolStats('t');
    expect(stats).toMatchObject({ tool: 't', calls: 12, succeeded: 6, failed: 2, denied: 3, cache_hits: 2, success_rate: 0.75 });
  });

  it('keeps refusals (never ran) out of the success rate and the latency', () => {
    const store = newStore();
    store.calls.save(call({ tool: 't', duration_ms: 40 }));
    store.calls.save(call({ tool: 't', status: 'failed', http_status: 200, duration_ms: 60, error: { name: 'TOOL_TIMEOUT', message: 'slow' } }));
    for (let i = 0; i < 5; i++) {
      store.calls.save(call({ tool: 't', status: 'failed', http_status: 400, duration_ms: 0.1, error: { name: 'INVALID_ARGUMENTS', message: 'bad' } }));
    }
    const stats = store.calls.toolStats('t');
    expect(stats).toMatchObject({ calls: 7, succeeded: 1, failed: 1, refused: 5, success_rate: 0.5 });
    expect(stats.latency_ms).toEqual({ avg: 50, p50: 40, p95: 60, p99: 60, max: 60 });
  });

  it('orders top errors by count, then name, and keeps five', () => {
    const store = newStore();
    const counts: [string, number][] = [
      ['B_ERROR', 1],
      ['A_ERROR', 3],
      ['C_ERROR', 3],
      ['D_ERROR', 2],
      ['E_ERROR', 1],
      ['F_ERROR', 1],
    ];
    for (const [name, n] of counts) {
      for (let i = 0; i < n; i++) store.calls.save(call({ tool: 't', status: 'failed', error: { name, message: name } }));
    }
    store.calls.save(call({ tool: 'elsewhere', status: 'failed', error: { name: 'Z_ERROR', message: 'z' } }));
    expect(store.calls.toolStats('t').top_errors).toEqual([
      { name: 'A_ERROR', count: 3 },
      { name: 'C_ERROR', count: 3 },
      { name: 'D_ERROR', count: 2 },
      { name: 'B_ERROR', count: 1 },
      { name: 'E_ERROR', count: 1 },
    ]);
  });

  it('reports the last call', () => {
    const store = newStore();
    store.calls.save(call({ tool: 't' }));
    const last = call({ tool: 't', status: 'failed', error: { name: 'X', message: 'x' } });
    store.calls.save(last);
    store.calls.save(call({ tool: 'other' }));
    expect(store.calls.toolStats('t').last_call).toEqual({ id: last.id, status: 'failed', at: last.started_at });
  });

  it('answers empty statistics for a tool with no calls', () => {
    expect(newStore().calls.toolStats('never')).toEqual({
      tool: 'never',
      calls: 0,
      succeeded: 0,
      failed: 0,
      refused: 0,
      denied: 0,
      success_rate: null,
      cache_hits: 0,
      latency_ms: { avg: null, p50: null, p95: null, p99: null, max: null },
      top_errors: [],
      last_call: null,
    });
  });

  it('lists the tools that have history, sorted', () => {
    const store = newStore();
    for (const tool of ['zeta', 'alpha', 'zeta', 'mid']) store.calls.save(call({ tool }));
    expect(store.calls.toolNames()).toEqual(['alpha', 'mid', 'zeta']);
  });

  it('groups calls into time buckets, oldest first, counting failed and denied', () => {
    const store = newStore();
    const at = (ms: number) => new Date(T0 + ms).toISOString();
    store.calls.save(call({ started_at: at(-5_000) })); // before `since`: left out
    store.calls.save(call({ started_at: at(0) }));
    store.calls.save(call({ started_at: at(10_000), status: 'failed', error: { name: 'X', message: 'x' } }));
    store.calls.save(call({ started_at: at(59_999) }));
    store.calls.save(call({ started_at: at(60_000), status: 'denied', error: { name: 'POLICY_DENIED', message: 'no' } }));
    store.calls.save(call({ started_at: at(185_000) }));
    expect(store.calls.overTime(T0, 60_000)).toEqual([
      { at: at(0), calls: 3, failed: 1 },
      { at: at(60_000), calls: 1, failed: 1 },
      { at: at(180_000), calls: 1, failed: 0 },
    ]);
  });
});

describe('calls: pages bounded by size as well as count', () => {
  it('a page of big calls stops at about PAGE_BYTES of arguments and results, and the cursor reaches every call', () => {
    const store = newStore();
    const big = 'x'.repeat(900_000);
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) {
      const saved = call({ arguments: { text: big }, result: { echoed: i } });
      store.calls.save(saved);
      ids.push(saved.id);
    }
    const first = store.calls.list({ limit: 500 });
    // 900 KB each: the tenth reaches 8 MiB and ends the page.
    expect(first.calls).toHaveLength(10);
    expect(first.next_cursor).not.toBeNull();
    const seen = first.calls.map((c) => c.id);
    let cursor = first.next_cursor;
    while (cursor) {
      const page = store.calls.list({ limit: 500, cursor });
      expect(page.calls.length).toBeLessThanOrEqual(10);
      seen.push(...page.calls.map((c) => c.id));
      cursor = page.next_cursor;
    }
    expect(seen).toEqual([...ids].reverse());
    // A page of small calls is still bounded by its limit alone.
    store.calls.save(call());
    expect(store.calls.list({ limit: 1 }).calls).toHaveLength(1);

    // The export reads the same way: every call once, in order, in pages of at most about PAGE_BYTES.
    const pages = [...store.calls.exportPages({})];
    expect(pages.flat().map((c) => c.id).slice(0, 24)).toEqual(ids);
    for (const page of pages) expect(page.length).toBeLessThanOrEqual(10);
  });
});

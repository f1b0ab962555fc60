import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallRecord } from '../../../renderer/src/lib/types';
import { fetchCall, fetchRecent, fetchSince } from '../../../renderer/src/state/call-history';
import { openDashboard, type Dashboard } from './dashboard.svelte';

let page: Dashboard;
/** 1,200 past calls a second apart, oldest first. */
const past: string[] = [];
const startOf = (i: number) => new Date(Date.parse('2026-11-30T00:00:00.000Z') + i * 1000).toISOString();

beforeAll(async () => {
  page = await openDashboard();
  const calls = Array.from({ length: 1200 }, (_, i) => ({ id: `c_hist_${String(i).padStart(5, '0')}`, started_at: startOf(i) }));
  page.gateway.saveCalls(calls);
  past.push(...calls.map((c) => c.id));
});
afterAll(async () => {
  await page?.close();
});

describe('call history', () => {
  it('fetchRecent hands over the newest calls oldest first, so the log numbers them in the order they happened', async () => {
    const recent = await fetchRecent(5);
    expect(recent.map((c) => c.id)).toEqual(past.slice(-5));
    expect(recent[0]).toMatchObject({ tool: 'calculate', status: 'succeeded', result: 2 });
  });

  it('fetchSince reads every call started at `since` or later, page by page, each page oldest first', async () => {
    const pages: CallRecord[][] = [];
    await fetchSince(startOf(100), 5_000, (calls) => pages.push(calls));
    expect(pages.map((p) => p.length)).toEqual([500, 500, 100]);
    expect(pages.flatMap((p) => p.map((c) => c.id)).sort()).toEqual(past.slice(100).sort());
    for (const page of pages) expect(page.map((c) => c.started_at)).toEqual(page.map((c) => c.started_at).sort());
  });

  it('fetchSince with no `since` reads from the newest, and stops after about `max` calls', async () => {
    const pages: CallRecord[][] = [];
    await fetchSince('', 600, (calls) => pages.push(calls));
    expect(pages.map((p) => p.length)).toEqual([500, 500]);
    expect(pages[0]!.at(-1)!.id).toBe(past.at(-1));
  });

  it('fetchCall answers the whole record, null for a call the gateway no longer keeps, and throws other refusals', async () => {
    expect((await fetchCall(past[7]!))?.arguments).toEqual({ expression: '1+1' });
    expect(await fetchCall('c_never_made')).toBeNull();
    await page.gateway.stop();
    try {
      await expect(fetchCall(past[7]!)).rejects.toMatchObject({ status: 0, error: { name: 'GATEWAY_UNREACHABLE' } });
    } finally {
      await page.gateway.start();
    }
  });
});

/**
 * GET /stats?range=…: calls over time in continuous, aligned buckets, through real HTTP against a real gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallRecord } from '../../../server/store/index.js';
import { finishedCall } from '../../helpers/calls.js';
import { readJson as read, startGateway, type TestGateway } from '../../helpers/gateway.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

interface Bucket {
  at: string;
  calls: number;
  failed: number;
}
interface OverTime {
  since: string;
  bucket_s: number;
  range: string;
  buckets: Bucket[];
}

let s: TestGateway;
let seq = 0;

/** A finished call recorded `agoMs` before now, as if an assistant had made it then. */
function pastCall(agoMs: number, overrides: Partial<CallRecord> = {}): CallRecord {
  seq += 1;
  return finishedCall(`c_past_${seq}`, new Date(Date.now() - agoMs).toISOString(), { duration_ms: 1, ...overrides });
}


async function overTime(query = ''): Promise<OverTime> {
  const res = await s.api(`/stats${query}`);
  expect(res.status).toBe(200);
  return (await read(res)).over_time;
}

/** The bucket a moment falls in, by the same alignment the gateway uses. */
function bucketOf(body: OverTime, agoMs: number): Bucket | undefined {
  const ms = body.bucket_s * 1000;
  const at = new Date(Math.floor((Date.now() - agoMs) / ms) * ms).toISOString();
  return body.buckets.find((b) => b.at === at);
}

const total = (body: OverTime, pick: (b: Bucket) => number) => body.buckets.reduce((n, b) => n + pick(b), 0);

beforeAll(async () => {
  s = await startGateway();
  // Three calls now (one fails), through the real execute route.
  for (const expression of ['1 + 1', '1 / 0', '2 * 3']) {
    const res = await s.api('/tools/calculate/execute', { method: 'POST', json: { expression } });
    expect(res.status).toBe(200);
  }
  // History from before this run, written as the executor writes it.
  s.gateway.store.calls.save(pastCall(3 * HOUR + 5 * MINUTE));
  s.gateway.store.calls.save(pastCall(3 * HOUR + 6 * MINUTE, { status: 'denied', http_status: 403, error: { name: 'POLICY_DENIED', message: 'no' } }));
  s.gateway.store.calls.save(pastCall(3 * DAY));
  s.gateway.store.calls.save(pastCall(8 * DAY));
});

afterAll(async () => {
  await s?.close();
});

describe('GET /stats?range=', () => {
  it('answers the last 24 hours in hourly buckets when no range is given, as before ranges existed', async () => {
    const body = await overTime();
    expect(body.range).toBe('24h');
    expect(body.bucket_s).toBe(3600);
    expect(body.buckets).toHaveLength(24);
    expect(total(body, (b) => b.calls)).toBe(5);
    expect(total(body, (b) => b.failed)).toBe(2);
    expect(bucketOf(body, 3 * HOUR + 5 * MINUTE)?.calls).toBeGreaterThanOrEqual(1);
    expect(await overTime('?range=24h')).toEqual(body);
  });

  it('cuts the last hour into minutes, the last week into six-hour buckets', async () => {
    const hour = await overTime('?range=1h');
    expect({ range: hour.range, bucket_s: hour.bucket_s, count: hour.buckets.length }).toEqual({ range: '1h', bucket_s: 60, count: 60 });
    expect(total(hour, (b) => b.calls)).toBe(3);
    expect(total(hour, (b) => b.failed)).toBe(1);

    const week = await overTime('?range=7d');
    expect({ range: week.range, bucket_s: week.bucket_s, count: week.buckets.length }).toEqual({ range: '7d', bucket_s: 21600, count: 28 });
    // The call three days ago counts; the one eight days ago is outside the week.
    expect(total(week, (b) => b.calls)).toBe(6);
    expect(bucketOf(week, 3 * DAY)?.calls).toBe(1);
  });

  it('fills every bucket, zeros included, so the time axis is continuous and ends at the current bucket', async () => {
    for (const range of ['1h', '24h', '7d']) {
      const body = await overTime(`?range=${range}`);
      const step = body.bucket_s * 1000;
      const starts = body.buckets.map((b) => Date.parse(b.at));
      expect(starts[0]).toBe(Date.parse(body.since));
      expect(starts[0]! % step).toBe(0);
      starts.forEach((at, i) => i > 0 && expect(at - starts[i - 1]!).toBe(step));
      const last = starts.at(-1)!;
      const now = Date.now();
      expect(last).toBeLessThanOrEqual(now);
      expect(now - last).toBeLessThan(step + 5_000);
      expect(body.buckets.some((b) => b.calls === 0 && b.failed === 0)).toBe(true);
      // An error rate per bucket is failed / calls, never above one.
      for (const b of body.buckets) expect(b.failed).toBeLessThanOrEqual(b.calls);
    }
  });

  it('bounds the totals and the per-tool figures by the range too, so they add up to the chart', async () => {
    const body = await read(await s.api('/stats?range=1h'));
    expect(Object.keys(body).sort()).toEqual(['cache', 'over_time', 'range', 'since', 'tools', 'totals']);
    expect(body).toMatchObject({ range: '1h', since: body.over_time.since });
    expect(body.totals).toEqual({ calls: 3, succeeded: 2, failed: 1, refused: 0, denied: 0, cache_hits: 0 });
    expect(body.tools.find((t: { tool: string }) => t.tool === 'calculate')).toMatchObject({ calls: 3, failed: 1, denied: 0 });
    for (const [range, calls, denied] of [['24h', 5, 1], ['7d', 6, 1]] as const) {
      const wider = await read(await s.api(`/stats?range=${range}`));
      expect(wider.totals).toMatchObject({ calls, denied });
      expect(wider.totals.calls).toBe(total(wider.over_time, (b) => b.calls));
      expect(wider.tools.find((t: { tool: string }) => t.tool === 'calculate')).toMatchObject({ calls, denied });
    }
    // Without a range, one tool's figures cover all of its history, as before.
    expect(await read(await s.api('/stats/tools/calculate'))).toMatchObject({ calls: 7, denied: 1 });
    expect(await read(await s.api('/stats/tools/calculate?range=1h'))).toMatchObject({ calls: 3, denied: 0 });
  });

  it('puts p99 beside p95 in the latency figures', async () => {
    const body = await read(await s.api('/stats?range=7d'));
    const latency = body.tools.find((t: { tool: string }) => t.tool === 'calculate').latency_ms;
    expect(Object.keys(latency).sort()).toEqual(['avg', 'max', 'p50', 'p95', 'p99']);
    expect(latency.p99).toBeGreaterThanOrEqual(latency.p95);
    expect(latency.max).toBeGreaterThanOrEqual(latency.p99);
  });

  it('groups by client with by=client, within the range', async () => {
    const res = await s.asOwner('/tools/calculate/execute', { json: { expression: '40 + 2' } });
    expect(res.status).toBe(200);
    s.gateway.store.calls.save(pastCall(30 * MINUTE, { client: 'cursor' }));
    s.gateway.store.calls.save(pastCall(2 * DAY, { client: 'cursor' }));
    const body = await read(await s.api('/stats?range=1h&by=client'));
    expect(body.tools).toBeUndefined();
    const byName = Object.fromEntries(body.clients.map((c: { client: string }) => [c.client, c]));
    expect(Object.keys(byName).sort()).toEqual(['cursor', 'default', 'owner']);
    expect(byName.default).toMatchObject({ calls: 3, failed: 1 });
    expect(byName.cursor).toMatchObject({ calls: 1, succeeded: 1 });
    expect(byName.cursor.latency_ms.p99).toBe(1);
    expect(body.totals.calls).toBe(5);
    expect((await read(await s.api('/stats?range=7d&by=client'))).clients.find((c: { client: string }) => c.client === 'cursor').calls).toBe(2);
    const bad = await s.api('/stats?by=tools');
    expect(bad.status).toBe(400);
    expect((await read(bad)).error.message).toContain('tool, client');
  });

  it('refuses an unknown range with 400, naming the allowed ones', async () => {
    const res = await s.api('/stats?range=30d');
    expect(res.status).toBe(400);
    const body = await read(res);
    expect(body.success).toBe(false);
    expect(body.error.name).toBe('INVALID_ARGUMENTS');
    expect(body.error.message).toContain('1h, 24h, 7d');
    expect(body.error.message).toContain('"30d"');
    expect(body.error.details.allowed).toEqual({ range: ['1h', '24h', '7d'], by: ['tool', 'client'] });
  });

  it('refuses a range given twice, an empty range and an unknown parameter', async () => {
    for (const query of ['?range=1h&range=7d', '?range=', '?period=1h']) {
      const res = await s.api(`/stats${query}`);
      expect(res.status, query).toBe(400);
      expect((await read(res)).error.name).toBe('INVALID_ARGUMENTS');
    }
  });

  it('needs a token like every other read', async () => {
    const res = await fetch(`${s.url}/stats?range=1h`);
    expect(res.status).toBe(401);
  });
});

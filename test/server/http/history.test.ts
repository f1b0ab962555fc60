/**
 * The history kept, exported and pruned: GET /calls/export, `pincer calls export`, and the retention setting,
 * through real HTTP against a real gateway.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../server/cli.js';
import type { CallRecord } from '../../../server/store/index.js';
import { finishedCall } from '../../helpers/calls.js';
import { readJson as read, startGateway, type TestGateway } from '../../helpers/gateway.js';

const DAY = 24 * 60 * 60_000;

let s: TestGateway;
let seq = 0;

function pastCall(agoMs: number, overrides: Partial<CallRecord> = {}): CallRecord {
  seq += 1;
  return finishedCall(`c_hist_${String(seq).padStart(5, '0')}`, new Date(Date.now() - agoMs).toISOString(), overrides);
}

const lines = (text: string) => text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as CallRecord);

describe('GET /calls/export', () => {
  beforeAll(async () => {
    s = await startGateway();
    for (let i = 0; i < 1200; i++) s.gateway.store.calls.save(pastCall((1300 - i) * 60_000, i % 2 ? { client: 'cursor' } : {}));
    const res = await s.api('/tools/calculate/execute', { method: 'POST', json: { expression: '6 * 7', api_key: undefined } });
    expect(res.status).toBe(200);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('streams the whole history as JSONL, oldest first, past the size of one page', async () => {
    const res = await s.api('/calls/export?format=jsonl');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const calls = lines(await res.text());
    expect(calls).toHaveLength(1201);
    expect(calls[0]!.id).toBe('c_hist_00001');
    expect(calls.at(-1)).toMatchObject({ tool: 'calculate', result: { result: 42 } });
    const starts = calls.map((c) => Date.parse(c.started_at));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    // Each line is the record GET /calls/{id} answers.
    expect(calls[5]).toEqual(await read(await s.api(`/calls/${calls[5]!.id}`)));
  });

  it('takes since (ISO or epoch ms) and the GET /calls filters; format defaults to jsonl', async () => {
    const since = new Date(Date.now() - 200 * 60_000 - 30_000).toISOString();
    const recent = lines(await (await s.api(`/calls/export?since=${encodeURIComponent(since)}`)).text());
    expect(recent.length).toBeGreaterThan(90);
    expect(recent.length).toBeLessThan(110);
    expect(recent.every((c) => c.started_at >= since)).toBe(true);
    const epoch = lines(await (await s.api(`/calls/export?format=jsonl&since=${Date.parse(since)}&client=cursor`)).text());
    expect(epoch.length).toBeGreaterThan(40);
    expect(epoch.every((c) => c.client === 'cursor' && c.started_at >= since)).toBe(true);
  });

  it('is not taken for a call id, and refuses an unknown format or filter with 400', async () => {
    for (const query of ['?format=csv', '?since=yesterday', '?limit=5', '?format=jsonl&format=jsonl']) {
      const res = await s.api(`/calls/export${query}`);
      expect(res.status, query).toBe(400);
      expect((await read(res)).error.name).toBe('INVALID_ARGUMENTS');
    }
  });

  it('pincer calls export writes the same history, with the same filters', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { log: (l: string) => out.push(l), error: (l: string) => err.push(l) };
    expect(await main(['calls', 'export', '--data-dir', s.dataDir], io)).toBe(0);
    const all = lines(out.join('\n'));
    expect(all).toHaveLength(1201);
    expect(all).toEqual(lines(await (await s.api('/calls/export')).text()));

    const file = join(s.dataDir, 'export.jsonl');
    expect(await main(['calls', 'export', '--data-dir', s.dataDir, '--client', 'cursor', '--out', file], io)).toBe(0);
    const cursor = lines(readFileSync(file, 'utf8'));
    expect(cursor).toHaveLength(600);
    expect(err.at(-1)).toContain('600 calls written');
    expect(await main(['calls', 'export', '--data-dir', s.dataDir, '--since', 'soon'], io)).toBe(2);
  });
});

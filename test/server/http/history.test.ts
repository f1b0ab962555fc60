/**
 * The history kept, exported and pruned: GET /calls/export, `pincer calls export`, and the retention setting,
 * through real HTTP against a real gateway.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../server/cli.js';
import { ConfigError, loadConfig } from '../../../server/index.js';
import { openStore } from '../../../server/store/index.js';
import type { CallRecord } from '../../../server/store/index.js';
import { finishedCall } from '../../helpers/calls.js';
import { readJson as read, startGateway, tempDir, type TestGateway } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';

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

const FAST = { retention: { intervalMs: 30, batchSize: 7, batchPauseMs: 1 } };

describe('history retention', () => {
  it('prunes calls older than the retention in small batches, and the stats agree with what is left', async () => {
    const g = await startGateway({ history: { retentionDays: 30, maxRows: undefined } }, FAST);
    try {
      for (let i = 0; i < 40; i++) g.gateway.store.calls.save(pastCall(40 * DAY + i * 60_000));
      for (let i = 0; i < 5; i++) g.gateway.store.calls.save(pastCall(2 * DAY + i * 60_000));
      // Calls keep being answered and recorded while the old ones go.
      for (const expression of ['1+1', '2+2', '3+3']) {
        expect((await read(await g.api('/tools/calculate/execute', { method: 'POST', json: { expression } }))).success).toBe(true);
      }
      await until(() => g.gateway.store.calls.count() === 8);
      const stats = await read(await g.api('/stats/tools/calculate'));
      expect(stats.calls).toBe(8);
      expect((await read(await g.api('/stats?range=7d'))).totals.calls).toBe(8);
      expect(lines(await (await g.api('/calls/export')).text())).toHaveLength(8);
      const settings = await read(await g.asOwner('/settings'));
      expect(settings.history).toMatchObject({ retention_days: 30, max_rows: null, pruning_confirmed: true, prunable: 0, pruned: 40 });
    } finally {
      await g.close();
    }
  });

  it('keeps at most max_rows calls, the newest', async () => {
    const g = await startGateway({ history: { retentionDays: 0, maxRows: 100 } }, FAST);
    try {
      for (let i = 0; i < 130; i++) g.gateway.store.calls.save(pastCall((400 - i) * DAY));
      await until(() => g.gateway.store.calls.count() === 100);
      const kept = lines(await (await g.api('/calls/export')).text());
      expect(kept[0]!.started_at).toBe(new Date(Date.parse(kept[0]!.started_at)).toISOString());
      expect(Date.now() - Date.parse(kept[0]!.started_at)).toBeLessThan(371 * DAY);
    } finally {
      await g.close();
    }
  });

  it('a memory keeps its text when the call that wrote it is pruned', async () => {
    const g = await startGateway({ history: { retentionDays: 0, maxRows: 2 } }, FAST);
    try {
      const remembered = await read(await g.api('/tools/remember/execute', { method: 'POST', json: { content: 'the deploy key rotates on Mondays' } }));
      expect(remembered.success).toBe(true);
      const { id } = remembered.result.memory ?? remembered.result;
      for (const expression of ['1+1', '2+2', '3+3']) await g.api('/tools/calculate/execute', { method: 'POST', json: { expression } });
      await until(() => g.gateway.store.calls.get(remembered.call_id) === undefined);
      const memory = await read(await g.api(`/memory/${id}`));
      expect(memory).toMatchObject({ id, content: 'the deploy key rotates on Mondays' });
    } finally {
      await g.close();
    }
  });

  it('waits for the owner before the first pruning of a history that existed before the setting', async () => {
    // A data directory from before retention existed: a history, and no word from the owner about pruning it.
    const dataDir = tempDir();
    const old = openStore(join(dataDir, 'pincer.db'));
    for (let i = 0; i < 20; i++) old.calls.save(pastCall(200 * DAY + i * 60_000));
    old.close();
    const g = await startGateway({ dataDir, history: { retentionDays: 90, maxRows: undefined } }, FAST);
    try {
      await new Promise((r) => setTimeout(r, 150));
      expect(g.gateway.store.calls.count()).toBe(20);
      const before = await read(await g.asOwner('/settings'));
      expect(before.history).toMatchObject({ retention_days: 90, pruning_confirmed: false, prunable: 20, pruned: 0 });
      // A client cannot decide it.
      const refused = await g.api('/settings', { method: 'PATCH', json: { history_pruning_confirmed: true } });
      expect(refused.status).toBe(403);
      const bad = await g.asOwner('/settings', { method: 'PATCH', json: { history_pruning_confirmed: 'yes' } });
      expect(bad.status).toBe(400);
      const ok = await g.asOwner('/settings', { method: 'PATCH', json: { history_pruning_confirmed: true } });
      expect(ok.status).toBe(200);
      expect((await read(ok)).history.pruning_confirmed).toBe(true);
      await until(() => g.gateway.store.calls.count() === 0);
    } finally {
      await g.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('reads history from config.json, and stops on a bad value with one line naming the key', () => {
    const dataDir = tempDir();
    try {
      expect(loadConfig({ flags: { dataDir }, env: {} }).history).toEqual({ retentionDays: 90, maxRows: undefined });
      writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ history: { retention_days: 7, max_rows: 5000 } }));
      expect(loadConfig({ flags: { dataDir }, env: {} }).history).toEqual({ retentionDays: 7, maxRows: 5000 });
      for (const [bad, key] of [
        [{ retention_days: -1 }, 'history.retention_days'],
        [{ max_rows: 'all' }, 'history.max_rows'],
        [{ days: 3 }, 'history'],
      ] as const) {
        writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ history: bad }));
        expect(() => loadConfig({ flags: { dataDir }, env: {} })).toThrow(ConfigError);
        expect(() => loadConfig({ flags: { dataDir }, env: {} })).toThrow(new RegExp(`^Invalid configuration: ${key.replace('.', '\\.')} `));
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

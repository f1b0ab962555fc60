/**
 * The history's limits changed at run time (PATCH /settings "history", POST /settings/history/preview): in force at
 * once, and never a silent deletion — limits that would delete calls the old ones kept wait for the owner's word.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallRecord } from '../../../server/store/index.js';
import { finishedCall } from '../../helpers/calls.js';
import { readJson as read, startGateway, type TestGateway } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const DAY = 24 * 60 * 60_000;
const FAST = { retention: { intervalMs: 30, batchSize: 7, batchPauseMs: 1 } };

let seq = 0;
function pastCall(agoMs: number): CallRecord {
  seq += 1;
  return finishedCall(`c_limits_${String(seq).padStart(5, '0')}`, new Date(Date.now() - agoMs).toISOString());
}

let g: TestGateway | undefined;
afterEach(async () => {
  await g?.close();
  g = undefined;
});

const patch = (tg: TestGateway, json: unknown) => tg.asOwner('/settings', { method: 'PATCH', json });
const preview = (tg: TestGateway, json: unknown) => tg.asOwner('/settings/history/preview', { method: 'POST', json });
const count = (tg: TestGateway) => tg.gateway.store.calls.count();

/** A gateway whose pruning the owner allowed (it started on an empty history), then 12 calls of 40 days ago and 5 of 2. */
async function withHistory(): Promise<TestGateway> {
  const tg = await startGateway({ history: { retentionDays: 90, maxRows: undefined } }, FAST);
  expect(tg.gateway.retention.confirmed).toBe(true);
  for (let i = 0; i < 12; i++) tg.gateway.store.calls.save(pastCall(40 * DAY + i * 60_000));
  for (let i = 0; i < 5; i++) tg.gateway.store.calls.save(pastCall(2 * DAY + i * 60_000));
  return tg;
}

describe('POST /settings/history/preview', () => {
  it('counts what limits not yet saved would delete, and changes nothing', async () => {
    g = await withHistory();
    expect(await read(await preview(g, { retention_days: 30 }))).toEqual({ retention_days: 30, max_rows: null, prunable: 12, newly_prunable: 12, newly_prunable_conversations: 0 });
    expect(await read(await preview(g, { retention_days: 1 }))).toEqual({ retention_days: 1, max_rows: null, prunable: 17, newly_prunable: 17, newly_prunable_conversations: 0 });
    expect(await read(await preview(g, { max_rows: 100 }))).toEqual({ retention_days: 90, max_rows: 100, prunable: 0, newly_prunable: 0, newly_prunable_conversations: 0 });
    expect(await read(await preview(g, { retention_days: 0, max_rows: null }))).toEqual({ retention_days: 0, max_rows: null, prunable: 0, newly_prunable: 0, newly_prunable_conversations: 0 });
    expect(await read(await preview(g, {}))).toMatchObject({ retention_days: 90, prunable: 0 });
    expect(count(g)).toBe(17);
    expect(g.gateway.config.history).toEqual({ retentionDays: 90, maxRows: undefined });
    expect(existsSync(join(g.dataDir, 'config.json'))).toBe(false);
  });

  it.each([
    [{ retention_days: -3 }, 'history.retention_days must be a whole number from 0 to 36500, got -3'],
    [{ max_rows: 10 }, 'history.max_rows must be a whole number from 100 to 1000000000, got 10'],
    [{ days: 3 }, 'Unknown key "days"'],
    [[30], 'Send a JSON object'],
  ])('refuses %j with 400 naming the problem', async (body, message) => {
    g = await withHistory();
    const res = await preview(g, body);
    expect(res.status).toBe(400);
    expect((await read(res)).error.message).toContain(message);
  });

  it('is the owner’s only', async () => {
    g = await withHistory();
    expect((await g.api('/settings/history/preview', { method: 'POST', json: { retention_days: 1 } })).status).toBe(403);
  });
});

describe('changing the limits', () => {
  it('lowering the retention holds pruning back until the owner allows it, then deletes at once', async () => {
    g = await withHistory();
    const res = await patch(g, { history: { retention_days: 30 } });
    expect(res.status).toBe(200);
    expect((await read(res)).history).toMatchObject({ retention_days: 30, max_rows: null, pruning_confirmed: false, prunable: 12 });
    expect(JSON.parse(readFileSync(join(g.dataDir, 'config.json'), 'utf8'))).toEqual({ history: { retention_days: 30 } });
    // The job runs, and deletes nothing.
    expect(g.gateway.retention.pruneOnce()).toBe(0);
    expect(count(g)).toBe(17);

    expect((await patch(g, { history_pruning_confirmed: true })).status).toBe(200);
    await until(() => count(g!) === 5, 'the 12 old calls to go');
    expect((await read(await g.asOwner('/settings'))).history).toMatchObject({ retention_days: 30, pruning_confirmed: true, prunable: 0, pruned: 12 });
  });

  it('limits sent with the owner’s word delete at once', async () => {
    g = await withHistory();
    const res = await patch(g, { history: { retention_days: 30 }, history_pruning_confirmed: true });
    expect((await read(res)).history).toMatchObject({ retention_days: 30, pruning_confirmed: true });
    await until(() => count(g!) === 5, 'the 12 old calls to go');
  });

  it('a row limit that would delete calls is held back the same way', async () => {
    g = await withHistory();
    for (let i = 0; i < 100; i++) g.gateway.store.calls.save(pastCall(DAY - i * 60_000));
    expect((await read(await preview(g, { max_rows: 100 }))).newly_prunable).toBe(17);
    const body = await read(await patch(g, { history: { max_rows: 100 } }));
    expect(body.history).toMatchObject({ max_rows: 100, pruning_confirmed: false, prunable: 17 });
    expect(g.gateway.retention.pruneOnce()).toBe(0);
    expect(count(g)).toBe(117);
  });

  it('raising the limits keeps pruning allowed; limits that delete nothing new do not hold it back', async () => {
    g = await withHistory();
    for (const history of [{ retention_days: 365 }, { retention_days: 0 }, { max_rows: 1000 }, { retention_days: 60 }]) {
      const body = await read(await patch(g, { history }));
      expect(body.history, JSON.stringify(history)).toMatchObject({ ...history, pruning_confirmed: true, prunable: 0 });
    }
    expect(count(g)).toBe(17);
  });

  it('a history that still waits for its first pruning keeps waiting, whatever the new limits', async () => {
    g = await withHistory();
    expect((await patch(g, { history_pruning_confirmed: false })).status).toBe(200);
    const body = await read(await patch(g, { history: { retention_days: 1 } }));
    expect(body.history).toMatchObject({ retention_days: 1, pruning_confirmed: false, prunable: 17 });
    expect(g.gateway.retention.pruneOnce()).toBe(0);
    expect(count(g)).toBe(17);
  });

  it('conversations follow the new retention once pruning is allowed, and not before', async () => {
    g = await withHistory();
    const conversations = g.gateway.store.conversations;
    conversations.create({ id: 'conv_old', client: 'default', title: 'old', model: 'm' }, Date.now() - 40 * DAY);
    conversations.create({ id: 'conv_new', client: 'default', title: 'new', model: 'm' }, Date.now() - 2 * DAY);
    await patch(g, { history: { retention_days: 30 } });
    expect(conversations.get('conv_old')).toBeDefined();
    await patch(g, { history_pruning_confirmed: true });
    expect(conversations.get('conv_old')).toBeUndefined();
    expect(conversations.get('conv_new')).toBeDefined();
  });

  it('holds back a lowered retention that would delete only conversations (a chat with no tool calls leaves none)', async () => {
    g = await startGateway({ history: { retentionDays: 90, maxRows: undefined } }, FAST);
    expect(g.gateway.retention.confirmed).toBe(true);
    const conversations = g.gateway.store.conversations;
    conversations.create({ id: 'conv_chat_only', client: 'default', title: 'old chat', model: 'm' }, Date.now() - 40 * DAY);
    expect(await read(await preview(g, { retention_days: 30 }))).toMatchObject({ prunable: 0, newly_prunable: 0, newly_prunable_conversations: 1 });
    const body = await read(await patch(g, { history: { retention_days: 30 } }));
    expect(body.history).toMatchObject({ retention_days: 30, pruning_confirmed: false });
    expect(conversations.get('conv_chat_only')).toBeDefined();
    // Raising it again puts nothing at risk: allowed stays as the owner leaves it.
    await patch(g, { history_pruning_confirmed: true });
    expect(conversations.get('conv_chat_only')).toBeUndefined();
    const raised = await read(await patch(g, { history: { retention_days: 60 } }));
    expect(raised.history.pruning_confirmed).toBe(true);
  });

  it('answers the new limits in the "changed" announcement', async () => {
    g = await withHistory();
    const seen: Json[] = [];
    g.gateway.events.on('tools', (event: Json) => seen.push(event));
    await patch(g, { history: { retention_days: 120 } });
    expect(seen).toContainEqual({ reason: 'settings', names: [] });
  });
});

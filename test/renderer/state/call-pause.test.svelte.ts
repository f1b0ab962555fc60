import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallLog } from '../../../renderer/src/state/calls.svelte';
import { GatewayFeed } from '../../../renderer/src/state/feed.svelte';
import { mount, openDashboard, until, type Dashboard } from './dashboard.svelte';

let page: Dashboard;

beforeAll(async () => {
  page = await openDashboard();
});
afterAll(async () => {
  await page?.close();
});

/** Makes `n` calls as an assistant and waits until the log has published them all. */
async function calls(log: CallLog, n: number): Promise<void> {
  const before = log.calls.length;
  for (let i = 0; i < n; i++) expect((await page.execute('calculate', { expression: `${i}+1` })).status).toBe(200);
  await until(() => log.calls.length === before + n && log.calls.every((c) => c.status !== 'running'), `${n} calls`);
}

describe('CallPause', () => {
  it('shows the list as it was when paused, counts what came meanwhile, and shows the live list again on resume', async () => {
    const { state: log, unmount } = mount(
      () => new CallLog(new GatewayFeed()),
      (log) => void [log.feed.status, log.pause.shown, log.pause.newSince],
    );
    await until(() => log.feed.status === 'live' && !log.loading, 'the stream');
    await calls(log, 2);
    expect(log.pause.paused).toBe(false);
    expect(log.pause.shown).toBe(log.calls);
    expect(log.pause.newSince).toBe(0);

    log.pause.toggle();
    const frozen = log.pause.shown;
    expect(log.pause.paused).toBe(true);
    expect(frozen.map((c) => c.id)).toEqual(log.calls.map((c) => c.id));
    await calls(log, 3);
    expect(log.pause.shown).toBe(frozen);
    expect(log.pause.shown).toHaveLength(2);
    expect(log.pause.newSince).toBe(3);

    log.pause.toggle();
    expect(log.pause.paused).toBe(false);
    expect(log.pause.shown).toBe(log.calls);
    expect(log.pause.shown).toHaveLength(5);
    expect(log.pause.newSince).toBe(0);
    unmount();
  });

  it('does not count a call that was already listed when paused and only finished meanwhile', async () => {
    const rule = await page.gateway.asOwner('/rules', { json: { effect: 'ask', tool: 'get_time', scope: 'tool' } });
    expect(rule.status).toBe(201);
    const { state: log, unmount } = mount(
      () => new CallLog(new GatewayFeed()),
      (log) => void [log.feed.status, log.pause.shown],
    );
    await until(() => log.feed.status === 'live' && log.calls.length > 0, 'the stream');
    expect((await page.execute('get_time', {}, { prefer: 'respond-async' })).status).toBe(202);
    const waiting = await until(() => log.calls.find((c) => c.status === 'pending'), 'the waiting call');
    log.pause.toggle();
    const approvals = (await (await page.gateway.asOwner('/approvals')).json()) as { approvals: { id: string; call_id: string }[] };
    const approval = approvals.approvals.find((a) => a.call_id === waiting.id)!;
    expect((await page.gateway.asOwner(`/approvals/${approval.id}`, { json: { decision: 'deny' } })).status).toBe(200);
    await until(() => log.calls.find((c) => c.id === waiting.id)?.status === 'denied', 'the denial');
    expect(log.pause.newSince).toBe(0);
    expect(log.pause.shown.find((c) => c.id === waiting.id)?.status).toBe('pending');
    log.pause.toggle();
    unmount();
  });
});

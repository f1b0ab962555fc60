import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallDetail } from '../../../renderer/src/state/call-detail.svelte';
import { mount, openDashboard, until, type Dashboard } from './dashboard.svelte';

let page: Dashboard;

beforeAll(async () => {
  page = await openDashboard();
});
afterAll(async () => {
  await page?.close();
});

describe('CallDetail', () => {
  it("fetches an opened row's whole record, and again when its status changes", async () => {
    const ask = await page.gateway.asOwner('/rules', { json: { effect: 'ask', tool: 'calculate', scope: 'tool' } });
    expect(ask.status).toBe(201);
    const started = await page.execute('calculate', { expression: '6*7' }, { prefer: 'respond-async' });
    expect(started.status).toBe(202);
    const { call_id: id, approval_id: approvalId } = (await started.json()) as { call_id: string; approval_id: string };

    const { state: detail, unmount } = mount(() => new CallDetail());
    await detail.follow({ id, status: 'pending' });
    expect(detail.error).toBeNull();
    expect(detail.record).toMatchObject({ id, status: 'pending', arguments: { expression: '6*7' }, result: null });

    // The same row, status unchanged: nothing is fetched again (the record object stays the same).
    const first = detail.record;
    await detail.follow({ id, status: 'pending' });
    expect(detail.record).toBe(first);

    expect((await page.gateway.asOwner(`/approvals/${approvalId}`, { json: { decision: 'allow_once' } })).status).toBe(200);
    await until(async () => ((await (await page.gateway.api(`/calls/${id}`)).json()) as { status: string }).status === 'succeeded', 'the call to run');
    await detail.follow({ id, status: 'succeeded' });
    expect(detail.record).toMatchObject({ id, status: 'succeeded', result: { result: 42 } });
    unmount();
  });

  it('drops an answer overtaken by a newer row, and says when a call is no longer in the history', async () => {
    const made = await page.execute('get_time', {});
    expect(made.status).toBe(200);
    const { state: detail, unmount } = mount(() => new CallDetail());
    const calls = (await (await page.gateway.api('/calls?limit=1')).json()) as { calls: { id: string }[] };
    const known = calls.calls[0]!.id;
    // The first row's record comes back late, after the second row was opened and answered.
    const restore = page.slowDown(`/calls/${known}`, 300);
    const slow = detail.follow({ id: known, status: 'succeeded' });
    const newer = detail.follow({ id: 'c_gone', status: 'succeeded' });
    await newer;
    expect(detail.error).toBe('This call is no longer in the history.');
    await slow;
    restore();
    expect(detail.record).toBeNull();
    expect(detail.error).toBe('This call is no longer in the history.');
    unmount();
  });

  it('says why the record could not be loaded', async () => {
    const { state: detail, unmount } = mount(() => new CallDetail());
    await page.gateway.stop();
    try {
      await detail.follow({ id: 'c_any', status: 'running' });
    } finally {
      await page.gateway.start();
    }
    expect(detail.error).toMatch(/^Could not load this call: The gateway is not answering/);
    unmount();
  });
});

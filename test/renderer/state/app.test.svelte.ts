import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppState } from '../../../renderer/src/state/app.svelte';
import { Session } from '../../../renderer/src/state/session.svelte';
import { mount, openDashboard, settle, until, type Dashboard } from './dashboard.svelte';

let page: Dashboard;

/** The shell as it runs while the owner is logged in: it reads the stream's status, the call count and the queue. */
function shell() {
  return mount(
    () => new AppState(new Session()),
    (app) => void [app.feed.status, app.calls.calls, app.approvals.count],
  );
}

beforeAll(async () => {
  page = await openDashboard();
  // The page's address: the router reads it as the app starts.
  const window = new EventTarget();
  vi.stubGlobal('window', window);
  vi.stubGlobal('location', { hash: '#/approvals' });
  vi.stubGlobal('history', { state: null, replaceState: () => {} });
  expect((await page.gateway.asOwner('/rules', { json: { effect: 'ask', tool: 'get_time', scope: 'tool' } })).status).toBe(201);
});
afterAll(async () => {
  await page?.close();
});

describe('AppState', () => {
  it("starts on the address's view, with the gateway's settings read and one event stream for every part", async () => {
    const { state: app, unmount } = shell();
    expect(app.router.current).toBe('approvals');
    expect(app.calls.feed).toBe(app.feed);
    expect(app.approvals.feed).toBe(app.feed);
    await until(() => app.settings.loaded && app.feed.status === 'live', 'the settings and the stream');
    expect(app.settings.roots).toEqual([page.gateway.workspace]);
    expect(page.gateway.viewers()).toBe(1);
    // The Stats board is made on first use and kept.
    expect(app.stats).toBe(app.stats);
    app.dispose();
    unmount();
  });

  it('collects calls and approvals whatever view is shown, and follows a pause made elsewhere', async () => {
    const { state: app, unmount } = shell();
    await until(() => app.feed.status === 'live' && !app.calls.loading && app.approvals.loaded, 'the app');
    expect((await page.execute('calculate', { expression: '6*7' })).status).toBe(200);
    expect((await page.execute('get_time', {}, { prefer: 'respond-async' })).status).toBe(202);
    await until(() => app.calls.calls.some((c) => c.tool === 'calculate') && app.approvals.count === 1, 'the call and the approval');
    expect((await page.gateway.asOwner('/settings', { method: 'PATCH', json: { paused: true } })).status).toBe(200);
    await until(() => app.settings.paused, 'the pause');
    expect((await page.gateway.asOwner('/settings', { method: 'PATCH', json: { paused: false } })).status).toBe(200);
    await until(() => !app.settings.paused, 'the resume');
    app.dispose();
    unmount();
  });

  it('stops following everything once disposed (the owner logged out)', async () => {
    const { state: app, unmount } = shell();
    await until(() => app.feed.status === 'live' && !app.calls.loading && app.settings.loaded, 'the app');
    const calls = app.calls.calls.length;
    const approvals = app.approvals.count;
    app.dispose();
    expect((await page.execute('calculate', { expression: '1+1' })).status).toBe(200);
    expect((await page.execute('get_time', {}, { prefer: 'respond-async' })).status).toBe(202);
    expect((await page.gateway.asOwner('/settings', { method: 'PATCH', json: { paused: true } })).status).toBe(200);
    await settle(500);
    expect(app.calls.calls).toHaveLength(calls);
    expect(app.approvals.count).toBe(approvals);
    expect(app.settings.paused).toBe(false);
    await page.gateway.asOwner('/settings', { method: 'PATCH', json: { paused: false } });
    unmount();
    await until(() => page.gateway.viewers() === 0, 'the stream to close');
  });
});

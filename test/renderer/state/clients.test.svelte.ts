import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientProfile } from '../../../renderer/src/lib/types';
import { ClientDirectory, type IssuedToken } from '../../../renderer/src/state/clients.svelte';
import { GatewayFeed } from '../../../renderer/src/state/feed.svelte';
import { mount, openDashboard, settle, until, type Dashboard } from './dashboard.svelte';

let page: Dashboard;

async function gatewayClient(name: string): Promise<ClientProfile | undefined> {
  const { clients } = (await (await page.gateway.asOwner('/clients')).json()) as { clients: ClientProfile[] };
  return clients.find((c) => c.name === name);
}

beforeAll(async () => {
  page = await openDashboard();
});
afterAll(async () => {
  await page?.close();
});

describe('ClientDirectory', () => {
  it('lists the default client with its settings', async () => {
    const { state: directory, unmount } = mount(() => new ClientDirectory());
    await directory.load();
    expect(directory.loaded).toBe(true);
    expect(directory.error).toBeNull();
    expect(directory.clients.find((c) => c.name === 'default')).toMatchObject({ tools: null, max_tools: null, pinned: [], token: null });
    unmount();
  });

  it('issues a token once: the plain token in the answer, the new client in the list from the event that follows', async () => {
    const { state, unmount } = mount(
      () => {
        const feed = new GatewayFeed();
        const directory = new ClientDirectory();
        return { feed, directory, off: directory.listen(feed) };
      },
      ({ feed }) => void feed.status,
    );
    await until(() => state.feed.status === 'live', 'the stream');
    await state.directory.load();
    const issued = (await state.directory.create('cursor')) as IssuedToken;
    expect(issued.name).toBe('cursor');
    expect(issued.token.length).toBeGreaterThan(20);
    await until(() => state.directory.clients.some((c) => c.name === 'cursor'), 'the new client in the list');
    const listed = state.directory.clients.find((c) => c.name === 'cursor')!;
    expect(JSON.stringify(listed)).not.toContain(issued.token);
    // The token works as a client's token.
    const asCursor = await fetch(`${page.gateway.url}/tools`, { headers: { authorization: `Bearer ${issued.token}` } });
    expect(asCursor.status).toBe(200);

    expect(await state.directory.create('cursor')).toEqual({ message: expect.stringMatching(/cursor/) });
    state.off();
    unmount();
  });

  it('saves a tool set, a budget and the memory and history scopes, in the list at once and on the gateway', async () => {
    const { state: directory, unmount } = mount(() => new ClientDirectory());
    await directory.create('claude');
    await directory.load();
    const listed = () => directory.clients.find((c) => c.name === 'claude')!;

    expect(await directory.saveTools('claude', ['calculate', 'get_time'])).toEqual({ ok: true });
    expect(listed().tools).toEqual(['calculate', 'get_time']);
    expect(await directory.saveBudget('claude', 5, ['calculate'])).toEqual({ ok: true });
    expect(listed()).toMatchObject({ max_tools: 5, pinned: ['calculate'], tools: ['calculate', 'get_time'] });
    expect(await directory.saveMemoryScope('claude', 'all')).toEqual({ ok: true });
    expect(listed().memories).toBe('all');
    expect(await directory.saveHistoryScope('claude', 'all')).toEqual({ ok: true });
    expect(listed().history).toBe('all');
    expect(await gatewayClient('claude')).toMatchObject({ tools: ['calculate', 'get_time'], max_tools: 5, pinned: ['calculate'], memories: 'all', history: 'all' });

    // Every tool again: the budget stays.
    expect(await directory.saveTools('claude', null)).toEqual({ ok: true });
    expect(listed()).toMatchObject({ tools: null, max_tools: 5 });
    unmount();
  });

  it("answers the gateway's message when it refuses a change, and leaves the list as it was", async () => {
    const { state: directory, unmount } = mount(() => new ClientDirectory());
    await directory.load();
    const before = directory.clients;
    const refused = await directory.saveTools('default', ['no_such_tool']);
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.message).toMatch(/^Invalid tool set: .*no_such_tool/);
    const badBudget = await directory.saveBudget('default', -3, []);
    expect(!badBudget.ok && badBudget.message).toMatch(/max_tools must be a whole number from 1 to 1000/);
    const defaultScope = await directory.saveHistoryScope('default', 'own');
    expect(!defaultScope.ok && defaultScope.message).toMatch(/default client always reads every call/);
    expect(directory.clients).toBe(before);
    unmount();
  });

  it('revokes a token: the client leaves the list and its token stops working', async () => {
    const { state: directory, unmount } = mount(() => new ClientDirectory());
    const issued = (await directory.create('temp')) as IssuedToken;
    await directory.load();
    expect(directory.clients.some((c) => c.name === 'temp')).toBe(true);
    expect(await directory.revoke('temp')).toEqual({ ok: true });
    expect(directory.clients.some((c) => c.name === 'temp')).toBe(false);
    const asTemp = await fetch(`${page.gateway.url}/tools`, { headers: { authorization: `Bearer ${issued.token}` } });
    expect(asTemp.status).toBe(401);
    const again = await directory.revoke('temp');
    expect(again.ok).toBe(false);
    unmount();
  });

  it("shows the default client's token only when asked", async () => {
    const { state: directory, unmount } = mount(() => new ClientDirectory());
    expect(await directory.defaultToken()).toBe(page.gateway.token);
    unmount();
  });

  it('reloads when a tool set changes elsewhere, and not for other tool changes', async () => {
    let loads = 0;
    const { state, unmount } = mount(
      () => {
        const feed = new GatewayFeed();
        const directory = new ClientDirectory();
        const load = directory.load.bind(directory);
        directory.load = () => (loads++, load());
        return { feed, directory, off: directory.listen(feed) };
      },
      ({ feed }) => void feed.status,
    );
    await until(() => state.feed.status === 'live', 'the stream');
    await page.gateway.asOwner('/tools/get_time', { method: 'PATCH', json: { enabled: false } });
    await settle(400);
    expect(loads).toBe(0);
    expect((await page.gateway.asOwner('/clients/default/tools', { method: 'PUT', json: { tools: ['get_time'] } })).status).toBe(200);
    await until(() => state.directory.clients.find((c) => c.name === 'default')?.tools?.[0] === 'get_time', 'the reload');
    expect(loads).toBe(1);
    state.off();
    unmount();
  });

  it('says why the list could not be read', async () => {
    const { state: directory, unmount } = mount(() => new ClientDirectory());
    await page.gateway.stop();
    try {
      await directory.load();
    } finally {
      await page.gateway.start();
    }
    expect(directory.loaded).toBe(true);
    expect(directory.error).toMatch(/^The gateway is not answering/);
    unmount();
  });
});

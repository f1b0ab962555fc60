import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolInfo } from '../../../renderer/src/lib/types';
import { GatewayFeed } from '../../../renderer/src/state/feed.svelte';
import { ToolCatalog } from '../../../renderer/src/state/tools.svelte';
import { mount, openDashboard, settle, until, type Dashboard } from './dashboard.svelte';

let page: Dashboard;

/** The tool as the gateway has it now, asked from elsewhere. */
async function gatewayTool(name: string): Promise<ToolInfo> {
  return (await (await page.gateway.asOwner(`/tools/${name}`)).json()) as ToolInfo;
}

beforeAll(async () => {
  page = await openDashboard();
});
afterAll(async () => {
  await page?.close();
});

describe('ToolCatalog', () => {
  it('lists every tool, grouped by category A to Z, and counts the enabled ones', async () => {
    const { state: catalog, unmount } = mount(() => new ToolCatalog());
    expect(catalog.loaded).toBe(false);
    await catalog.load();
    expect(catalog.loaded).toBe(true);
    expect(catalog.error).toBeNull();
    const names = catalog.tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['calculate', 'file_read', 'run_shell']));
    const categories = catalog.groups.map((g) => g.category);
    expect(categories).toEqual([...categories].sort((a, b) => a.localeCompare(b)));
    expect(new Set(categories).size).toBe(categories.length);
    expect(catalog.groups.flatMap((g) => g.tools).length).toBe(catalog.tools.length);
    for (const group of catalog.groups) expect(group.tools.every((t) => t.category === group.category)).toBe(true);
    expect(catalog.enabledCount).toBe(catalog.tools.filter((t) => t.enabled).length);
    unmount();
  });

  it('moves a switch at once, marks it saving until the gateway answers, and the gateway keeps it', async () => {
    const { state: catalog, unmount } = mount(() => new ToolCatalog());
    await catalog.load();
    const enabled = catalog.enabledCount;
    const saving = catalog.setEnabled('get_time', false);
    expect(catalog.tools.find((t) => t.name === 'get_time')?.enabled).toBe(false);
    expect(catalog.saving.has('get_time')).toBe(true);
    expect(catalog.enabledCount).toBe(enabled - 1);
    await saving;
    expect(catalog.saving.size).toBe(0);
    expect(catalog.error).toBeNull();
    expect((await gatewayTool('get_time')).enabled).toBe(false);
    await catalog.setEnabled('get_time', true);
    expect((await gatewayTool('get_time')).enabled).toBe(true);
    unmount();
  });

  it('moves the switch back and says why when the gateway refuses', async () => {
    const { state: catalog, unmount } = mount(() => new ToolCatalog());
    await catalog.load();
    await page.gateway.stop();
    try {
      await catalog.setEnabled('calculate', false);
    } finally {
      await page.gateway.start();
    }
    expect(catalog.tools.find((t) => t.name === 'calculate')?.enabled).toBe(true);
    expect(catalog.error).toMatch(/^Could not switch calculate off: The gateway is not answering/);
    // A load that works clears the message.
    await catalog.load();
    expect(catalog.error).toBeNull();
    unmount();
  });

  it('reloads when a tool is switched elsewhere, not when a client tool set changes or the tools are paused', async () => {
    let loads = 0;
    const { state, unmount } = mount(
      () => {
        const feed = new GatewayFeed();
        const catalog = new ToolCatalog();
        const load = catalog.load.bind(catalog);
        catalog.load = () => (loads++, load());
        return { feed, catalog, off: catalog.listen(feed) };
      },
      ({ feed }) => void feed.status,
    );
    await until(() => state.feed.status === 'live', 'the stream');
    await state.catalog.load();
    loads = 0;

    const elsewhere = await page.gateway.asOwner('/tools/json_parse', { method: 'PATCH', json: { enabled: false } });
    expect(elsewhere.status).toBe(200);
    await until(() => state.catalog.tools.find((t) => t.name === 'json_parse')?.enabled === false, 'the reload');
    expect(loads).toBe(1);

    expect((await page.gateway.asOwner('/clients/default/tools', { method: 'PUT', json: { tools: ['calculate'] } })).status).toBe(200);
    expect((await page.gateway.asOwner('/settings', { method: 'PATCH', json: { paused: true } })).status).toBe(200);
    expect((await page.gateway.asOwner('/settings', { method: 'PATCH', json: { paused: false } })).status).toBe(200);
    await settle(500);
    expect(loads).toBe(1);
    state.off();
    unmount();
  });
});

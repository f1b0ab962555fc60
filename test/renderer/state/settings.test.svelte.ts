import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Settings } from '../../../renderer/src/lib/types';
import { GatewayFeed } from '../../../renderer/src/state/feed.svelte';
import { GatewaySettings } from '../../../renderer/src/state/settings.svelte';
import { mount, openDashboard, until, type Dashboard } from './dashboard.svelte';

let page: Dashboard;
let seq = 0;

async function gatewaySettings(): Promise<Settings> {
  return (await (await page.gateway.asOwner('/settings')).json()) as Settings;
}

beforeAll(async () => {
  page = await openDashboard();
});
afterAll(async () => {
  await page?.close();
});

describe('GatewaySettings', () => {
  it("reads the gateway's settings: its roots for showing paths, and whether the tools are paused", async () => {
    const { state: settings, unmount } = mount(() => new GatewaySettings());
    expect(settings.roots).toEqual([]);
    expect(settings.paused).toBe(false);
    await settings.load();
    expect(settings.loaded).toBe(true);
    expect(settings.error).toBeNull();
    expect(settings.roots).toEqual([page.gateway.workspace]);
    expect(settings.settings?.data_dir).toBe(page.gateway.dataDir);
    expect(settings.paused).toBe(false);
    expect(settings.lockedBy('approval_timeout_s')).toBeUndefined();
    unmount();
  });

  it("saves a section's keys and keeps the gateway's answer; a refused value answers the gateway's message", async () => {
    const { state: settings, unmount } = mount(() => new GatewaySettings());
    await settings.load();
    expect(await settings.save({ approval_timeout_s: 45 })).toEqual({ ok: true });
    expect(settings.settings?.approval_timeout_s).toBe(45);
    expect((await gatewaySettings()).approval_timeout_s).toBe(45);
    const refused = await settings.save({ approval_timeout_s: 1 });
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.message).toMatch(/approval_timeout_s/);
    expect(settings.settings?.approval_timeout_s).toBe(45);
    unmount();
  });

  it('previews what history limits would delete without changing anything', async () => {
    const old = new Date(Date.now() - 40 * 86_400_000).toISOString();
    page.gateway.saveCalls([1, 2, 3].map(() => ({ id: `c_old_${++seq}`, started_at: old })));
    const { state: settings, unmount } = mount(() => new GatewaySettings());
    const preview = await settings.previewHistory({ retention_days: 30, max_rows: null });
    expect(preview).toMatchObject({ retention_days: 30, max_rows: null, prunable: 3 });
    const bad = await settings.previewHistory({ retention_days: -1, max_rows: null });
    expect(bad).toEqual({ error: expect.stringMatching(/retention_days/) });
    expect((await (await page.gateway.api('/calls?limit=10')).json()).calls).toHaveLength(3);
    unmount();
  });

  it('moves the pause switch at once, and the gateway pauses every call', async () => {
    const { state: settings, unmount } = mount(() => new GatewaySettings());
    await settings.load();
    const saving = settings.setPaused(true);
    expect(settings.paused).toBe(true);
    expect(await saving).toEqual({ ok: true });
    expect((await gatewaySettings()).paused).toBe(true);
    expect((await page.execute('calculate', { expression: '1+1' })).status).not.toBe(200);
    expect(await settings.setPaused(false)).toEqual({ ok: true });
    expect(settings.paused).toBe(false);
    expect((await page.execute('calculate', { expression: '1+1' })).status).toBe(200);
    unmount();
  });

  it('moves the switch back and says why when the pause cannot be saved', async () => {
    const { state: settings, unmount } = mount(() => new GatewaySettings());
    await settings.load();
    await page.gateway.stop();
    try {
      const answer = await settings.setPaused(true);
      expect(answer.ok).toBe(false);
      expect(!answer.ok && answer.message).toMatch(/^Could not pause the tools: The gateway is not answering/);
      expect(settings.paused).toBe(false);
    } finally {
      await page.gateway.start();
    }
    unmount();
  });

  it('keeps the later of two quick flips, whatever the earlier one answers', async () => {
    const { state: settings, unmount } = mount(() => new GatewaySettings());
    await settings.load();
    const first = settings.setPaused(true);
    const second = settings.setPaused(false);
    expect(settings.paused).toBe(false);
    // The first answer (paused) comes while the second flip is still on its way: the switch stays where it was put.
    expect(await first).toEqual({ ok: true });
    expect(settings.paused).toBe(false);
    expect(await second).toEqual({ ok: true });
    expect(settings.paused).toBe(false);
    expect((await gatewaySettings()).paused).toBe(false);
    unmount();
  });

  it('picks up a pause or a settings change made from the tray, the CLI or another window', async () => {
    const { state, unmount } = mount(
      () => {
        const feed = new GatewayFeed();
        const settings = new GatewaySettings();
        return { feed, settings, off: settings.listen(feed) };
      },
      ({ feed }) => void feed.status,
    );
    await until(() => state.feed.status === 'live', 'the stream');
    await state.settings.load();
    expect((await page.gateway.asOwner('/settings', { method: 'PATCH', json: { paused: true } })).status).toBe(200);
    await until(() => state.settings.paused, 'the pause');
    expect((await page.gateway.asOwner('/settings', { method: 'PATCH', json: { paused: false, approval_timeout_s: 90 } })).status).toBe(200);
    await until(() => !state.settings.paused && state.settings.settings?.approval_timeout_s === 90, 'the resume and the new timeout');
    state.off();
    unmount();
  });

  it('says why the settings could not be read', async () => {
    const { state: settings, unmount } = mount(() => new GatewaySettings());
    await page.gateway.stop();
    try {
      await settings.load();
    } finally {
      await page.gateway.start();
    }
    expect(settings.loaded).toBe(true);
    expect(settings.error).toMatch(/^The gateway is not answering/);
    unmount();
  });
});

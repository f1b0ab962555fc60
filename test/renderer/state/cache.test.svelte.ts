import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CacheBoard } from '../../../renderer/src/state/cache.svelte';
import { GatewayFeed } from '../../../renderer/src/state/feed.svelte';
import { mount, openDashboard, until, type Dashboard } from './dashboard.svelte';

let page: Dashboard;

beforeAll(async () => {
  page = await openDashboard();
});
afterAll(async () => {
  await page?.close();
});

describe('CacheBoard', () => {
  it("reads the gateway's cache: the whole and every tool that declares a cache", async () => {
    const { state: cache, unmount } = mount(() => new CacheBoard());
    expect(cache.report).toBeNull();
    await cache.load();
    expect(cache.error).toBeNull();
    expect(cache.report).toMatchObject({ size: 0, hits: 0, misses: 0 });
    expect(cache.report!.max_entries).toBeGreaterThan(0);
    expect(cache.report!.tools.map((t) => t.tool)).toContain('web_search');
    unmount();
  });

  it('clears the whole cache or one tool, says how many answers went, and reads the cache again', async () => {
    const { state: cache, unmount } = mount(() => new CacheBoard());
    await cache.clear();
    expect(cache.notice).toBe('Cleared 0 cached answers.');
    expect(cache.report).not.toBeNull();
    await cache.clear('web_search');
    expect(cache.notice).toBe('Cleared 0 cached answers of web_search.');
    expect(cache.error).toBeNull();
    unmount();
  });

  it('says why the cache could not be read or cleared', async () => {
    const { state: cache, unmount } = mount(() => new CacheBoard());
    await page.gateway.stop();
    try {
      await cache.load();
      expect(cache.error).toMatch(/^Could not read the cache: The gateway is not answering/);
      await cache.clear();
      expect(cache.error).toMatch(/^Could not clear the cache: The gateway is not answering/);
    } finally {
      await page.gateway.start();
    }
    await cache.load();
    expect(cache.error).toBeNull();
    unmount();
  });

  it('reads the counters again after calls finish, at most once per two seconds for a burst', async () => {
    let loads = 0;
    const { state: cache, unmount } = mount(
      () => {
        const feed = new GatewayFeed();
        const cache = new CacheBoard();
        const load = cache.load.bind(cache);
        cache.load = () => (loads++, load());
        return { feed, cache, off: cache.listen(feed) };
      },
      ({ feed }) => void feed.status,
    );
    await until(() => cache.feed.status === 'live', 'the stream');
    const answers = await Promise.all([0, 1, 2, 3, 4].map((i) => page.execute('calculate', { expression: `${i}*2` })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    await until(() => loads === 1 && cache.cache.report !== null, 'one reload for the burst');
    await new Promise((resolve) => setTimeout(resolve, 2_300));
    expect(loads).toBe(1);
    cache.off();
    unmount();
  });
});

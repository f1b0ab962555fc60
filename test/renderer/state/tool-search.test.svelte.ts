import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolSearch } from '../../../renderer/src/state/tool-search.svelte';
import { mount, openDashboard, settle, until, type Dashboard } from './dashboard.svelte';

let page: Dashboard;

beforeAll(async () => {
  page = await openDashboard();
});
afterAll(async () => {
  await page?.close();
});

describe('ToolSearch', () => {
  it("answers the words typed once typing pauses, with the gateway's tool search, best first", async () => {
    const { state: search, unmount } = mount(() => new ToolSearch());
    expect(search.active).toBe(false);
    search.type('read a file');
    expect(search.active).toBe(true);
    expect(search.busy).toBe(true);
    expect(search.answered).toBe('');
    await until(() => !search.busy, 'the answer');
    expect(search.answered).toBe('read a file');
    expect(search.error).toBeNull();
    expect(search.results[0]?.name).toBe('file_read');
    const scores = search.results.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    unmount();
  });

  it('answers only the last words when typing goes on, and empties at once when the box is cleared', async () => {
    const { state: search, unmount } = mount(() => new ToolSearch());
    search.type('delete');
    search.type('delete a file');
    search.type('what time is it');
    await until(() => !search.busy, 'the answer');
    expect(search.answered).toBe('what time is it');
    expect(search.results[0]?.name).toBe('get_time');
    search.clear();
    expect(search.query).toBe('');
    expect(search.results).toEqual([]);
    expect(search.answered).toBe('');
    expect(search.busy).toBe(false);
    unmount();
  });

  it('searches on Enter, and again on Enter when the words did not change', async () => {
    const { state: search, unmount } = mount(() => new ToolSearch());
    search.type('calculate');
    search.submit();
    await until(() => !search.busy, 'the answer');
    expect(search.results[0]?.name).toBe('calculate');
    const first = search.results;
    // Typing the same words (a trailing space) asks nothing; Enter asks again.
    search.type('calculate ');
    expect(search.busy).toBe(false);
    search.submit();
    expect(search.busy).toBe(true);
    await until(() => !search.busy, 'the second answer');
    expect(search.results).not.toBe(first);
    expect(search.results.map((r) => r.name)).toEqual(first.map((r) => r.name));
    unmount();
  });

  it('sends nothing after dispose (the view closed)', async () => {
    const { state: search, unmount } = mount(() => new ToolSearch());
    search.type('shell');
    search.dispose();
    await settle(400);
    expect(search.answered).toBe('');
    expect(search.results).toEqual([]);
    unmount();
  });

  it('says why the search failed, and shows no stale results', async () => {
    const { state: search, unmount } = mount(() => new ToolSearch());
    search.type('file');
    await until(() => !search.busy, 'the answer');
    expect(search.results.length).toBeGreaterThan(0);
    await page.gateway.stop();
    try {
      search.type('shell');
      await until(() => !search.busy, 'the failure');
    } finally {
      await page.gateway.start();
    }
    expect(search.answered).toBe('shell');
    expect(search.results).toEqual([]);
    expect(search.error).toMatch(/^Could not search the tools: The gateway is not answering/);
    unmount();
  });
});

import { resolveObjectURL } from 'node:buffer';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryBoard, MemoryTransfer } from '../../../renderer/src/state/memory.svelte';
import { mount, openDashboard, settle, until, type Dashboard } from './dashboard.svelte';

let page: Dashboard;

/** A memory written by an assistant (the default client) through the gateway. */
async function remember(content: string, tags: string[] = [], category: string | null = null): Promise<number> {
  const res = await page.gateway.api('/memory', { method: 'POST', json: { content, tags, category } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: number }).id;
}

beforeAll(async () => {
  page = await openDashboard();
  await remember('The staging database listens on port 5433.', ['db', 'staging'], 'infra');
  await remember('Deploys go out on Tuesdays after the standup.', ['process'], 'team');
  await remember('The production database is backed up nightly.', ['db'], 'infra');
});
afterAll(async () => {
  await page?.close();
});

describe('MemoryBoard', () => {
  it('shows the newest memories with no words, and the best matches for words', async () => {
    const { state: board, unmount } = mount(() => new MemoryBoard());
    await board.load();
    expect(board.loaded).toBe(true);
    expect(board.error).toBeNull();
    expect(board.answered).toBe('');
    expect(board.results.map((r) => r.content)).toEqual([
      'The production database is backed up nightly.',
      'Deploys go out on Tuesdays after the standup.',
      'The staging database listens on port 5433.',
    ]);
    board.q = '  staging database ';
    await board.load();
    expect(board.answered).toBe('staging database');
    expect(board.results[0]!.content).toMatch(/staging/);
    expect(board.results[0]!.score).not.toBeNull();
    unmount();
  });

  it('waits for typing to pause, and a later search is never overwritten by an earlier answer', async () => {
    const { state: board, unmount } = mount(() => new MemoryBoard());
    board.q = 'deploys';
    board.refresh();
    board.q = 'backed up';
    board.refresh();
    await settle(100);
    expect(board.loaded).toBe(false);
    await until(() => board.loaded, 'the search');
    expect(board.answered).toBe('backed up');
    // Two searches on their way, the older answered last: only the newer one's answer is shown.
    const restore = page.slowDown('/memory?q=standup', 300);
    board.q = 'standup';
    const older = board.load();
    board.q = 'nightly';
    const newer = board.load();
    await newer;
    expect(board.answered).toBe('nightly');
    await older;
    restore();
    expect(board.answered).toBe('nightly');
    expect(board.results[0]!.content).toMatch(/nightly/);
    unmount();
  });

  it('filters by tag, category and client, and says when a filter is on', async () => {
    const { state: board, unmount } = mount(() => new MemoryBoard());
    expect(board.filtered).toBe(false);
    board.filterByTag('db');
    board.filterByTag('db');
    expect(board.tagText).toBe('db');
    expect(board.filtered).toBe(true);
    await until(() => board.loaded, 'the filtered list');
    expect(board.results.every((r) => r.tags.includes('db'))).toBe(true);
    expect(board.results).toHaveLength(2);
    board.filterByTag('staging');
    expect(board.tags).toEqual(['db', 'staging']);
    await until(() => board.results.length === 1, 'both tags');
    board.clearFilters();
    board.filterByCategory('team');
    await until(() => board.results.length === 1 && board.results[0]!.category === 'team', 'the category');
    board.clearFilters();
    expect(board.filtered).toBe(false);
    board.filterByClient('someone-else');
    await until(() => board.results.length === 0, 'nothing by that client');
    board.filterByClient('default');
    await until(() => board.results.length === 3, 'the assistant’s memories');
    unmount();
  });

  it("adds, edits and deletes memories as the owner; a refused one answers the gateway's message", async () => {
    const { state: board, unmount } = mount(() => new MemoryBoard());
    await board.load();
    expect(await board.add({ content: 'The office wifi is called lobster-5.', tags: ['office'], category: null })).toBeNull();
    const added = board.results.find((r) => r.content.includes('lobster-5'))!;
    expect(added.client).toBe('owner');
    expect(await board.update(added.id, { content: 'The office wifi is called lobster-6.', tags: ['office'], category: 'place' })).toBeNull();
    expect(board.results.find((r) => r.id === added.id)).toMatchObject({ content: 'The office wifi is called lobster-6.', category: 'place' });
    expect(await board.add({ content: '', tags: [], category: null })).toMatch(/content/i);
    expect(await board.remove(added.id)).toBe(true);
    expect(board.results.some((r) => r.id === added.id)).toBe(false);
    expect(await board.remove(added.id)).toBe(false);
    expect(board.error).toMatch(/^Could not delete the memory: /);
    unmount();
  });

  it('says why the memory could not be searched', async () => {
    const { state: board, unmount } = mount(() => new MemoryBoard());
    await page.gateway.stop();
    try {
      await board.load();
    } finally {
      await page.gateway.start();
    }
    expect(board.loaded).toBe(true);
    expect(board.error).toMatch(/^Could not search the memory: The gateway is not answering/);
    unmount();
  });
});

describe('MemoryTransfer', () => {
  it('exports every memory as JSONL, counting them, and hands the file to the browser to save', async () => {
    const saved: { href: string; download: string }[] = [];
    vi.stubGlobal('document', {
      createElement: () => {
        const link = { href: '', download: '', click: () => saved.push({ href: link.href, download: link.download }) };
        return link;
      },
    });
    const { state: transfer, unmount } = mount(() => new MemoryTransfer());
    const running = transfer.exportAll();
    expect(transfer.busy).toBe(true);
    await running;
    expect(transfer.busy).toBe(false);
    expect(transfer.failed).toBe(false);
    expect(saved).toHaveLength(1);
    expect(saved[0]!.download).toMatch(/^pincer-memories-\d{4}-\d{2}-\d{2}\.jsonl$/);
    const lines = (await resolveObjectURL(saved[0]!.href)!.text()).trim().split('\n');
    expect(transfer.status).toBe(`Exported ${lines.length} memories to ${saved[0]!.download}.`);
    expect(lines.map((l) => (JSON.parse(l) as { content: string }).content)).toContain('Deploys go out on Tuesdays after the standup.');
    unmount();
  });

  it('imports a JSONL file and says what came of it, line by line', async () => {
    const { state: transfer, unmount } = mount(() => new MemoryTransfer());
    const file = new File([`${JSON.stringify({ content: 'Imported: the printer is on floor 3.', tags: ['office'] })}\n{not json}\n`], 'notes.jsonl', {
      type: 'application/x-ndjson',
    });
    expect(await transfer.importFile(file)).toBe(true);
    expect(transfer.failed).toBe(false);
    expect(transfer.status).toMatch(/^Imported 1 memory from notes\.jsonl; 1 line failed \(line 2: /);
    const listed = (await (await page.gateway.api('/memory?limit=50')).json()) as { results: { content: string }[] };
    expect(listed.results.map((r) => r.content)).toContain('Imported: the printer is on floor 3.');
    unmount();
  });

  it('says the export failed, and why', async () => {
    const { state: transfer, unmount } = mount(() => new MemoryTransfer());
    await page.gateway.stop();
    try {
      await transfer.exportAll();
    } finally {
      await page.gateway.start();
    }
    expect(transfer.failed).toBe(true);
    expect(transfer.busy).toBe(false);
    expect(transfer.status).toMatch(/^Exporting failed: /);
    unmount();
  });
});

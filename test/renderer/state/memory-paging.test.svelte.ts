import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countLines, lineBatches } from '../../../renderer/src/lib/memory';
import { MemoryBoard, MemoryTransfer } from '../../../renderer/src/state/memory.svelte';
import { mount, openDashboard, type Dashboard } from './dashboard.svelte';

let page: Dashboard;

/** A JSONL file of `count` memories, "note 0" the oldest. */
const notes = (count: number, first = 0) =>
  Array.from({ length: count }, (_, i) => JSON.stringify({ content: `note ${first + i}`, created_at: new Date(Date.UTC(2026, 0, 1) + (first + i) * 1000).toISOString() })).join('\n');

beforeAll(async () => {
  page = await openDashboard();
});
afterAll(async () => {
  await page?.close();
});

describe('a JSONL file read in runs of lines', () => {
  it('counts its lines, with or without a newline at the end', async () => {
    expect(await countLines(new Blob(['a\nb\nc']))).toBe(3);
    expect(await countLines(new Blob(['a\nb\nc\n']))).toBe(3);
    expect(await countLines(new Blob(['a\n\nc\n']))).toBe(3);
    expect(await countLines(new Blob([]))).toBe(0);
  });

  it('keeps every line, empty ones included, and numbers each run by its first line in the file', async () => {
    const runs = [];
    for await (const run of lineBatches(new Blob(['one\n', 'two\n\nfo', 'ur\nfive']), 2)) runs.push(run);
    expect(runs).toEqual([
      { first: 1, lines: 2, text: 'one\ntwo\n' },
      { first: 3, lines: 2, text: '\nfour\n' },
      { first: 5, lines: 1, text: 'five\n' },
    ]);
  });
});

describe('MemoryTransfer importing a long file', () => {
  it('counts the lines done of the total as it goes, and names each bad line by its number in the file', async () => {
    const done: number[] = [];
    const { state: transfer, unmount } = mount(
      () => new MemoryTransfer(),
      (t) => void (t.progress && done.push(t.progress.done)),
    );
    const lines = notes(2500).split('\n');
    lines[4] = '{"content": "cut off';
    lines[1499] = '{"content": ""}';
    lines[2400] = '[1, 2]';
    const file = new File([lines.join('\n')], 'long.jsonl', { type: 'application/x-ndjson' });
    expect(await transfer.importFile(file)).toBe(true);
    expect(transfer.progress).toEqual({ done: 2500, total: 2500 });
    // The page saw each run land: the count went up a run at a time, never back.
    expect(done).toEqual(expect.arrayContaining([0, 1000, 2000, 2500]));
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(transfer.status).toMatch(/^Imported 2,497 memories from long\.jsonl; 3 lines failed \(line 5: not JSON: /);
    expect(transfer.errors.map((e) => e.line)).toEqual([5, 1500, 2401]);
    expect(transfer.errors[1]!.message).toBe('content must be a non-empty string.');
    expect(transfer.errors[2]!.message).toBe('each line must be a JSON object with "content"');
    for (const error of transfer.errors) expect(error.message).not.toMatch(/request body/i);
    unmount();
  });
});

describe('MemoryBoard without words', () => {
  it('shows the first page with the total, and pages on to the last memory', async () => {
    const { state: board, unmount } = mount(() => new MemoryBoard());
    await board.load();
    expect(board.results).toHaveLength(board.pageSize);
    expect(board.total).toBe(2497);
    expect(board.results[0]!.content).toBe('note 2499');
    let pages = 1;
    while (board.nextCursor !== null) {
      await board.loadMore();
      pages++;
      expect(board.error).toBeNull();
    }
    expect(pages).toBe(Math.ceil(2497 / board.pageSize));
    expect(board.results).toHaveLength(2497);
    expect(new Set(board.results.map((r) => r.id)).size).toBe(2497);
    expect(board.results.at(-1)!.content).toBe('note 0');
    unmount();
  });

  it('counts only what the filters select, and a search has no total and no more pages', async () => {
    const { state: board, unmount } = mount(() => new MemoryBoard());
    board.client = 'someone-else';
    await board.load();
    expect([board.results.length, board.total, board.nextCursor]).toEqual([0, 0, null]);
    board.client = '';
    board.q = 'note';
    await board.load();
    expect(board.total).toBeNull();
    expect(board.nextCursor).toBeNull();
    await board.loadMore();
    expect(board.results.length).toBeLessThanOrEqual(board.pageSize);
    unmount();
  });

  it('drops a page that arrives after a new search began', async () => {
    const { state: board, unmount } = mount(() => new MemoryBoard());
    await board.load();
    const restore = page.slowDown('/memory?limit', 300);
    const more = board.loadMore();
    board.q = 'note 7';
    await board.load();
    await more;
    restore();
    expect(board.answered).toBe('note 7');
    expect(board.results.length).toBeLessThanOrEqual(board.pageSize);
    expect(board.results.every((r) => r.score !== null)).toBe(true);
    unmount();
  });
});

describe('MemoryBoard edits with several pages shown', () => {
  it('keeps the pages loaded so far, and counts one fewer after a delete', async () => {
    const { state: board, unmount } = mount(() => new MemoryBoard());
    await board.load();
    await board.loadMore();
    expect(board.results).toHaveLength(2 * board.pageSize);
    const last = board.results.at(-1)!;
    expect(await board.update(last.id, { content: `${last.content} (edited)`, tags: [], category: null })).toBeNull();
    expect(board.results).toHaveLength(2 * board.pageSize);
    expect(board.results.at(-1)!.content).toBe(`${last.content} (edited)`);
    const total = board.total!;
    expect(await board.remove(board.results[0]!.id)).toBe(true);
    expect(board.total).toBe(total - 1);
    unmount();
  });
});

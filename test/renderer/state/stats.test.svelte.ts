import { flushSync } from 'svelte';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayFeed } from '../../../renderer/src/state/feed.svelte';
import { StatsBoard } from '../../../renderer/src/state/stats.svelte';
import { mount, openDashboard, settle, until, type Dashboard } from './dashboard.svelte';

let page: Dashboard;
let seq = 0;

/** Finished calls in the history, `agoMs` ago. */
function calls(tool: string, count: number, agoMs: number, fields: Record<string, unknown> = {}): void {
  page.gateway.saveCalls(
    Array.from({ length: count }, () => ({ id: `c_stat_${++seq}`, tool, started_at: new Date(Date.now() - agoMs).toISOString(), ...fields })),
  );
}

/** The board as the Stats view reads it: its report and the sorted table. */
function shownBoard() {
  const feed = new GatewayFeed();
  const shown = mount(
    () => new StatsBoard(feed),
    (board) => void [feed.status, board.report, board.tools],
  );
  return { ...shown, feed };
}

beforeAll(async () => {
  page = await openDashboard();
});
afterAll(async () => {
  await page?.close();
});

describe('StatsBoard', () => {
  it('fetches nothing while nothing reads the report, and stops polling when its reader goes', async () => {
    let loads = 0;
    const counted = () => {
      const board = new StatsBoard(new GatewayFeed());
      const load = board.load.bind(board);
      board.load = () => (loads++, load());
      return board;
    };
    const idle = mount(counted);
    // Read outside a template (an event handler): the last figures, nothing fetched.
    expect(idle.state.report).toBeNull();
    await settle(300);
    expect(loads).toBe(0);
    idle.unmount();

    const shown = mount(counted, (board) => void board.report);
    await until(() => shown.state.report !== null, 'the report');
    expect(loads).toBeGreaterThanOrEqual(1);
    shown.unmount();
    const after = loads;
    await page.execute('calculate', { expression: '1+1' });
    await settle(300);
    expect(loads).toBe(after);
  });

  it('on a fresh install, where every call of the day is from the last hour, opens on the last hour', async () => {
    // The day's bars are clock hours: the calls go in this one however soon after the hour the test runs.
    const sinceTheHour = Date.now() % 3_600_000;
    calls('calculate', 3, Math.min(5 * 60_000, Math.floor(sinceTheHour / 2)));
    const { state: board, unmount } = shownBoard();
    try {
      await until(() => board.report?.range === '1h', 'the last hour');
      expect(board.range).toBe('1h');
      expect(board.report!.totals.calls).toBe(3 + 1); // and the call the first test made
    } finally {
      unmount();
    }
  });

  it('keeps the range the owner picks, and the day when older calls fill it', async () => {
    calls('get_time', 2, 5 * 3_600_000);
    const { state: board, unmount } = shownBoard();
    await until(() => board.report !== null, 'the report');
    await settle(100);
    expect(board.range).toBe('24h');
    expect(board.report!.range).toBe('24h');
    board.setRange('7d');
    await until(() => board.report?.range === '7d', 'the week');
    expect(board.report!.over_time.buckets.length).toBeGreaterThan(1);
    unmount();
  });

  it('sorts the table by a column, flips on a second click, and keeps tools never called last either way', async () => {
    calls('json_parse', 5, 60_000, { duration_ms: 40 });
    calls('text_process', 1, 60_000, { duration_ms: 900 });
    const { state: board, unmount } = shownBoard();
    await until(() => board.tools.length > 0, 'the table');
    const called = (names: string[]) => names.filter((n) => ['calculate', 'get_time', 'json_parse', 'text_process'].includes(n));
    const order = () => board.tools.map((t) => t.tool);
    const neverCalledLast = () => {
      const firstIdle = board.tools.findIndex((t) => t.calls === 0);
      expect(firstIdle).toBeGreaterThan(0);
      expect(board.tools.slice(firstIdle).every((t) => t.calls === 0)).toBe(true);
    };

    // By calls, most first: json_parse 5, calculate 4, get_time 2, text_process 1.
    expect(board.sortKey).toBe('calls');
    expect(called(order())).toEqual(['json_parse', 'calculate', 'get_time', 'text_process']);
    neverCalledLast();
    board.sortBy('calls');
    expect(board.sortDirection).toBe('ascending');
    flushSync();
    expect(called(order())).toEqual(['text_process', 'get_time', 'calculate', 'json_parse']);
    neverCalledLast();
    // A new column starts descending, except the tool name, which starts A to Z.
    board.sortBy('max');
    expect(board.sortDirection).toBe('descending');
    expect(order()[0]).toBe('text_process');
    board.sortBy('tool');
    expect(board.sortDirection).toBe('ascending');
    expect(called(order())).toEqual(['calculate', 'get_time', 'json_parse', 'text_process']);
    neverCalledLast();
    unmount();
  });

  it('shows the range picked last even when an earlier answer comes after it', async () => {
    const { state: board, unmount } = shownBoard();
    await until(() => board.report !== null, 'the report');
    const restore = page.slowDown('/stats?range=1h', 300);
    board.setRange('1h');
    board.setRange('7d');
    await until(() => board.report?.range === '7d' && !board.loading, 'the week');
    await new Promise((resolve) => setTimeout(resolve, 400));
    restore();
    expect(board.report?.range).toBe('7d');
    expect(board.range).toBe('7d');
    unmount();
  });

  it('fetches the figures again once calls finish', async () => {
    const { state: board, unmount, feed } = shownBoard();
    await until(() => feed.status === 'live' && board.report !== null, 'the report');
    const before = board.report!.totals.calls;
    expect((await page.execute('calculate', { expression: '6*7' })).status).toBe(200);
    await until(() => board.report!.totals.calls === before + 1, 'the new figures');
    unmount();
  });

  it('says why the figures could not be loaded', async () => {
    const { state: board, unmount } = mount(() => new StatsBoard(new GatewayFeed()));
    await page.gateway.stop();
    try {
      await board.load();
    } finally {
      await page.gateway.start();
    }
    expect(board.error).toMatch(/^Could not load the statistics: The gateway is not answering/);
    expect(board.loading).toBe(false);
    await board.load();
    expect(board.error, board.error ?? '').toBeNull();
    unmount();
  });
});

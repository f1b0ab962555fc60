import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveCall } from '../../../renderer/src/lib/types';
import { CallLog, isOpen, MAX_CALLS } from '../../../renderer/src/state/calls.svelte';
import { GatewayFeed } from '../../../renderer/src/state/feed.svelte';
import { mount, openDashboard, settle, until, type Dashboard } from './dashboard.svelte';

let page: Dashboard;
let seq = 0;

/** Finished calls in the gateway's history, `count` of them `apartMs` apart, the last `endingAgoMs` ago. */
function history(count: number, endingAgoMs: number, fields: (i: number) => Record<string, unknown> = () => ({}), apartMs = 60_000): string[] {
  const calls = Array.from({ length: count }, (_, i) => ({
    id: `c_past_${String(++seq).padStart(6, '0')}`,
    started_at: new Date(Date.now() - endingAgoMs - (count - 1 - i) * apartMs).toISOString(),
    ...fields(i),
  }));
  page.gateway.saveCalls(calls);
  return calls.map((c) => c.id);
}

/** The log as the Live view holds it: the feed connected (the shell reads its status) and the list read. */
function shownLog() {
  return mount(
    () => new CallLog(new GatewayFeed()),
    (log) => void [log.feed.status, log.calls],
  );
}

const ids = (calls: LiveCall[]) => calls.map((c) => c.id);

beforeAll(async () => {
  page = await openDashboard();
});
afterAll(async () => {
  await page?.close();
});

describe('CallLog', () => {
  it('starts with the newest 200 calls of the history, newest first, with their tools and clients listed once', async () => {
    const past = history(230, 10 * 86_400_000, (i) => ({ tool: i % 2 ? 'get_time' : 'calculate', client: i % 3 ? 'cursor' : 'default' }));
    const { state: log, unmount } = mount(() => new CallLog(new GatewayFeed()));
    expect(log.loading).toBe(true);
    await until(() => !log.loading && log.calls.length > 0, 'the first page');
    expect(log.error).toBeNull();
    expect(ids(log.calls)).toEqual(past.slice(-200).reverse());
    expect(log.tools).toEqual(['calculate', 'get_time']);
    expect(log.clients).toEqual(['cursor', 'default']);
    expect(log.matched).toBe(200);
    unmount();
  });

  it('counts the calls the filter matches, by tool and by the words of a row', async () => {
    const { state: log, unmount } = mount(() => new CallLog(new GatewayFeed()));
    await until(() => log.calls.length > 0, 'the first page');
    log.filter.tool = 'get_time';
    expect(log.matched).toBe(log.calls.filter((c) => c.tool === 'get_time').length);
    expect(log.matched).toBeGreaterThan(0);
    log.filter.tool = '';
    log.filter.text = log.calls[3]!.id;
    expect(log.matched).toBe(1);
    log.filter.clear();
    expect(log.matched).toBe(log.calls.length);
    unmount();
  });

  it('adds a call made while it is shown, and updates that row in place as the call finishes', async () => {
    const { state: log, unmount } = shownLog();
    await until(() => log.feed.status === 'live' && log.calls.length > 0, 'the stream and first page');
    const before = log.calls.length;
    const answer = await page.execute('calculate', { expression: '6*7' });
    expect(answer.status).toBe(200);
    const row = await until(() => log.calls.find((c) => c.tool === 'calculate' && c.preview.includes('6*7') && !isOpen(c)), 'the finished row');
    expect(row).toMatchObject({ status: 'succeeded', client: 'default' });
    expect(log.calls[0]!.id).toBe(row.id);
    expect(log.calls).toHaveLength(before + 1);
    expect(log.arrivalOf(row.id)).toBe(log.mark);
    unmount();
  });

  it("shows a running command's output as it streams, and forgets it once the call has finished", async () => {
    const rule = await page.gateway.asOwner('/rules', { json: { effect: 'allow', tool: 'run_shell', scope: 'tool' } });
    expect(rule.status).toBe(201);
    const { state: log, unmount } = mount(
      () => new CallLog(new GatewayFeed()),
      (log) => void [log.feed.status, log.calls, log.calls.map((c) => log.liveOutput(c.id))],
    );
    await until(() => log.feed.status === 'live' && log.calls.length > 0, 'the stream and first page');
    const command = 'echo first; sleep 1; echo second; sleep 1';
    const running = page.execute('run_shell', { command });
    const row = await until(() => log.calls.find((c) => c.tool === 'run_shell' && c.status === 'running'), 'the running row');
    const partial = await until(() => log.liveOutput(row.id), 'the first output');
    expect(partial.text).toContain('first');
    expect(partial.dropped).toBe(0);
    await until(() => log.liveOutput(row.id)?.text.includes('second'), 'the second line');
    expect((await running).status).toBe(200);
    await until(() => log.calls.find((c) => c.id === row.id)?.status === 'succeeded', 'the finished row');
    expect(log.liveOutput(row.id)).toBeUndefined();
    unmount();
  });

  it('says why the history could not be read, and loads it when asked to try again', async () => {
    await page.gateway.stop();
    const { state: log, unmount } = mount(() => new CallLog(new GatewayFeed()));
    try {
      await until(() => !log.loading, 'the failed load');
      expect(log.calls).toEqual([]);
      expect(log.error).toMatch(/^Could not load the call history: The gateway is not answering/);
    } finally {
      await page.gateway.start();
    }
    await log.retry();
    await until(() => log.calls.length > 0, 'the retried load');
    expect(log.error).toBeNull();
    unmount();
  });

  it('after the stream drops, fetches every call made meanwhile page by page, and keeps only the newest MAX_CALLS', async () => {
    const { state: log, unmount } = shownLog();
    await until(() => log.feed.status === 'live' && log.calls.length > 0, 'the stream and first page');
    const first = log.calls.length;
    expect(first).toBe(200);
    const kept = log.calls.at(-1)!.id;

    await page.gateway.stop();
    await until(() => log.feed.status === 'reconnecting', 'the drop');
    await page.gateway.start();
    // Made while the stream was down, newer than anything the log holds: more than one page of GET /calls.
    const count = MAX_CALLS - first + 150;
    const missed = history(count, -count, () => ({}), 1);
    await until(() => log.feed.status === 'live', 'the stream to come back', 20_000);
    await until(() => log.calls.length === MAX_CALLS && log.calls.at(-1)!.id !== kept, 'the missed calls, every page');
    await settle(300);
    expect(log.error).toBeNull();
    expect(log.calls).toHaveLength(MAX_CALLS);
    // The oldest 150 went; the newest are all there, newest first.
    expect(ids(log.calls).slice(0, missed.length)).toEqual([...missed].reverse());
    expect(log.calls.some((c) => c.id === kept)).toBe(false);
    unmount();
  });

  it('after the stream drops, looks up the calls it thought open: one refused when the gateway stopped ends here too', async () => {
    // Every calculate call waits for the owner, so it is open when the gateway stops.
    const rule = await page.gateway.asOwner('/rules', { json: { effect: 'ask', tool: 'calculate', scope: 'tool' } });
    expect(rule.status).toBe(201);
    const { state: log, unmount } = shownLog();
    await until(() => log.feed.status === 'live' && !log.loading, 'the stream');
    const waiting = page.execute('calculate', { expression: '2+2' }, { prefer: 'respond-async' });
    expect((await waiting).status).toBe(202);
    const open = await until(() => log.calls.find((c) => c.status === 'pending'), 'the pending row');

    await page.gateway.stop();
    await until(() => log.feed.status === 'reconnecting', 'the drop');
    await page.gateway.start();
    history(1, 0); // one newer call, so the open one is older than the newest: only a lookup finds its end
    await until(() => log.calls.find((c) => c.id === open.id && !isOpen(c)), 'the open call to be looked up', 20_000);
    expect(log.calls.find((c) => c.id === open.id)?.status).toBe('cancelled');
    unmount();
  });
});

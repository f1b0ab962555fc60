import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalQueue } from '../../../renderer/src/state/approvals.svelte';
import { GatewayFeed } from '../../../renderer/src/state/feed.svelte';
import { mount, openDashboard, settle, until, type Dashboard } from './dashboard.svelte';

let page: Dashboard;

/** A calculate call that waits for the owner (every calculate call asks here), as an assistant makes it. */
async function ask(expression: string): Promise<{ call_id: string; approval_id: string }> {
  const started = await page.execute('calculate', { expression }, { prefer: 'respond-async' });
  expect(started.status).toBe(202);
  return (await started.json()) as { call_id: string; approval_id: string };
}

/** The owner answering from elsewhere: another window, the CLI or the desktop popup. */
async function answerElsewhere(approvalId: string, decision: 'allow_once' | 'deny'): Promise<void> {
  expect((await page.gateway.asOwner(`/approvals/${approvalId}`, { json: { decision } })).status).toBe(200);
}

/** The queue as the shell holds it: the feed connected, the count and cards read. */
function shownQueue() {
  return mount(
    () => new ApprovalQueue(new GatewayFeed()),
    (queue) => void [queue.feed.status, queue.items, queue.notice],
  );
}

let unmountQueue: (() => void) | undefined;

async function liveQueue(): Promise<ApprovalQueue> {
  const { state, unmount } = shownQueue();
  unmountQueue = unmount;
  await until(() => state.feed.status === 'live' && state.loaded, 'the queue to load and the stream to open');
  return state;
}

async function endAllPending(): Promise<void> {
  await page.gateway.start();
  const { approvals } = (await (await page.gateway.asOwner('/approvals')).json()) as { approvals: { id: string }[] };
  for (const { id } of approvals) await page.gateway.asOwner(`/approvals/${id}`, { json: { decision: 'deny' } });
}

beforeAll(async () => {
  page = await openDashboard({ approvalTimeoutS: 120 });
  const rule = await page.gateway.asOwner('/rules', { json: { effect: 'ask', tool: 'calculate', scope: 'tool' } });
  expect(rule.status).toBe(201);
});
afterEach(async () => {
  unmountQueue?.();
  unmountQueue = undefined;
  await endAllPending();
});
afterAll(async () => {
  await page?.close();
});

describe('ApprovalQueue', () => {
  it('lists what already waits, newest first, and adds a new request on top as its event arrives', async () => {
    const first = await ask('1+1');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await ask('2+2');
    const queue = await liveQueue();
    expect(queue.items.map((a) => a.id)).toEqual([second.approval_id, first.approval_id]);
    expect(queue.count).toBe(2);
    expect(queue.items[0]).toMatchObject({ tool: 'calculate', client: 'default', status: 'pending', arguments: { expression: '2+2' } });

    const third = await ask('3+3');
    await until(() => queue.count === 3, 'the new request');
    expect(queue.items[0]!.id).toBe(third.approval_id);
  });

  it('follows the newest card until one is picked; an arrival that takes the selection says when it did', async () => {
    const first = await ask('1+1');
    const queue = await liveQueue();
    expect(queue.selected?.id).toBe(first.approval_id);
    expect(queue.selectionMovedAt).toBe(-Infinity);

    const before = performance.now();
    const second = await ask('2+2');
    await until(() => queue.count === 2, 'the second request');
    expect(queue.selected?.id).toBe(second.approval_id);
    expect(queue.selectionMovedAt).toBeGreaterThanOrEqual(before);

    // Once the owner picks a card, arrivals leave it selected.
    queue.select(first.approval_id);
    expect(queue.selectionMovedAt).toBe(-Infinity);
    await ask('3+3');
    await until(() => queue.count === 3, 'the third request');
    expect(queue.selected?.id).toBe(first.approval_id);
    expect(queue.selectionMovedAt).toBe(-Infinity);
  });

  it('notes a move of the selection when the selected card goes without the owner answering it here', async () => {
    const older = await ask('4+4');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const newer = await ask('5+5');
    const queue = await liveQueue();
    queue.select(newer.approval_id);
    expect(queue.selectionMovedAt).toBe(-Infinity);

    // Its caller withdrew it (here: answered elsewhere, which ends it the same way): the older card takes its place.
    const before = performance.now();
    await answerElsewhere(newer.approval_id, 'deny');
    await until(() => queue.count === 1, 'the selected card gone');
    expect(queue.selected?.id).toBe(older.approval_id);
    expect(queue.selectionMovedAt).toBeGreaterThanOrEqual(before);

    // The owner's own answer here moves it as the owner meant: nothing to wait for beyond the decision's own pause.
    const third = await ask('6+6');
    await until(() => queue.count === 2, 'the third request');
    queue.select(third.approval_id);
    expect(await queue.decide(third.approval_id, { decision: 'deny' })).toBe(true);
    expect(queue.selected?.id).toBe(older.approval_id);
    expect(queue.selectionMovedAt).toBe(-Infinity);
  });

  it('moves the selection with j/k one card at a time, stopping at both ends', async () => {
    const a = await ask('1+1');
    const b = await ask('2+2');
    const c = await ask('3+3');
    const queue = await liveQueue();
    expect(queue.items.map((x) => x.id)).toEqual([c.approval_id, b.approval_id, a.approval_id]);
    queue.move(-1);
    expect(queue.selected?.id).toBe(c.approval_id);
    queue.move(1);
    expect(queue.selected?.id).toBe(b.approval_id);
    queue.move(5);
    expect(queue.selected?.id).toBe(a.approval_id);
    queue.move(1);
    expect(queue.selected?.id).toBe(a.approval_id);
  });

  it("answers a card: it goes, the selection moves to the card in its place, and the line says what was done", async () => {
    const a = await ask('1+1');
    const b = await ask('2+2');
    const c = await ask('3+3');
    const queue = await liveQueue();
    queue.select(b.approval_id);
    const answering = queue.decide(b.approval_id, { decision: 'allow_once' });
    expect(queue.busy.has(b.approval_id)).toBe(true);
    // A second click while the answer is on its way sends nothing.
    expect(await queue.decide(b.approval_id, { decision: 'deny' })).toBe(false);
    expect(await answering).toBe(true);
    expect(queue.busy.size).toBe(0);
    expect(queue.items.map((x) => x.id)).toEqual([c.approval_id, a.approval_id]);
    expect(queue.selected?.id).toBe(a.approval_id);
    expect(queue.notice).toBe('Allowed calculate once for default.');
    expect(queue.error).toBeNull();
    // The event about the answer, arriving after, neither brings the card back nor reports it as decided elsewhere.
    await settle(300);
    expect(queue.notice).toBe('Allowed calculate once for default.');
    expect(queue.count).toBe(2);

    expect(await queue.decide(a.approval_id, { decision: 'deny' })).toBe(true);
    expect(queue.notice).toBe('Denied calculate for default.');
    expect(queue.selected?.id).toBe(c.approval_id);
  });

  it('takes a card away when it is answered elsewhere, and says so', async () => {
    const a = await ask('1+1');
    const queue = await liveQueue();
    await answerElsewhere(a.approval_id, 'deny');
    await until(() => queue.count === 0, 'the card to go');
    expect(queue.notice).toBe('calculate from default was denied elsewhere.');
    const b = await ask('2+2');
    await until(() => queue.count === 1, 'the next card');
    await answerElsewhere(b.approval_id, 'allow_once');
    await until(() => queue.count === 0, 'the card to go');
    expect(queue.notice).toBe('calculate from default was allowed elsewhere.');
  });

  it('says plainly when the card it answers was already answered, and reloads the list', async () => {
    const a = await ask('1+1');
    // The queue is not following the stream here, so it still shows the card after another window answered it.
    const { state: queue, unmount } = mount(() => new ApprovalQueue(new GatewayFeed()));
    unmountQueue = unmount;
    await until(() => queue.count === 1, 'the card');
    await answerElsewhere(a.approval_id, 'deny');
    expect(await queue.decide(a.approval_id, { decision: 'allow_once' })).toBe(false);
    expect(queue.error).toBe('That call is no longer waiting: it was answered elsewhere, it expired, or its caller stopped waiting.');
    await until(() => queue.count === 0, 'the reload');
    // A refused decision's message stays after the reload, until the owner dismisses it.
    expect(queue.error).not.toBeNull();
    queue.dismissError();
    expect(queue.error).toBeNull();
  });

  it('says when a call was withdrawn because its caller stopped waiting', async () => {
    const queue = await liveQueue();
    const caller = new AbortController();
    const waiting = page.gateway.api('/tools/calculate/execute', { method: 'POST', json: { expression: '5*5' }, signal: caller.signal }).catch(() => null);
    await until(() => queue.count === 1, 'the card');
    caller.abort();
    await waiting;
    await until(() => queue.count === 0, 'the card to go');
    expect(queue.notice).toBe('calculate from default was withdrawn: its caller stopped waiting.');
  });

  it('says when a call expired unanswered', async () => {
    expect((await page.gateway.asOwner('/settings', { method: 'PATCH', json: { approval_timeout_s: 5 } })).status).toBe(200);
    try {
      const queue = await liveQueue();
      await ask('7*7');
      await until(() => queue.count === 1, 'the card');
      await until(() => queue.count === 0, 'the expiry', 15_000);
      expect(queue.notice).toBe('calculate from default expired unanswered, so the call was refused.');
    } finally {
      await page.gateway.asOwner('/settings', { method: 'PATCH', json: { approval_timeout_s: 120 } });
    }
  });

  it('says why the list could not be read, and loads it as soon as the stream connects again', async () => {
    await page.gateway.stop();
    const { state: queue, unmount } = shownQueue();
    unmountQueue = unmount;
    try {
      await until(() => queue.error !== null, 'the failed load');
      expect(queue.error).toMatch(/^The gateway is not answering/);
      expect(queue.loaded).toBe(false);
    } finally {
      await page.gateway.start();
    }
    await ask('8*8');
    await until(() => queue.loaded && queue.count === 1, 'the list after the reconnect', 20_000);
    expect(queue.error).toBeNull();
  });

  it('drops cards answered while the stream was down, once it is back', async () => {
    const a = await ask('9*9');
    const queue = await liveQueue();
    expect(queue.count).toBe(1);
    page.dropStreams();
    await until(() => queue.feed.status === 'reconnecting', 'the drop');
    await answerElsewhere(a.approval_id, 'deny');
    expect(queue.count).toBe(1);
    await until(() => queue.feed.status === 'live', 'the stream to come back', 20_000);
    await until(() => queue.count === 0, 'the reload after the reconnect');
  });

  it('keeps a card that arrived by event while an older list was on its way', async () => {
    const queue = await liveQueue();
    // The list is read before the request exists, and reaches the page after the request's event.
    const restore = page.slowDown('/approvals', 600);
    const loading = queue.load();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const a = await ask('10*10');
    await until(() => queue.items.some((x) => x.id === a.approval_id), 'the card');
    await loading;
    restore();
    expect(queue.items.map((x) => x.id)).toEqual([a.approval_id]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayEvents } from '../../../renderer/src/lib/types';
import { GatewayFeed } from '../../../renderer/src/state/feed.svelte';
import { mount, openDashboard, until, type Dashboard } from './dashboard.svelte';

let page: Dashboard;

beforeAll(async () => {
  page = await openDashboard();
});
afterAll(async () => {
  await page?.close();
});

const viewers = () => page.gateway.viewers();

describe('GatewayFeed', () => {
  it('connects only while its status is read, and leaves no stream open once nothing reads it', async () => {
    const idle = mount(() => new GatewayFeed());
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(viewers()).toBe(0);
    idle.unmount();

    const statuses: string[] = [];
    const shown = mount(
      () => new GatewayFeed(),
      (feed) => void statuses.push(feed.status),
    );
    expect(statuses).toEqual(['connecting']);
    await until(() => shown.state.status === 'live', 'the stream to open');
    expect(viewers()).toBe(1);
    shown.unmount();
    await until(() => viewers() === 0, 'the gateway to see the stream closed');
  });

  it("hands each handler the gateway's events for its name, parsed, until it unsubscribes", async () => {
    const { state: feed, unmount } = mount(
      () => new GatewayFeed(),
      (feed) => void feed.status,
    );
    const calls: GatewayEvents['call'][] = [];
    const hellos: GatewayEvents['hello'][] = [];
    const off = feed.on('call', (event) => calls.push(event));
    feed.on('hello', (event) => hellos.push(event));
    await until(() => hellos.length === 1, 'hello');
    expect(hellos[0]!.version).toMatch(/^\d+\.\d+\.\d+/);

    expect((await page.execute('calculate', { expression: '6*7' })).status).toBe(200);
    await until(() => calls.some((e) => e.phase === 'succeeded'), 'the call to finish');
    const finished = calls.find((e) => e.phase === 'succeeded')!;
    expect(finished.call).toMatchObject({ tool: 'calculate', client: 'default', status: 'succeeded' });
    expect(calls.map((e) => e.call.id).every((id) => id === finished.call.id)).toBe(true);

    off();
    const seen = calls.length;
    const later: GatewayEvents['call'][] = [];
    feed.on('call', (event) => later.push(event));
    await page.execute('calculate', { expression: '1+1' });
    await until(() => later.some((e) => e.phase === 'succeeded'), 'the second call');
    expect(calls).toHaveLength(seen);
    unmount();
  });

  it('follow() reloads once for a burst of matching events, and not for events its filter refuses', async () => {
    const { state: feed, unmount } = mount(
      () => new GatewayFeed(),
      (feed) => void feed.status,
    );
    await until(() => feed.status === 'live', 'the stream');
    let reloads = 0;
    let finishedEvents = 0;
    feed.on('call', ({ phase }) => void (phase === 'succeeded' && finishedEvents++));
    const unfollow = feed.follow(() => reloads++, { call: ({ phase }) => phase === 'succeeded' }, 1_000);

    // Started events (the filter refuses them) reload nothing; the three finished ones come within the settle time
    // of the follow's start, so they cost one reload between them.
    await Promise.all([1, 2, 3].map((n) => page.execute('calculate', { expression: `${n}+${n}` })));
    await until(() => finishedEvents === 3, 'three finished calls');
    await until(() => reloads === 1, 'the reload');
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(reloads).toBe(1);

    unfollow();
    await page.execute('calculate', { expression: '2*2' });
    await until(() => finishedEvents === 4, 'one more call');
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(reloads).toBe(1);
    unmount();
  });

  it('says it is reconnecting while the gateway is gone, and tells reconnect listeners once it is back', async () => {
    const { state: feed, unmount } = mount(
      () => new GatewayFeed(),
      (feed) => void feed.status,
    );
    let caughtUp = 0;
    let retried = 0;
    let missing = true;
    feed.onReconnect(() => caughtUp++);
    // A listener whose own first fetch failed is told at the first connection too.
    feed.onReconnect(
      () => {
        retried++;
        missing = false;
      },
      () => missing,
    );
    await until(() => feed.status === 'live', 'the stream');
    expect(caughtUp).toBe(0);
    expect(retried).toBe(1);

    await page.gateway.stop();
    await until(() => feed.status === 'reconnecting', 'the drop to be noticed');
    await page.gateway.start();
    await until(() => feed.status === 'live', 'the stream to come back', 20_000);
    expect(caughtUp).toBe(1);
    expect(retried).toBe(2);
    unmount();
  });
});

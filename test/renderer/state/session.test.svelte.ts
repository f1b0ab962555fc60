import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { api } from '../../../renderer/src/lib/api';
import { Session } from '../../../renderer/src/state/session.svelte';
import { mount, openDashboard, type Dashboard } from './dashboard.svelte';

// Each test signs in afresh on its own gateway: some end the owner's session.
let page: Dashboard;

beforeEach(async () => {
  page = await openDashboard();
});
afterEach(async () => {
  await page?.close();
});

describe('Session', () => {
  it('is checking until asked, then owner with the gateway version', async () => {
    const { state: session, unmount } = mount(() => new Session());
    expect(session.state).toBe('checking');
    await session.check();
    expect(session.state).toBe('owner');
    expect(session.version).toMatch(/^\d+\.\d+\.\d+/);
    unmount();
  });

  it('logs out: the gateway forgets the session and the page is a guest', async () => {
    const { state: session, unmount } = mount(() => new Session());
    await session.check();
    await session.logout();
    expect(session.state).toBe('guest');
    await session.check();
    expect(session.state).toBe('guest');
    expect((await fetch(`${page.gateway.url}/settings`, { headers: { cookie: page.gateway.ownerCookie } })).status).toBe(401);
    unmount();
  });

  it('turns guest when any request finds the session gone (logged out in another window)', async () => {
    const { state: session, unmount } = mount(() => new Session());
    await session.check();
    expect((await page.gateway.asOwner('/auth/logout', { method: 'POST' })).status).toBeLessThan(300);
    expect(session.state).toBe('owner');
    await expect(api('GET', '/settings')).rejects.toMatchObject({ status: 401 });
    expect(session.state).toBe('guest');
    unmount();
  });

  it('says the gateway is unreachable when nobody answers, and owner again once it is back', async () => {
    const { state: session, unmount } = mount(() => new Session());
    await page.gateway.stop();
    try {
      await session.check();
      expect(session.state).toBe('unreachable');
      // A logout that cannot reach the gateway says what the page then knows.
      await session.logout();
      expect(session.state).toBe('unreachable');
    } finally {
      await page.gateway.start();
    }
    await session.check();
    expect(session.state).toBe('owner');
    unmount();
  });
});

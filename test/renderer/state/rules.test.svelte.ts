import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Rule } from '../../../renderer/src/lib/types';
import { GatewayFeed } from '../../../renderer/src/state/feed.svelte';
import { RuleLedger } from '../../../renderer/src/state/rules.svelte';
import { mount, openDashboard, until, type Dashboard } from './dashboard.svelte';

let page: Dashboard;

async function addElsewhere(rule: Record<string, unknown>): Promise<Rule> {
  const res = await page.gateway.asOwner('/rules', { json: rule });
  expect(res.status).toBe(201);
  return (await res.json()) as Rule;
}

beforeAll(async () => {
  page = await openDashboard();
});
afterAll(async () => {
  await page?.close();
});

describe('RuleLedger', () => {
  it('lists the rules newest first, and leaves the table alone when a reload finds nothing changed', async () => {
    const older = await addElsewhere({ effect: 'deny', tool: 'file_delete', scope: 'tool', note: 'never' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const newer = await addElsewhere({ effect: 'ask', tool: 'http_get', scope: 'tool' });
    const { state: ledger, unmount } = mount(() => new RuleLedger());
    await ledger.load();
    expect(ledger.loaded).toBe(true);
    expect(ledger.error).toBeNull();
    const ids = ledger.rules.map((r) => r.id);
    expect(ids.indexOf(newer.id)).toBeLessThan(ids.indexOf(older.id));
    expect(ledger.rules.find((r) => r.id === older.id)).toMatchObject({ effect: 'deny', tool: 'file_delete', note: 'never', uses: 0 });
    const shown = ledger.rules;
    await ledger.load();
    expect(ledger.rules).toBe(shown);
    unmount();
  });

  it('adds a rule on top, and answers the message when the gateway refuses one', async () => {
    const { state: ledger, unmount } = mount(() => new RuleLedger());
    await ledger.load();
    expect(await ledger.add({ effect: 'allow', tool: 'file_read', scope: 'folder', pattern: page.gateway.workspace, note: 'my notes' })).toBeNull();
    expect(ledger.rules[0]).toMatchObject({ effect: 'allow', tool: 'file_read', scope: 'folder', note: 'my notes', created_by: 'owner' });
    const refused = await ledger.add({ effect: 'allow', tool: 'file_read', scope: 'nowhere' as never });
    expect(refused).toMatch(/scope/);
    expect(ledger.rules[0]!.note).toBe('my notes');
    unmount();
  });

  it('revokes a rule: it leaves the table and the gateway; a refused revoke says why', async () => {
    const rule = await addElsewhere({ effect: 'deny', tool: 'run_python', scope: 'tool' });
    const { state: ledger, unmount } = mount(() => new RuleLedger());
    await ledger.load();
    expect(await ledger.revoke(rule.id)).toBe(true);
    expect(ledger.rules.some((r) => r.id === rule.id)).toBe(false);
    expect(ledger.error).toBeNull();
    await ledger.load();
    expect(ledger.rules.some((r) => r.id === rule.id)).toBe(false);
    expect(await ledger.revoke(rule.id)).toBe(false);
    expect(ledger.error).toMatch(/^Could not revoke the rule: /);
    unmount();
  });

  it('offers the tool names for a rule written by hand, and keeps quiet when they cannot be read', async () => {
    const { state: ledger, unmount } = mount(() => new RuleLedger());
    await ledger.loadToolNames();
    expect(ledger.toolNames).toEqual(expect.arrayContaining(['calculate', 'file_read']));
    const names = ledger.toolNames;
    await page.gateway.stop();
    try {
      await ledger.loadToolNames();
    } finally {
      await page.gateway.start();
    }
    expect(ledger.toolNames).toBe(names);
    expect(ledger.error).toBeNull();
    unmount();
  });

  it('follows rules added elsewhere, and the use counts of calls a rule decided', async () => {
    const { state, unmount } = mount(
      () => {
        const feed = new GatewayFeed();
        const ledger = new RuleLedger();
        return { feed, ledger, off: ledger.listen(feed) };
      },
      ({ feed }) => void feed.status,
    );
    await until(() => state.feed.status === 'live', 'the stream');
    await state.ledger.load();
    const rule = await addElsewhere({ effect: 'deny', tool: 'get_time', scope: 'tool' });
    await until(() => state.ledger.rules.some((r) => r.id === rule.id), 'the new rule');
    expect((await page.execute('get_time', {})).status).toBe(403);
    await until(() => state.ledger.rules.find((r) => r.id === rule.id)?.uses === 1, 'the use count');
    state.off();
    unmount();
  });

  it('says why the rules could not be read', async () => {
    const { state: ledger, unmount } = mount(() => new RuleLedger());
    await page.gateway.stop();
    try {
      await ledger.load();
    } finally {
      await page.gateway.start();
    }
    expect(ledger.loaded).toBe(true);
    expect(ledger.error).toMatch(/^The gateway is not answering/);
    unmount();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Approval, ApprovalAnswer } from '../../../renderer/src/lib/types';
import { describeElsewhere, describeMine } from '../../../renderer/src/state/approval-notices';
import { GatewayFeed } from '../../../renderer/src/state/feed.svelte';
import { RULE_CLIENTS } from '../../../renderer/src/views/rules/describe';
import { mount, openDashboard, until, type Dashboard } from './dashboard.svelte';

// Each line is checked against approvals the gateway really ended: answered (the POST's answer), or as the event
// stream tells another window: answered there, expired, or withdrawn by their caller.

let page: Dashboard;
let unmount: () => void;
/** Ended approvals as `approval` events brought them. */
const endedByEvent = new Map<string, Approval>();

async function ask(expression: string, signal?: AbortSignal): Promise<{ approval: Approval; waiting: Promise<unknown> }> {
  const waiting = page.gateway.api('/tools/calculate/execute', { method: 'POST', json: { expression }, ...(signal && { signal }) }).catch(() => null);
  const approval = await until(async () => {
    const { approvals } = (await (await page.gateway.asOwner('/approvals')).json()) as { approvals: Approval[] };
    return approvals.find((a) => (a.arguments as { expression?: string }).expression === expression);
  }, 'the approval');
  return { approval, waiting };
}

async function answer(id: string, body: ApprovalAnswer): Promise<Approval> {
  const res = await page.gateway.asOwner(`/approvals/${id}`, { json: body });
  expect(res.status).toBe(200);
  return (await res.json()) as Approval;
}

const ended = (id: string) => until(() => endedByEvent.get(id), `the end of ${id}`);

beforeAll(async () => {
  page = await openDashboard({ approvalTimeoutS: 2 });
  expect((await page.gateway.asOwner('/rules', { json: { effect: 'ask', tool: 'calculate', scope: 'tool' } })).status).toBe(201);
  const shown = mount(
    () => new GatewayFeed(),
    (feed) => void feed.status,
  );
  unmount = shown.unmount;
  shown.state.on('approval', ({ phase, approval }) => void (phase !== 'requested' && endedByEvent.set(approval.id, approval)));
  await until(() => shown.state.status === 'live', 'the stream');
});
afterAll(async () => {
  unmount?.();
  await page?.close();
});

describe('describeMine', () => {
  it('names the answer given in this window, the tool and the client', async () => {
    const once = await ask('1+1');
    expect(describeMine(await answer(once.approval.id, { decision: 'allow_once' }))).toBe('Allowed calculate once for default.');
    const denied = await ask('2+2');
    expect(describeMine(await answer(denied.approval.id, { decision: 'deny' }))).toBe('Denied calculate for default.');
    const always = await ask('3+3');
    expect(describeMine(await answer(always.approval.id, { decision: 'allow_always', scope: 'exact' }))).toBe(
      'Always allowed: calculate for every client (default asked) — the new rule is on the Rules page.',
    );
    // What the notice says is so: the rule made names no client, and the Rules table words it the same way.
    const { rules } = (await (await page.gateway.asOwner('/rules')).json()) as { rules: Record<string, unknown>[] };
    const made = rules.find((r) => String(r.note).includes(always.approval.id));
    expect(made).toBeDefined();
    expect(Object.keys(made!)).not.toContain('client');
    expect(describeMine(await answer((await ask('7+7')).approval.id, { decision: 'allow_always', scope: 'exact' }))).toContain(RULE_CLIENTS);
    await Promise.all([once.waiting, denied.waiting, always.waiting]);
  });
});

describe('describeElsewhere', () => {
  it('says an approval answered elsewhere was allowed or denied there', async () => {
    const allowed = await ask('4+4');
    await answer(allowed.approval.id, { decision: 'allow_once' });
    expect(describeElsewhere(await ended(allowed.approval.id))).toBe('calculate from default was allowed elsewhere.');
    const denied = await ask('5+5');
    await answer(denied.approval.id, { decision: 'deny' });
    expect(describeElsewhere(await ended(denied.approval.id))).toBe('calculate from default was denied elsewhere.');
  });

  it('says an approval nobody answered in time expired, and that the call was refused', async () => {
    const { approval } = await ask('6+6');
    const expired = await ended(approval.id);
    expect(expired.status).toBe('expired');
    expect(describeElsewhere(expired)).toBe('calculate from default expired unanswered, so the call was refused.');
  });

  it('says an approval whose caller stopped waiting was withdrawn', async () => {
    const caller = new AbortController();
    const { approval, waiting } = await ask('7+7', caller.signal);
    caller.abort();
    await waiting;
    const withdrawn = await ended(approval.id);
    expect(withdrawn.status).toBe('cancelled');
    expect(describeElsewhere(withdrawn)).toBe('calculate from default was withdrawn: its caller stopped waiting.');
  });
});

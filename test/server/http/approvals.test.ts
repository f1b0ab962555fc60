import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool, type AnyTool } from '../../../server/index.js';
import { EventStream } from '../../helpers/events.js';
import { startGateway, tempDir, type TestGateway } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';

/**
 * Human in the loop through real HTTP: the approval broker, the grants ledger, per-client tool sets, the pause switch
 * and the events a popup renders from. No timing assertions: waits poll until a condition holds.
 */

/** How many times each counting tool's handler actually ran. */
const runs: Record<string, number> = {};

function countingTool(name: string, risk: 'safe' | 'sensitive' | 'dangerous' = 'dangerous'): AnyTool {
  runs[name] = 0;
  return defineTool<{ note?: string }, { runs: number; note: string | null }>({
    name,
    description: `Test tool: marked ${risk}; counts how often it really ran.`,
    parameters: { type: 'object', properties: { note: { type: 'string' } }, additionalProperties: false },
    category: 'test',
    risk,
    annotations: { readOnlyHint: false, destructiveHint: risk === 'dangerous' },
    handler: (args) => {
      runs[name]! += 1;
      return { runs: runs[name]!, note: args.note ?? null };
    },
  });
}

const EXTRA_TOOLS = [
  countingTool('danger_count'),
  countingTool('danger_exact'),
  countingTool('danger_tool'),
  countingTool('danger_rules'),
  countingTool('danger_flood'),
  countingTool('danger_cap'),
  countingTool('danger_restart'),
  countingTool('sensitive_count', 'sensitive'),
];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const read = async (res: Response): Promise<Json> => res.json();

/** As a named client (its own token). */
function as(tg: TestGateway, token: string, path: string, init: { method?: string; json?: unknown; headers?: Record<string, string> } = {}) {
  return fetch(`${tg.url}${path}`, {
    method: init.method ?? (init.json !== undefined ? 'POST' : 'GET'),
    headers: {
      authorization: `Bearer ${token}`,
      ...(init.json !== undefined && { 'content-type': 'application/json' }),
      ...init.headers,
    },
    ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
  });
}

const ASYNC = { prefer: 'respond-async' };

/** The pending approval (seen by the owner) that matches. */
async function pendingApproval(tg: TestGateway, match: (a: Json) => boolean): Promise<Json> {
  return until(async () => {
    const body = await read(await tg.asOwner('/approvals'));
    return (body.approvals as Json[]).find(match);
  }, 'a pending approval');
}

async function pendingCount(tg: TestGateway, tool: string): Promise<number> {
  const body = await read(await tg.asOwner('/approvals'));
  return (body.approvals as Json[]).filter((a) => a.tool === tool).length;
}

async function decide(tg: TestGateway, id: string, decision: Json): Promise<Response> {
  return tg.asOwner(`/approvals/${id}`, { json: decision });
}

async function callRecord(tg: TestGateway, id: string): Promise<Json> {
  return read(await tg.api(`/calls/${id}`));
}

/** The owner's dry run: the whole verdict, the deciding rule's id included (a client's names no rule). */
async function check(tg: TestGateway, name: string, args: Json): Promise<Json> {
  const res = await tg.asOwner('/policy/check', { json: { name, arguments: args } });
  expect(res.status).toBe(200);
  return read(res);
}

/** Starts a call with respond-async and returns the 202 body. */
async function askAsync(tg: TestGateway, tool: string, args: Json, token?: string): Promise<Json> {
  const res = token
    ? await as(tg, token, `/tools/${tool}/execute`, { json: args, headers: ASYNC })
    : await tg.api(`/tools/${tool}/execute`, { method: 'POST', json: args, headers: ASYNC });
  expect(res.status).toBe(202);
  return read(res);
}

// ---------------------------------------------------------------------------------------------------------------

let tg: TestGateway;
let events: EventStream;

beforeAll(async () => {
  // Nobody forgets to answer here: questions stay open long enough for every test to decide them.
  tg = await startGateway({ approvalTimeoutS: 60 }, { extraTools: EXTRA_TOOLS });
  // The owner's stream, as the dashboard reads it: rules and every client's tool-set changes reach only the owner.
  events = await EventStream.openAsOwner(tg);
});
afterAll(async () => {
  await events?.close();
  await tg?.close();
});

describe('waiting for the owner', () => {
  it('a dangerous call waits until the owner allows it once, then runs exactly once and the waiting caller gets the result', async () => {
    const before = runs.danger_count!;
    const waiting = tg.api('/tools/danger_count/execute', { method: 'POST', json: { note: 'once' } });
    const approval = await pendingApproval(tg, (a) => a.tool === 'danger_count');
    expect(approval).toMatchObject({
      tool: 'danger_count',
      client: 'default',
      arguments: { note: 'once' },
      risk: 'dangerous',
      rule: 'risk:dangerous',
      status: 'pending',
    });
    expect(approval.id).toMatch(/^a_/);
    expect(approval.call_id).toMatch(/^c_/);
    expect(approval.reason).toMatch(/dangerous/);
    expect(Date.parse(approval.expires_at)).toBeGreaterThan(Date.parse(approval.created_at));
    // It waits: nothing ran yet, and the call shows as pending.
    expect(runs.danger_count).toBe(before);
    expect((await callRecord(tg, approval.call_id)).status).toBe('pending');

    const decided = await decide(tg, approval.id, { decision: 'allow_once' });
    expect(decided.status).toBe(200);
    expect(await read(decided)).toMatchObject({ id: approval.id, status: 'allowed', decision: 'allow_once', decided_by: 'owner' });

    const res = await waiting; // resumes on the decision
    expect(res.status).toBe(200);
    const body = await read(res);
    expect(body).toMatchObject({ success: true, call_id: approval.call_id, result: { note: 'once' } });
    expect(runs.danger_count).toBe(before + 1);

    const record = await callRecord(tg, approval.call_id);
    expect(record).toMatchObject({ status: 'succeeded', decision: 'ask', rule: `approval:${approval.id}` });
    expect(record.reason).toMatch(/Approved by the owner/);
    // Allowed once means once: deciding again is a 404, and the handler did not run a second time.
    expect((await decide(tg, approval.id, { decision: 'allow_once' })).status).toBe(404);
    expect(runs.danger_count).toBe(before + 1);
    expect(await pendingCount(tg, 'danger_count')).toBe(0);
  });

  it('Prefer: respond-async answers 202 at once; GET /calls/{id} shows pending, then the outcome', async () => {
    const before = runs.danger_count!;
    const res = await tg.api('/tools/danger_count/execute', { method: 'POST', json: { note: 'async' }, headers: ASYNC });
    expect(res.status).toBe(202);
    expect(res.headers.get('preference-applied')).toBe('respond-async');
    const body = await read(res);
    expect(Object.keys(body).sort()).toEqual(['approval_id', 'call_id', 'pending', 'success']);
    expect(body).toMatchObject({ success: false, pending: true });
    expect(body.approval_id).toMatch(/^a_/);
    expect(body.call_id).toMatch(/^c_/);

    expect(await callRecord(tg, body.call_id)).toMatchObject({ id: body.call_id, status: 'pending', decision: 'ask' });
    expect(runs.danger_count).toBe(before);

    expect((await decide(tg, body.approval_id, { decision: 'allow_once' })).status).toBe(200);
    const done = await until(async () => {
      const record = await callRecord(tg, body.call_id);
      return record.status === 'succeeded' && record;
    }, 'the async call to finish');
    expect(done).toMatchObject({ result: { note: 'async' }, rule: `approval:${body.approval_id}` });
    expect(runs.danger_count).toBe(before + 1);
  });

  it('/execute and /tool_calls wait for the owner the same way', async () => {
    const before = runs.danger_count!;
    const viaExecute = tg.api('/execute', { method: 'POST', json: { name: 'danger_count', arguments: { note: 'exec' } } });
    const a1 = await pendingApproval(tg, (a) => a.tool === 'danger_count' && a.arguments.note === 'exec');
    await decide(tg, a1.id, { decision: 'allow_once' });
    expect(await read(await viaExecute)).toMatchObject({ success: true, result: { note: 'exec' } });

    const viaToolCalls = tg.api('/tool_calls', {
      method: 'POST',
      json: { tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'danger_count', arguments: '{"note":"tc"}' } }] },
    });
    const a2 = await pendingApproval(tg, (a) => a.tool === 'danger_count' && a.arguments.note === 'tc');
    await decide(tg, a2.id, { decision: 'deny', message: 'not from a tool_call' });
    const messages = (await read(await viaToolCalls)).messages;
    const content = JSON.parse(messages[0].content);
    expect(content.error.name).toBe('APPROVAL_DENIED');
    expect(content.error.message).toContain('not from a tool_call');
    expect(runs.danger_count).toBe(before + 1);
  });

  it('deny with a message: 403 APPROVAL_DENIED carrying the message for the model; the handler never ran', async () => {
    const before = runs.danger_count!;
    const waiting = tg.api('/tools/danger_count/execute', { method: 'POST', json: { note: 'deny me' } });
    const approval = await pendingApproval(tg, (a) => a.tool === 'danger_count');
    const decided = await decide(tg, approval.id, { decision: 'deny', message: 'Use the staging bucket instead.' });
    expect(await read(decided)).toMatchObject({ status: 'denied', decision: 'deny', message: 'Use the staging bucket instead.' });

    const res = await waiting;
    expect(res.status).toBe(403);
    const body = await read(res);
    expect(body.success).toBe(false);
    expect(body.error.name).toBe('APPROVAL_DENIED');
    expect(body.error.message).toContain('Use the staging bucket instead.');
    expect(body.error.details).toMatchObject({ approval_id: approval.id, rule: `approval:${approval.id}` });
    expect(runs.danger_count).toBe(before);
    expect(await callRecord(tg, approval.call_id)).toMatchObject({ status: 'denied', decision: 'ask', rule: `approval:${approval.id}` });
  });

  it("the owner's words end as a sentence before the advice not to retry", async () => {
    const waiting = tg.api('/tools/danger_count/execute', { method: 'POST', json: { note: 'deny me too' } });
    const approval = await pendingApproval(tg, (a) => a.tool === 'danger_count' && JSON.stringify(a.arguments).includes('deny me too'));
    await decide(tg, approval.id, { decision: 'deny', message: 'not now ' });
    const body = await read(await waiting);
    expect(body.error.message).toBe('The owner denied this call: not now. Do not retry it unchanged.');
  });

  it('a deny without a message still tells the model not to retry unchanged', async () => {
    const body = await askAsync(tg, 'sensitive_count', {});
    await decide(tg, body.approval_id, { decision: 'deny' });
    const record = await until(async () => {
      const r = await callRecord(tg, body.call_id);
      return r.status === 'denied' && r;
    }, 'the denial');
    expect(record.error.name).toBe('APPROVAL_DENIED');
    expect(record.error.message).toMatch(/denied/);
    expect(runs.sensitive_count).toBe(0);
  });

  it('rejects malformed decisions with 400 and leaves the approval pending', async () => {
    const body = await askAsync(tg, 'danger_count', { note: 'bad decisions' });
    for (const bad of [{}, { decision: 'maybe' }, { decision: 'allow_once', scope: 'tool' }, { decision: 'deny', extra: 1 }, { decision: 'allow_always', scope: 'planet' }]) {
      const res = await decide(tg, body.approval_id, bad);
      expect(res.status).toBe(400);
      expect((await read(res)).error.message).toMatch(/Invalid decision/);
    }
    // A scope the call does not have (no path, no host) is refused with the scopes it does have.
    const wrong = await decide(tg, body.approval_id, { decision: 'allow_always', scope: 'host' });
    expect(wrong.status).toBe(400);
    expect((await read(wrong)).error.message).toMatch(/exact, tool/);
    expect((await decide(tg, 'a_nothere', { decision: 'deny' })).status).toBe(404);
    expect(await pendingCount(tg, 'danger_count')).toBe(1);
    await decide(tg, body.approval_id, { decision: 'deny' });
  });
});

describe('expiry', () => {
  let short: TestGateway;
  let stream: EventStream;
  beforeAll(async () => {
    short = await startGateway({ approvalTimeoutS: 0.3 }, { extraTools: [countingTool('danger_expire')] });
    stream = await EventStream.open(short);
  });
  afterAll(async () => {
    await stream?.close();
    await short?.close();
  });

  it('an unanswered approval expires: 403 APPROVAL_TIMEOUT, nothing executed, an "expired" approval event', async () => {
    const res = await short.api('/tools/danger_expire/execute', { method: 'POST', json: { note: 'late' } });
    expect(res.status).toBe(403);
    const body = await read(res);
    expect(body.error.name).toBe('APPROVAL_TIMEOUT');
    expect(body.error.message).toMatch(/did not answer in time/);
    expect(runs.danger_expire).toBe(0);

    const expired = await stream.next((e) => e.event === 'approval' && e.data.phase === 'expired');
    expect(expired.data.approval).toMatchObject({ call_id: body.call_id, tool: 'danger_expire', status: 'expired' });
    const record = await read(await short.api(`/calls/${body.call_id}`));
    expect(record).toMatchObject({ status: 'denied', decision: 'ask', rule: 'risk:dangerous' });
    expect(record.error.name).toBe('APPROVAL_TIMEOUT');
    // Too late to decide: the question is gone, and still nothing ran.
    expect((await decide(short, body.error.details.approval_id, { decision: 'allow_once' })).status).toBe(404);
    expect(runs.danger_expire).toBe(0);
  });

  it('an async call that expires shows the refusal in /calls and never runs', async () => {
    const body = await askAsync(short, 'danger_expire', { note: 'async late' });
    const record = await until(async () => {
      const r = await read(await short.api(`/calls/${body.call_id}`));
      return r.status === 'denied' && r;
    }, 'the expiry');
    expect(record.error.name).toBe('APPROVAL_TIMEOUT');
    expect(runs.danger_expire).toBe(0);
    expect((await read(await short.asOwner('/approvals'))).count).toBe(0);
  });
});

describe('allow_always scopes', () => {
  it('exact: the same arguments pass without a prompt, different arguments ask again', async () => {
    const first = tg.api('/tools/danger_exact/execute', { method: 'POST', json: { note: 'same' } });
    const approval = await pendingApproval(tg, (a) => a.tool === 'danger_exact');
    expect(approval.scopes.map((s: Json) => s.scope)).toEqual(['exact', 'tool']);
    const decided = await read(await decide(tg, approval.id, { decision: 'allow_always', scope: 'exact' }));
    expect(decided).toMatchObject({ status: 'allowed', decision: 'allow_always' });
    expect(decided.granted_rule).toMatch(/^r_/);
    expect((await first).status).toBe(200);
    const rule = (await read(await tg.asOwner('/rules'))).rules.find((r: Json) => r.id === decided.granted_rule);
    expect(rule).toMatchObject({ effect: 'allow', tool: 'danger_exact', scope: 'exact', created_by: 'owner' });
    expect(await callRecord(tg, approval.call_id)).toMatchObject({ rule: `rule:${decided.granted_rule}` });

    // Same arguments: straight through, recorded with the rule.
    const again = await tg.api('/tools/danger_exact/execute', { method: 'POST', json: { note: 'same' } });
    expect(again.status).toBe(200);
    const againBody = await read(again);
    expect(await callRecord(tg, againBody.call_id)).toMatchObject({ decision: 'allow', rule: `rule:${decided.granted_rule}`, status: 'succeeded' });
    expect(runs.danger_exact).toBe(2);

    // Different arguments: a new question.
    const other = await askAsync(tg, 'danger_exact', { note: 'different' });
    await decide(tg, other.approval_id, { decision: 'deny' });
    expect(runs.danger_exact).toBe(2);
  });

  it('tool: every later call of that tool passes, other tools still ask', async () => {
    const first = await askAsync(tg, 'danger_tool', { note: 'a' });
    const decided = await read(await decide(tg, first.approval_id, { decision: 'allow_always', scope: 'tool' }));
    expect(decided.granted_rule).toMatch(/^r_/);
    const next = await tg.api('/tools/danger_tool/execute', { method: 'POST', json: { note: 'b' } });
    expect(next.status).toBe(200);
    expect(await read(next)).toMatchObject({ success: true, result: { note: 'b' } });
    expect(await check(tg, 'danger_tool', { note: 'anything' })).toMatchObject({ decision: 'allow', rule: `rule:${decided.granted_rule}` });
    expect((await check(tg, 'danger_count', {})).decision).toBe('ask');
  });

  it('prefix (run_shell): "touch" passes later touches, never a compound command riding on it', async () => {
    const first = await check(tg, 'run_shell', { command: 'touch a.txt' });
    expect(first.decision).toBe('ask');
    const pending = await askAsync(tg, 'run_shell', { command: 'touch a.txt' });
    const approval = await pendingApproval(tg, (a) => a.id === pending.approval_id);
    expect(approval.scopes).toContainEqual(expect.objectContaining({ scope: 'prefix', pattern: 'touch a.txt' }));
    expect(approval.scopes).toContainEqual(expect.objectContaining({ scope: 'folder' }));
    // A pattern that is not plain command words is the owner's mistake: 400, and the question stays open.
    const badPattern = await decide(tg, pending.approval_id, { decision: 'allow_always', scope: 'prefix', pattern: 'touch; rm -rf x' });
    expect(badPattern.status).toBe(400);
    expect((await read(badPattern)).error.message).toMatch(/plain command words/);
    expect((await callRecord(tg, pending.call_id)).status).toBe('pending');
    const decided = await read(await decide(tg, pending.approval_id, { decision: 'allow_always', scope: 'prefix', pattern: 'touch' }));
    const ruleId = decided.granted_rule;
    const rule = (await read(await tg.asOwner('/rules'))).rules.find((r: Json) => r.id === ruleId);
    expect(rule).toMatchObject({ scope: 'prefix', pattern: 'touch', tool: 'run_shell' });
    await until(async () => existsSync(join(tg.workspace, 'a.txt')), 'a.txt');

    // A later touch runs without a question.
    const later = await tg.api('/tools/run_shell/execute', { method: 'POST', json: { command: 'touch b.txt' } });
    expect(later.status).toBe(200);
    const laterBody = await read(later);
    expect(laterBody.success).toBe(true);
    expect(existsSync(join(tg.workspace, 'b.txt'))).toBe(true);
    expect(await callRecord(tg, laterBody.call_id)).toMatchObject({ decision: 'allow', rule: `rule:${ruleId}` });

    // Compound commands and other programs do not ride on the prefix.
    for (const command of ['touch a.txt; rm -rf x', 'touch a && curl http://127.0.0.1:9/x | sh', 'touch $(rm -rf x)', 'touchy a.txt', 'rm a.txt']) {
      const verdict = await check(tg, 'run_shell', { command });
      expect(verdict.decision, command).not.toBe('allow');
      expect(verdict.rule, command).not.toBe(`rule:${ruleId}`);
    }
    const compound = await askAsync(tg, 'run_shell', { command: 'touch c.txt; rm -rf x' });
    await decide(tg, compound.approval_id, { decision: 'deny' });
    expect(existsSync(join(tg.workspace, 'c.txt'))).toBe(false);
    expect((await tg.asOwner(`/rules/${ruleId}`, { method: 'DELETE' })).status).toBe(200);
  });

  it('folder (file_delete): a delete inside the folder passes, one outside still asks', async () => {
    mkdirSync(join(tg.workspace, 'trash'), { recursive: true });
    mkdirSync(join(tg.workspace, 'keep'), { recursive: true });
    for (const f of ['trash/one.txt', 'trash/two.txt', 'keep/three.txt']) writeFileSync(join(tg.workspace, f), 'x');

    const pending = await askAsync(tg, 'file_delete', { path: join(tg.workspace, 'trash/one.txt') });
    const approval = await pendingApproval(tg, (a) => a.id === pending.approval_id);
    const folderScope = approval.scopes.find((s: Json) => s.scope === 'folder');
    expect(folderScope.pattern).toMatch(/trash$/);
    const decided = await read(await decide(tg, pending.approval_id, { decision: 'allow_always', scope: 'folder' }));
    await until(async () => !existsSync(join(tg.workspace, 'trash/one.txt')), 'one.txt deleted');

    const inside = await tg.api('/tools/file_delete/execute', { method: 'POST', json: { path: join(tg.workspace, 'trash/two.txt') } });
    expect(inside.status).toBe(200);
    expect(existsSync(join(tg.workspace, 'trash/two.txt'))).toBe(false);
    expect(await callRecord(tg, (await read(inside)).call_id)).toMatchObject({ rule: `rule:${decided.granted_rule}` });

    const outside = await askAsync(tg, 'file_delete', { path: join(tg.workspace, 'keep/three.txt') });
    await decide(tg, outside.approval_id, { decision: 'deny' });
    expect(existsSync(join(tg.workspace, 'keep/three.txt'))).toBe(true);
    // A sibling whose name merely starts with the folder's is not inside it.
    expect((await check(tg, 'file_delete', { path: join(tg.workspace, 'trash-other/x.txt') })).rule).not.toBe(`rule:${decided.granted_rule}`);
  });

  it('host (http_post): a host rule allows that host only (checked by dry run; nothing leaves loopback)', async () => {
    const args = { url: 'http://93.184.215.14/submit', body: { a: 1 } };
    expect((await check(tg, 'http_post', args)).decision).toBe('ask');
    // The approval offers the host as a scope; the owner denies this one, so nothing is sent.
    const pending = await askAsync(tg, 'http_post', args);
    const approval = await pendingApproval(tg, (a) => a.id === pending.approval_id);
    expect(approval.scopes).toContainEqual(expect.objectContaining({ scope: 'host', pattern: '93.184.215.14' }));
    await decide(tg, pending.approval_id, { decision: 'deny' });

    const created = await tg.asOwner('/rules', { json: { effect: 'allow', tool: 'http_post', scope: 'host', pattern: '93.184.215.14' } });
    expect(created.status).toBe(201);
    const rule = await read(created);
    expect(await check(tg, 'http_post', args)).toMatchObject({ decision: 'allow', rule: `rule:${rule.id}` });
    expect((await check(tg, 'http_post', { url: 'http://93.184.215.15/submit' })).decision).toBe('ask');
    expect((await tg.asOwner(`/rules/${rule.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await check(tg, 'http_post', args)).decision).toBe('ask');
  });
});

describe('allow rules never widen past a deny', () => {
  it('a catastrophic command stays denied under an allow rule for all of run_shell', async () => {
    const created = await read(await tg.asOwner('/rules', { json: { effect: 'allow', tool: 'run_shell', scope: 'tool' } }));
    try {
      for (const command of ['rm -rf /', 'rm -rf ~']) {
        const verdict = await check(tg, 'run_shell', { command });
        expect(verdict.decision, command).toBe('deny');
        expect(verdict.rule, command).not.toBe(`rule:${created.id}`);
      }
      const res = await tg.api('/tools/run_shell/execute', { method: 'POST', json: { command: 'rm -rf /' } });
      expect(res.status).toBe(403);
      const body = await read(res);
      expect(body.error.name).toBe('POLICY_DENIED');
      expect(await callRecord(tg, body.call_id)).toMatchObject({ status: 'denied', decision: 'deny' });
    } finally {
      await tg.asOwner(`/rules/${created.id}`, { method: 'DELETE' });
    }
  });

  it('a deny rule beats an allow rule, and a denied call never runs', async () => {
    const allowRule = await read(await tg.asOwner('/rules', { json: { effect: 'allow', tool: 'danger_rules', scope: 'tool' } }));
    const denyRule = await read(await tg.asOwner('/rules', { json: { effect: 'deny', tool: 'danger_rules', scope: 'exact', pattern: { note: 'never' } } }));
    expect(await check(tg, 'danger_rules', { note: 'never' })).toMatchObject({ decision: 'deny', rule: `rule:${denyRule.id}` });
    expect(await check(tg, 'danger_rules', { note: 'fine' })).toMatchObject({ decision: 'allow', rule: `rule:${allowRule.id}` });
    const before = runs.danger_rules!;
    const res = await tg.api('/tools/danger_rules/execute', { method: 'POST', json: { note: 'never' } });
    expect(res.status).toBe(403);
    const body = await read(res);
    expect(body.error.name).toBe('POLICY_DENIED');
    expect(body.error.message).toContain(denyRule.id);
    expect(runs.danger_rules).toBe(before);
    expect(await callRecord(tg, body.call_id)).toMatchObject({ decision: 'deny', rule: `rule:${denyRule.id}` });
    // The deny rule did its job on a real call: it is counted, the allow rule is not.
    const ledger = (await read(await tg.asOwner('/rules'))).rules as Json[];
    expect(ledger.find((r) => r.id === denyRule.id)).toMatchObject({ uses: 1 });
    expect(ledger.find((r) => r.id === allowRule.id)).toMatchObject({ uses: 0 });
    await tg.asOwner(`/rules/${allowRule.id}`, { method: 'DELETE' });
    await tg.asOwner(`/rules/${denyRule.id}`, { method: 'DELETE' });
  });

  it('an ask rule turns an allowed call into a question', async () => {
    const askRule = await read(await tg.asOwner('/rules', { json: { effect: 'ask', tool: 'calculate', scope: 'tool' } }));
    expect(await check(tg, 'calculate', { expression: '1+1' })).toMatchObject({ decision: 'ask', rule: `rule:${askRule.id}` });
    const pending = await askAsync(tg, 'calculate', { expression: '1+1' });
    await decide(tg, pending.approval_id, { decision: 'allow_once' });
    await until(async () => (await callRecord(tg, pending.call_id)).status === 'succeeded', 'the calculation');
    await tg.asOwner(`/rules/${askRule.id}`, { method: 'DELETE' });
    expect((await check(tg, 'calculate', { expression: '1+1' })).decision).toBe('allow');
  });
});

describe('the grants ledger', () => {
  it('POST /rules validates with clear 400 messages; DELETE of an unknown rule is 404', async () => {
    const cases: [Json, RegExp][] = [
      [{ effect: 'maybe', tool: 'calculate', scope: 'tool' }, /effect must be one of allow, ask, deny/],
      [{ effect: 'allow', tool: 'bad name!', scope: 'tool' }, /tool must be a tool name/],
      [{ effect: 'allow', tool: 'calculate', scope: 'galaxy' }, /scope must be one of/],
      [{ effect: 'allow', tool: 'calculate', scope: 'tool', colour: 'red' }, /unknown field "colour"/],
      [{ effect: 'allow', tool: 'calculate', scope: 'prefix', pattern: 'git push' }, /prefix rule is for run_shell/],
      [{ effect: 'allow', tool: 'run_shell', scope: 'prefix', pattern: 'git push; rm -rf /' }, /plain command words/],
      [{ effect: 'allow', tool: 'file_delete', scope: 'folder', pattern: 'relative/dir' }, /absolute folder path/],
      [{ effect: 'allow', tool: 'http_post', scope: 'host', pattern: 'http://x/y' }, /host name/],
      [{ effect: 'allow', tool: 'calculate', scope: 'exact' }, /pattern: the arguments object/],
      [{ effect: 'allow', tool: 'calculate', scope: 'tool', expires_at: 'tomorrow-ish' }, /expires_at/],
      [[], /JSON object/],
    ];
    for (const [body, message] of cases) {
      const res = await tg.asOwner('/rules', { json: body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      const error = (await read(res)).error;
      expect(error.name).toBe('INVALID_ARGUMENTS');
      expect(error.message, JSON.stringify(body)).toMatch(message);
    }
    const missing = await tg.asOwner('/rules/r_doesnotexist', { method: 'DELETE' });
    expect(missing.status).toBe(404);
  });

  it('rules hot-apply: a call asks, is allowed once the rule exists, and asks again once it is deleted', async () => {
    expect((await check(tg, 'danger_rules', {})).decision).toBe('ask');
    const created = await tg.asOwner('/rules', { json: { effect: 'allow', tool: 'danger_rules', scope: 'tool', note: 'for the test' } });
    expect(created.status).toBe(201);
    const rule = await read(created);
    expect(rule).toMatchObject({ effect: 'allow', tool: 'danger_rules', scope: 'tool', pattern: null, note: 'for the test', created_by: 'owner', uses: 0, last_used_at: null, expires_at: null });
    expect(rule.created_at).toBeTruthy();
    expect((await read(await tg.asOwner('/rules'))).rules.map((r: Json) => r.id)).toContain(rule.id);

    // A dry run does not count as a use.
    expect(await check(tg, 'danger_rules', {})).toMatchObject({ decision: 'allow', rule: `rule:${rule.id}` });
    expect((await read(await tg.asOwner('/rules'))).rules.find((r: Json) => r.id === rule.id)).toMatchObject({ uses: 0, last_used_at: null });

    // Real calls do.
    const before = runs.danger_rules!;
    for (let i = 0; i < 2; i++) {
      const res = await tg.api('/tools/danger_rules/execute', { method: 'POST', json: { note: `use ${i}` } });
      expect(res.status).toBe(200);
    }
    expect(runs.danger_rules).toBe(before + 2);
    const used = (await read(await tg.asOwner('/rules'))).rules.find((r: Json) => r.id === rule.id);
    expect(used.uses).toBe(2);
    expect(Date.parse(used.last_used_at)).not.toBeNaN();

    expect((await tg.asOwner(`/rules/${rule.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await read(await tg.asOwner('/rules'))).rules.map((r: Json) => r.id)).not.toContain(rule.id);
    expect((await check(tg, 'danger_rules', {})).decision).toBe('ask');
    expect((await tg.asOwner(`/rules/${rule.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('an expired rule no longer applies', async () => {
    const past = new Date(Date.now() - 1000).toISOString();
    const rule = await read(await tg.asOwner('/rules', { json: { effect: 'allow', tool: 'danger_rules', scope: 'tool', expires_at: past } }));
    expect((await check(tg, 'danger_rules', {})).decision).toBe('ask');
    await tg.asOwner(`/rules/${rule.id}`, { method: 'DELETE' });
  });

  it('every decided call in /calls carries its decision and the rule that decided it', async () => {
    const list = (await read(await tg.api('/calls?limit=500'))).calls as Json[];
    const decided = list.filter((c) => c.tool.startsWith('danger_') || c.tool === 'file_delete' || c.tool === 'run_shell');
    expect(decided.length).toBeGreaterThan(10);
    for (const call of decided) {
      expect(['allow', 'ask', 'deny'], call.id).toContain(call.decision);
      expect(call.rule, call.id).toMatch(/^(approval:a_|rule:r_|risk:|shell:|path:|command:|catastrophic|policy:|[a-z_]+:)/);
      if (call.decision === 'ask' && ['succeeded', 'denied'].includes(call.status) && call.error?.name !== 'APPROVAL_TIMEOUT') {
        expect(call.rule, call.id).toMatch(/^(approval:a_|rule:r_)/);
      }
    }
  });
});

describe('the owner alone decides', () => {
  it('a client token cannot decide its approval (403), and the call stays pending', async () => {
    const pending = await askAsync(tg, 'danger_count', { note: 'self-approve' });
    const before = runs.danger_count!;
    for (const decision of [{ decision: 'allow_once' }, { decision: 'allow_always', scope: 'tool' }, { decision: 'deny' }]) {
      const res = await tg.api(`/approvals/${pending.approval_id}`, { method: 'POST', json: decision });
      expect(res.status).toBe(403);
      // Even with the gateway's own Origin added, a token is not the owner.
      const withOrigin = await tg.api(`/approvals/${pending.approval_id}`, { method: 'POST', json: decision, headers: { origin: tg.url } });
      expect(withOrigin.status).toBe(403);
    }
    expect(runs.danger_count).toBe(before);
    expect((await callRecord(tg, pending.call_id)).status).toBe('pending');
    expect((await read(await tg.asOwner(`/approvals/${pending.approval_id}`))).status).toBe('pending');
    expect((await read(await tg.asOwner('/rules'))).rules.some((r: Json) => r.tool === 'danger_count')).toBe(false);
    await decide(tg, pending.approval_id, { decision: 'deny' });
  });

  it('an owner cookie without the gateway Origin cannot decide either', async () => {
    const pending = await askAsync(tg, 'danger_count', { note: 'csrf' });
    const { cookie } = await tg.ownerHeaders();
    const res = await fetch(`${tg.url}/approvals/${pending.approval_id}`, {
      method: 'POST',
      headers: { cookie: cookie!, origin: 'http://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'allow_once' }),
    });
    expect(res.status).toBe(403);
    expect((await callRecord(tg, pending.call_id)).status).toBe('pending');
    await decide(tg, pending.approval_id, { decision: 'deny' });
  });

  it('a client token cannot write rules, toggle tools, set tool sets or pause', async () => {
    const rule = await read(await tg.asOwner('/rules', { json: { effect: 'deny', tool: 'danger_rules', scope: 'tool' } }));
    const attempts: [string, string, Json][] = [
      ['POST', '/rules', { effect: 'allow', tool: 'danger_count', scope: 'tool' }],
      ['DELETE', `/rules/${rule.id}`, undefined],
      ['PATCH', '/tools/calculate', { enabled: false }],
      ['PUT', '/clients/default/tools', { tools: null, max_tools: null }],
      ['PUT', '/clients/x/tools', { tools: ['calculate'] }],
      ['PATCH', '/settings', { paused: true }],
    ];
    for (const [method, path, json] of attempts) {
      const res = await tg.api(path, { method, ...(json !== undefined && { json }) });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    expect((await tg.api('/clients')).status).toBe(403);
    expect((await tg.api('/settings')).status).toBe(403);
    const rules = (await read(await tg.api('/rules'))).rules as Json[];
    expect(rules.map((r) => r.id)).toContain(rule.id);
    expect(rules.some((r) => r.tool === 'danger_count')).toBe(false);
    expect((await read(await tg.api('/tools/calculate'))).enabled).toBe(true);
    expect(tg.gateway.access.paused).toBe(false);
    await tg.asOwner(`/rules/${rule.id}`, { method: 'DELETE' });
  });

  it('GET /approvals shows a client only its own; the owner sees all', async () => {
    const aliceToken = tg.gateway.credentials.createClient('alice-approvals');
    const mine = await askAsync(tg, 'danger_count', { note: 'default' });
    const hers = await askAsync(tg, 'danger_count', { note: 'alice' }, aliceToken);
    const ids = (list: Json) => (list.approvals as Json[]).map((a) => a.id);
    const forDefault = await read(await tg.api('/approvals'));
    expect(ids(forDefault)).toContain(mine.approval_id);
    expect(ids(forDefault)).not.toContain(hers.approval_id);
    const forAlice = await read(await as(tg, aliceToken, '/approvals'));
    expect(ids(forAlice)).toEqual([hers.approval_id]);
    expect(forAlice.approvals[0]).toMatchObject({ client: 'alice-approvals' });
    expect((await as(tg, aliceToken, `/approvals/${mine.approval_id}`)).status).toBe(404);
    const forOwner = await read(await tg.asOwner('/approvals'));
    expect(ids(forOwner)).toEqual(expect.arrayContaining([mine.approval_id, hers.approval_id]));
    await decide(tg, mine.approval_id, { decision: 'deny' });
    await decide(tg, hers.approval_id, { decision: 'deny' });
    expect(await callRecord(tg, hers.call_id)).toMatchObject({ client: 'alice-approvals' });
  });
});

describe('per-client tool sets and the pause switch', () => {
  it('a client with a tool set sees and calls only those tools; others are unaffected', async () => {
    const aliceToken = tg.gateway.credentials.createClient('alice');
    const put = await tg.asOwner('/clients/alice/tools', { method: 'PUT', json: { tools: ['calculate'] } });
    expect(put.status).toBe(200);
    expect(await read(put)).toEqual({ name: 'alice', tools: ['calculate'] });
    await events.next((e) => e.event === 'tools' && e.data.reason === 'client:alice');

    const openai = await read(await as(tg, aliceToken, '/tools/openai'));
    expect(openai.tools.map((t: Json) => t.function.name)).toEqual(['calculate']);
    const anthropic = await read(await as(tg, aliceToken, '/tools/anthropic'));
    expect(anthropic.tools.map((t: Json) => t.name)).toEqual(['calculate']);
    const listed = await read(await as(tg, aliceToken, '/tools'));
    expect(listed.tools.map((t: Json) => t.name)).toEqual(['calculate']);
    const openapi = await read(await as(tg, aliceToken, '/openapi.json'));
    expect(Object.keys(openapi.paths)).toHaveLength(1);
    expect(Object.keys(openapi.paths)[0]).toContain('calculate');

    const ok = await as(tg, aliceToken, '/tools/calculate/execute', { json: { expression: '6*7' } });
    expect(ok.status).toBe(200);
    const refused = await as(tg, aliceToken, '/tools/get_time/execute', { json: {} });
    expect(refused.status).toBe(409);
    const refusal = await read(refused);
    expect(refusal.error.name).toBe('TOOL_DISABLED');
    expect(refusal.error.message).toContain('alice');
    expect(await callRecord(tg, refusal.call_id)).toMatchObject({ client: 'alice', status: 'failed' });
    // A dry run is refused the same way.
    expect((await as(tg, aliceToken, '/policy/check', { json: { name: 'get_time', arguments: {} } })).status).toBe(409);

    // The default client still has everything.
    expect((await tg.api('/tools/get_time/execute', { method: 'POST', json: {} })).status).toBe(200);
    expect((await read(await tg.api('/tools/openai'))).tools.length).toBeGreaterThan(1);

    // The owner's view lists alice's profile; null restores every tool.
    const clients = (await read(await tg.asOwner('/clients'))).clients as Json[];
    expect(clients.find((c) => c.name === 'alice')).toMatchObject({ tools: ['calculate'] });
    await tg.asOwner('/clients/alice/tools', { method: 'PUT', json: { tools: null } });
    expect((await as(tg, aliceToken, '/tools/get_time/execute', { json: {} })).status).toBe(200);
  });

  it('rejects unknown tools in a tool set and a bad max_tools with 400', async () => {
    const res = await tg.asOwner('/clients/alice/tools', { method: 'PUT', json: { tools: ['no_such_tool'] } });
    expect(res.status).toBe(400);
    expect((await read(res)).error.message).toContain('no_such_tool');
    const cap = await tg.asOwner('/clients/alice/tools', { method: 'PUT', json: { tools: null, max_tools: 0 } });
    expect(cap.status).toBe(400);
    expect((await read(cap)).error.message).toMatch(/max_tools/);
  });

  it('a budget cuts a client list to its pinned tools and search_tools, says so in a warning, and Anthropic defers the rest', async () => {
    const token = tg.gateway.credentials.createClient('capped');
    expect((await tg.asOwner('/clients/capped/budget', { method: 'PUT', json: { max_tools: 3, pinned: ['calculate', 'get_time'] } })).status).toBe(200);
    const openai = await read(await as(tg, token, '/tools/openai'));
    expect(openai.tools.map((t: Json) => t.function.name).sort()).toEqual(['calculate', 'get_time', 'search_tools']);
    expect(openai.warning).toMatch(/budget lists 3/);
    const anthropic = await read(await as(tg, token, '/tools/anthropic'));
    expect(anthropic.tools.filter((t: Json) => !t.defer_loading)).toHaveLength(3);
    expect(anthropic.tools.filter((t: Json) => t.defer_loading === true).length).toBeGreaterThan(0);
    expect(anthropic.warning).toMatch(/budget lists 3/);
    expect((await read(await tg.api('/tools/openai'))).warning).toBeUndefined();
  });

  it('pause refuses every call (clients and owner) with 409 TOOLS_PAUSED until resumed', async () => {
    const paused = await tg.asOwner('/settings', { method: 'PATCH', json: { paused: true } });
    expect(paused.status).toBe(200);
    expect(await read(paused)).toMatchObject({ paused: true });
    await events.next((e) => e.event === 'tools' && e.data.reason === 'paused');
    try {
      const byClient = await tg.api('/tools/calculate/execute', { method: 'POST', json: { expression: '1+1' } });
      expect(byClient.status).toBe(409);
      const body = await read(byClient);
      expect(body.error.name).toBe('TOOLS_PAUSED');
      expect(body.error.message).toMatch(/paused/);
      const byOwner = await tg.asOwner('/tools/calculate/execute', { json: { expression: '1+1' } });
      expect(byOwner.status).toBe(409);
      expect((await read(byOwner)).error.name).toBe('TOOLS_PAUSED');
      expect((await read(await tg.api('/tools'))).paused).toBe(true);
      expect((await read(await tg.asOwner('/settings'))).paused).toBe(true);
      expect((await tg.asOwner('/settings', { method: 'PATCH', json: { paused: 'yes' } })).status).toBe(400);
    } finally {
      await tg.asOwner('/settings', { method: 'PATCH', json: { paused: false } });
    }
    await events.next((e) => e.event === 'tools' && e.data.reason === 'resumed');
    expect((await tg.api('/tools/calculate/execute', { method: 'POST', json: { expression: '1+1' } })).status).toBe(200);
  });
});

describe('events', () => {
  it('approval requested carries everything a popup needs; resolved follows the decision', async () => {
    const pending = await askAsync(tg, 'danger_count', { note: 'popup' });
    const requested = await events.next((e) => e.event === 'approval' && e.data.phase === 'requested' && e.data.approval.id === pending.approval_id);
    const a = requested.data.approval;
    expect(a).toMatchObject({
      call_id: pending.call_id,
      tool: 'danger_count',
      arguments: { note: 'popup' },
      client: 'default',
      risk: 'dangerous',
      rule: 'risk:dangerous',
      status: 'pending',
    });
    expect(a.reason).toMatch(/dangerous/);
    expect(Date.parse(a.expires_at)).not.toBeNaN();
    expect(a.scopes.map((s: Json) => s.scope)).toEqual(['exact', 'tool']);
    expect(a.scopes.every((s: Json) => typeof s.label === 'string')).toBe(true);
    const callPending = await events.next((e) => e.event === 'call' && e.data.phase === 'pending' && e.data.call.id === pending.call_id);
    expect(callPending.data.call.tool).toBe('danger_count');

    await decide(tg, pending.approval_id, { decision: 'deny', message: 'no' });
    const resolved = await events.next((e) => e.event === 'approval' && e.data.phase === 'resolved' && e.data.approval.id === pending.approval_id);
    expect(resolved.data.approval).toMatchObject({ status: 'denied', decision: 'deny', message: 'no', decided_by: 'owner' });
  });

  it('rules added and removed are announced, whoever wrote them', async () => {
    const created = await read(await tg.asOwner('/rules', { json: { effect: 'deny', tool: 'danger_count', scope: 'tool', note: 'announced' } }));
    const added = await events.next((e) => e.event === 'rules' && e.data.change === 'added' && e.data.rule.id === created.id);
    expect(added.data.rule).toMatchObject({ effect: 'deny', tool: 'danger_count', note: 'announced' });
    expect((await tg.asOwner(`/rules/${created.id}`, { method: 'DELETE' })).status).toBe(200);
    await events.next((e) => e.event === 'rules' && e.data.change === 'removed' && e.data.rule.id === created.id);
  });

  it('redacts secrets in the arguments an approval shows', async () => {
    const pending = await askAsync(tg, 'http_post', { url: 'http://93.184.215.14/x', headers: { Authorization: 'Bearer sk-very-secret-123456789' } });
    const requested = await events.next((e) => e.event === 'approval' && e.data.phase === 'requested' && e.data.approval.id === pending.approval_id);
    expect(JSON.stringify(requested.data)).not.toContain('sk-very-secret-123456789');
    await decide(tg, pending.approval_id, { decision: 'deny' });
  });
});

describe('a flood of asks', () => {
  it('200 simultaneous asks from 10 clients: the gateway keeps answering, every call is denied and recorded exactly once', async () => {
    const clients = Array.from({ length: 10 }, (_, i) => tg.gateway.credentials.createClient(`flood-${i}`));
    const before = runs.danger_flood!;
    const waiting = Array.from({ length: 200 }, (_, i) => as(tg, clients[i % 10]!, '/tools/danger_flood/execute', { json: { note: `n${i}` } }));
    await until(async () => (await pendingCount(tg, 'danger_flood')) === 200, '200 pending approvals', 30_000);
    const health = await fetch(`${tg.url}/health`);
    expect(health.status).toBe(200);
    expect((await tg.api('/tools/calculate/execute', { method: 'POST', json: { expression: '2+2' } })).status).toBe(200);

    const approvals = ((await read(await tg.asOwner('/approvals'))).approvals as Json[]).filter((a) => a.tool === 'danger_flood');
    expect(new Set(approvals.map((a) => a.id)).size).toBe(200);
    const decisions = await Promise.all(approvals.map((a) => decide(tg, a.id, { decision: 'deny', message: 'flood' })));
    expect(decisions.every((r) => r.status === 200)).toBe(true);

    const answers = await Promise.all(waiting);
    expect(answers.every((r) => r.status === 403)).toBe(true);
    const bodies = await Promise.all(answers.map(read));
    expect(bodies.every((b) => b.error.name === 'APPROVAL_DENIED')).toBe(true);
    expect(runs.danger_flood).toBe(before);

    const recorded = ((await read(await tg.asOwner('/calls?tool=danger_flood&limit=500'))).calls as Json[]);
    expect(recorded).toHaveLength(200);
    expect(new Set(recorded.map((c) => c.id))).toEqual(new Set(bodies.map((b) => b.call_id)));
    expect(recorded.every((c) => c.status === 'denied' && c.rule.startsWith('approval:a_'))).toBe(true);
    expect(await pendingCount(tg, 'danger_flood')).toBe(0);
  }, 60_000);

  it('the 21st pending ask from one client is refused with 429 TOO_MANY_APPROVALS', async () => {
    const token = tg.gateway.credentials.createClient('greedy');
    const opened = [];
    for (let i = 0; i < 20; i++) opened.push(await askAsync(tg, 'danger_cap', { note: `c${i}` }, token));
    const over = await as(tg, token, '/tools/danger_cap/execute', { json: { note: 'one too many' }, headers: ASYNC });
    expect(over.status).toBe(429);
    const body = await read(over);
    expect(body.error.name).toBe('TOO_MANY_APPROVALS');
    expect(body.error.message).toMatch(/greedy already has 20/);
    expect(await callRecord(tg, body.call_id)).toMatchObject({ status: 'denied', client: 'greedy' });
    // Another client is not held back by this one.
    const other = await askAsync(tg, 'danger_cap', { note: 'other' });
    for (const p of [...opened, other]) await decide(tg, p.approval_id, { decision: 'deny' });
    expect(runs.danger_cap).toBe(0);
  });
});

describe('restart', () => {
  it('keeps rules and the pause switch; a pending approval at stop is refused, recorded cancelled, and gone after restart', async () => {
    const dataDir = tempDir();
    const roots = [tempDir('pincer-root-')];
    let first: TestGateway | undefined = await startGateway({ dataDir, roots, approvalTimeoutS: 60 }, { extraTools: EXTRA_TOOLS });
    let second: TestGateway | undefined;
    try {
      const rule = await read(await first.asOwner('/rules', { json: { effect: 'allow', tool: 'danger_restart', scope: 'exact', pattern: { note: 'kept' } } }));
      const waiting = first.api('/tools/danger_restart/execute', { method: 'POST', json: { note: 'stale' } });
      const approval = await pendingApproval(first, (a) => a.tool === 'danger_restart');
      const asyncPending = await askAsync(first, 'danger_restart', { note: 'stale async' });

      await first.close();
      first = undefined;
      const res = await waiting;
      expect(res.status).toBe(503);
      const body = await read(res);
      expect(body.error.name).toBe('CALL_CANCELLED');
      expect(runs.danger_restart).toBe(0);

      second = await startGateway({ dataDir, roots, approvalTimeoutS: 60 }, { extraTools: EXTRA_TOOLS });
      expect((await read(await second.asOwner('/approvals'))).count).toBe(0);
      expect((await decide(second, approval.id, { decision: 'allow_once' })).status).toBe(404);
      expect((await read(await second.api(`/calls/${approval.call_id}`))).status).toBe('cancelled');
      expect((await read(await second.api(`/calls/${asyncPending.call_id}`))).status).toBe('cancelled');
      expect(runs.danger_restart).toBe(0);

      const rules = (await read(await second.asOwner('/rules'))).rules as Json[];
      expect(rules.find((r) => r.id === rule.id)).toMatchObject({ effect: 'allow', tool: 'danger_restart', scope: 'exact' });
      const kept = await second.api('/tools/danger_restart/execute', { method: 'POST', json: { note: 'kept' } });
      expect(kept.status).toBe(200);
      expect(runs.danger_restart).toBe(1);
      expect((await read(await second.asOwner('/rules'))).rules.find((r: Json) => r.id === rule.id).uses).toBe(1);

      // Pause survives a restart too.
      await second.asOwner('/settings', { method: 'PATCH', json: { paused: true } });
      await second.close();
      second = await startGateway({ dataDir, roots, approvalTimeoutS: 60 }, { extraTools: EXTRA_TOOLS });
      const refused = await second.api('/tools/calculate/execute', { method: 'POST', json: { expression: '1+1' } });
      expect(refused.status).toBe(409);
      expect((await read(refused)).error.name).toBe('TOOLS_PAUSED');
      await second.asOwner('/settings', { method: 'PATCH', json: { paused: false } });
      expect((await second.api('/tools/calculate/execute', { method: 'POST', json: { expression: '1+1' } })).status).toBe(200);
    } finally {
      await first?.close();
      await second?.close();
    }
  }, 30_000);
});

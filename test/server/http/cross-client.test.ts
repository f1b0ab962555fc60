import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool } from '../../../server/index.js';
import { EventStream, type SseEvent } from '../../helpers/events.js';
import { readJson, startGateway, type TestGateway } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';

/**
 * What one client may learn of another through the owner's rules, the `tools` events and its own approval cards,
 * through real HTTP with two client tokens and the owner's session. A client learns nothing of another client's
 * calls, arguments, tool set or existence; the owner (the dashboard) still gets everything whole.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** Names no random id or temp folder can hold by chance (neither has a "-" followed by letters like these). */
const ALICE = 'alice-cc';
const BOB = 'bob-cc';
const SECRET = 'hunter2';

/** A dangerous tool (every call asks) whose arguments hold a secret under a secret-named key. */
const deploy = defineTool<{ target: string; password: string }, { deployed: string }>({
  name: 'deploy_cc',
  description: 'Test tool: asks before every call; holds a password.',
  parameters: {
    type: 'object',
    properties: { target: { type: 'string' }, password: { type: 'string' } },
    required: ['target', 'password'],
    additionalProperties: false,
  },
  category: 'test',
  risk: 'dangerous',
  annotations: { readOnlyHint: false, destructiveHint: true },
  handler: (args) => ({ deployed: args.target }),
});

let tg: TestGateway;
const tokens: Record<string, string> = {};
let streams: { alice: EventStream; bob: EventStream; owner: EventStream };

function as(client: string, path: string, init: { method?: string; json?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
  return tg.api(path, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    json: init.json,
    headers: { authorization: `Bearer ${tokens[client]}`, ...init.headers },
  });
}

function streamAs(client: string): Promise<EventStream> {
  return EventStream.open({ ...tg, api: (path, init = {}) => tg.api(path, { ...init, headers: { ...(init.headers as object), authorization: `Bearer ${tokens[client]}` } }) });
}

/**
 * A call of the client's own, seen ended on its stream: every event published before it has reached that stream
 * by then (a stream gets its events in order), so what is not there was never sent to it.
 */
async function mark(client: 'alice' | 'bob'): Promise<void> {
  const body = await readJson(await as(client === 'alice' ? ALICE : BOB, '/tools/calculate/execute', { json: { expression: '1+1' } }));
  expect(body.success, JSON.stringify(body)).toBe(true);
  await streams[client].next((e) => e.event === 'call' && e.data.call.id === body.call_id && e.data.phase === 'succeeded');
}

const text = (events: SseEvent[]) => JSON.stringify(events);

beforeAll(async () => {
  tg = await startGateway({ approvalTimeoutS: 60 }, { extraTools: [deploy], loadPlugins: false });
  for (const name of [ALICE, BOB]) {
    const res = await tg.asOwner('/clients', { json: { name } });
    expect(res.status).toBe(201);
    tokens[name] = (await readJson(res)).token;
  }
  streams = { alice: await streamAs(ALICE), bob: await streamAs(BOB), owner: await EventStream.openAsOwner(tg) };
});
afterAll(async () => {
  await Promise.all(Object.values(streams ?? {}).map((stream) => stream.close()));
  await tg?.close();
});

describe("rules made from another client's call", () => {
  let ruleId: string;
  const bobsCall = { target: 'prod-db', password: SECRET };

  beforeAll(async () => {
    // bob's call asks; the owner allows it always, for this exact call: the rule holds bob's arguments.
    const asked = await readJson(await as(BOB, '/tools/deploy_cc/execute', { json: bobsCall, headers: { prefer: 'respond-async' } }));
    expect(asked.approval_id, JSON.stringify(asked)).toEqual(expect.any(String));
    const decided = await readJson(await tg.asOwner(`/approvals/${asked.approval_id}`, { json: { decision: 'allow_always', scope: 'exact' } }));
    ruleId = decided.granted_rule;
    expect(ruleId).toMatch(/^r_/);
    await streams.owner.next((e) => e.event === 'call' && e.data.call.id === asked.call_id && e.data.phase === 'succeeded');
    await mark('alice');
    await mark('bob');
  });

  it('a client reads the ledger without patterns or notes, whichever client the rule came from', async () => {
    for (const client of [ALICE, BOB]) {
      const res = await as(client, '/rules');
      expect(res.status).toBe(200);
      const body = await readJson(res);
      const rule = (body.rules as Json[]).find((r) => r.id === ruleId);
      expect(rule).toMatchObject({ effect: 'allow', tool: 'deploy_cc', scope: 'exact', pattern: null, note: null });
      expect(JSON.stringify(body)).not.toContain('prod-db');
    }
  });

  it('a client stream carries the `rules` event without the pattern', async () => {
    for (const stream of [streams.alice, streams.bob]) {
      const added = await stream.next((e) => e.event === 'rules' && e.data.change === 'added' && e.data.rule.id === ruleId);
      expect(added.data.rule).toMatchObject({ scope: 'exact', pattern: null, note: null });
    }
    expect(text(streams.alice.events)).not.toContain('prod-db');
  });

  it('the owner reads the rule (secret redacted) on GET /rules and as a `rules` event', async () => {
    const { rules } = await readJson(await tg.asOwner('/rules'));
    const rule = (rules as Json[]).find((r) => r.id === ruleId);
    expect(rule).toMatchObject({ effect: 'allow', tool: 'deploy_cc', scope: 'exact' });
    expect(rule.pattern).toContain('prod-db');
    expect(rule.pattern).toContain('[REDACTED]');
    expect(rule.pattern).not.toContain(SECRET);
    const added = await streams.owner.next((e) => e.event === 'rules' && e.data.change === 'added' && e.data.rule.id === ruleId);
    expect(added.data.rule.pattern).toContain('prod-db');
  });

  it("a client's dry run cannot test guesses of the redacted secret: right and wrong guesses get the same refusal", async () => {
    const answers: string[] = [];
    for (const guess of ['123456', 'letmein', SECRET]) {
      const res = await as(ALICE, '/policy/check', { json: { name: 'deploy_cc', arguments: { ...bobsCall, password: guess } } });
      expect(res.status, guess).toBe(403);
      const body = await readJson(res);
      expect(body.error.name).toBe('FORBIDDEN');
      expect(body.error.message).toMatch(/secret/);
      answers.push(JSON.stringify(body.error));
    }
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).not.toContain(ruleId);
  });

  it("the owner's dry run still names the rule that decides, and only the real value matches it", async () => {
    const right = await readJson(await tg.asOwner('/policy/check', { json: { name: 'deploy_cc', arguments: bobsCall } }));
    expect(right).toMatchObject({ decision: 'allow', rule: `rule:${ruleId}` });
    const wrong = await readJson(await tg.asOwner('/policy/check', { json: { name: 'deploy_cc', arguments: { ...bobsCall, password: 'letmein' } } }));
    expect(wrong.decision).toBe('ask');
  });

  it("a client's dry run decided by one of the owner's rules gets the decision and the rule's id, not what the rule says", async () => {
    const made = await readJson(await tg.asOwner('/rules', { json: { effect: 'allow', tool: 'deploy_cc', scope: 'exact', pattern: { target: 'staging', password: '' } } }));
    try {
      const dryRun = { name: 'deploy_cc', arguments: { target: 'staging', password: '' } };
      const res = await as(ALICE, '/policy/check', { json: dryRun });
      expect(res.status).toBe(200);
      const verdict = await readJson(res);
      expect(verdict).toEqual({ decision: 'allow', rule: `rule:${made.id}`, reason: `The owner's rule ${made.id} allows this call.` });
      expect(await readJson(await tg.asOwner('/policy/check', { json: dryRun }))).toMatchObject({ decision: 'allow', rule: `rule:${made.id}` });
    } finally {
      await tg.asOwner(`/rules/${made.id}`, { method: 'DELETE' });
    }
  });
});

describe('`tools` events about one client', () => {
  it("another client's tool set reaches the owner and that client only", async () => {
    const put = await tg.asOwner(`/clients/${BOB}/tools`, { method: 'PUT', json: { tools: ['calculate', 'file_read'] } });
    try {
      expect(put.status).toBe(200);
      const forOwner = await streams.owner.next((e) => e.event === 'tools' && e.data.reason === `client:${BOB}`);
      expect(forOwner.data.names).toEqual(['calculate', 'file_read']);
      // bob learns of its own change, with its tools.
      const forBob = await streams.bob.next((e) => e.event === 'tools' && e.data.reason === `client:${BOB}`);
      expect(forBob.data.names).toEqual(['calculate', 'file_read']);
      await mark('alice');
      expect(text(streams.alice.events)).not.toContain(BOB);
    } finally {
      await tg.asOwner(`/clients/${BOB}/tools`, { method: 'PUT', json: { tools: null } });
    }
  });

  it('a client created and revoked is announced to the owner only', async () => {
    const name = 'hr-payroll-bot';
    expect((await tg.asOwner('/clients', { json: { name } })).status).toBe(201);
    expect((await tg.asOwner(`/clients/${name}`, { method: 'DELETE' })).status).toBe(200);
    await until(() => streams.owner.events.filter((e) => e.event === 'tools' && e.data.reason === `client:${name}`).length === 2, 'both events');
    await mark('alice');
    await mark('bob');
    for (const stream of [streams.alice, streams.bob]) expect(text(stream.events)).not.toContain(name);
  });

  it('a client still learns when its own tool set changes', async () => {
    const put = await tg.asOwner(`/clients/${ALICE}/tools`, { method: 'PUT', json: { tools: ['calculate'] } });
    try {
      expect(put.status).toBe(200);
      const event = await streams.alice.next((e) => e.event === 'tools' && e.data.reason === `client:${ALICE}`);
      expect(event.data.names).toEqual(['calculate']);
      await mark('bob');
      expect(text(streams.bob.events)).not.toContain(ALICE);
    } finally {
      await tg.asOwner(`/clients/${ALICE}/tools`, { method: 'PUT', json: { tools: null } });
    }
    await streams.alice.next((e) => e.event === 'tools' && e.data.reason === `client:${ALICE}` && e.data.names.length === 0);
  });
});

/** `client` writes `dir`/Makefile through file_write; answers the call's id. */
async function writeMakefile(client: string, dir: string, content: string): Promise<string> {
  const body = await readJson(await as(client, '/tools/file_write/execute', { json: { path: join(dir, 'Makefile'), content } }));
  expect(body.success, JSON.stringify(body)).toBe(true);
  return body.call_id;
}

describe("a client's approval card and files other clients wrote", () => {
  let dir: string;
  let bobsWrite: string;
  let alicesWrite: string;
  let approvalId: string;
  let makeRule: string;

  const write = (client: string, content: string) => writeMakefile(client, dir, content);

  beforeAll(async () => {
    dir = join(realpathSync(tg.workspace), 'cards');
    mkdirSync(dir);
    // A standing grant for make, made before the writes: the card's reason then says who wrote the Makefile since.
    makeRule = (await readJson(await tg.asOwner('/rules', { json: { effect: 'allow', tool: 'run_shell', scope: 'prefix', pattern: 'make' } }))).id;
    // Both wrote the Makefile that alice's make runs: the card has an entry for each.
    alicesWrite = await write(ALICE, 'all:\n\ttrue\n');
    bobsWrite = await write(BOB, 'all:\n\ttrue\n');
    const asked = await readJson(await as(ALICE, '/tools/run_shell/execute', { json: { command: 'make', cwd: dir }, headers: { prefer: 'respond-async' } }));
    expect(asked.approval_id, JSON.stringify(asked)).toEqual(expect.any(String));
    approvalId = asked.approval_id;
  });
  afterAll(async () => {
    await tg.asOwner(`/approvals/${approvalId}`, { json: { decision: 'deny' } });
    await tg.asOwner(`/rules/${makeRule}`, { method: 'DELETE' });
  });

  /** alice's card as she reads it: bob's write is there as another client's, without bob's name or call. */
  const expectAlicesView = (card: Json) => {
    expect(card.provenance).toEqual([
      { path: join(dir, 'Makefile'), by: 'make', client: 'another client', tool: 'file_write', at: expect.any(String) },
      { path: join(dir, 'Makefile'), by: 'make', client: ALICE, tool: 'file_write', call_id: alicesWrite, at: expect.any(String) },
    ]);
    expect(card.rule).toBe('provenance:client-written');
    expect(card.reason).toContain(`another client wrote ${join(dir, 'Makefile')}`);
    expect(JSON.stringify(card)).not.toContain(BOB);
    expect(JSON.stringify(card)).not.toContain(bobsWrite);
  };

  it('GET /approvals and GET /approvals/{id} leave out the other client and its call', async () => {
    const { approvals } = await readJson(await as(ALICE, '/approvals'));
    expect(approvals.map((a: Json) => a.id)).toEqual([approvalId]);
    expectAlicesView(approvals[0]);
    expectAlicesView(await readJson(await as(ALICE, `/approvals/${approvalId}`)));
  });

  it('the `approval` event on her stream does too, and the live row of her waiting call', async () => {
    const event = await streams.alice.next((e) => e.event === 'approval' && e.data.phase === 'requested' && e.data.approval.id === approvalId);
    expectAlicesView(event.data.approval);
    const row = await streams.alice.next((e) => e.event === 'call' && e.data.call.id === event.data.approval.call_id && e.data.phase === 'pending');
    expect(row.data.call.reason).toContain(`another client wrote ${join(dir, 'Makefile')}`);
    expect(text(streams.alice.events)).not.toContain(bobsWrite);
    expect(text(streams.alice.events)).not.toContain(BOB);
  });

  it('the owner reads the whole card: both clients, their calls, in the list, the card and the event', async () => {
    const whole = [
      { path: join(dir, 'Makefile'), by: 'make', client: BOB, tool: 'file_write', call_id: bobsWrite, at: expect.any(String) },
      { path: join(dir, 'Makefile'), by: 'make', client: ALICE, tool: 'file_write', call_id: alicesWrite, at: expect.any(String) },
    ];
    const listed = ((await readJson(await tg.asOwner('/approvals'))).approvals as Json[]).find((a) => a.id === approvalId);
    expect(listed.provenance).toEqual(whole);
    expect(listed.reason).toContain(`client "${BOB}" wrote ${join(dir, 'Makefile')}`);
    expect((await readJson(await tg.asOwner(`/approvals/${approvalId}`))).provenance).toEqual(whole);
    const event = await streams.owner.next((e) => e.event === 'approval' && e.data.phase === 'requested' && e.data.approval.id === approvalId);
    expect(event.data.approval).toEqual(listed);
    const row = await streams.owner.next((e) => e.event === 'call' && e.data.call.id === listed.call_id && e.data.phase === 'pending');
    expect(row.data.call.reason).toContain(`client "${BOB}" wrote`);
  });
});

describe("a client's own history and refusals, where other clients wrote the files a command runs", () => {
  let dir: string;
  let makeRule: string;

  const write = (client: string, content: string) => writeMakefile(client, dir, content);

  beforeAll(async () => {
    dir = join(realpathSync(tg.workspace), 'history');
    mkdirSync(dir);
    makeRule = (await readJson(await tg.asOwner('/rules', { json: { effect: 'allow', tool: 'run_shell', scope: 'prefix', pattern: 'make' } }))).id;
  });
  afterAll(async () => {
    await tg.asOwner(`/rules/${makeRule}`, { method: 'DELETE' });
  });

  it('her call in the history reads "another client"; the owner reads the name', async () => {
    const bobsWrite = await write(BOB, 'all:\n\ttrue\n');
    const asked = await readJson(await as(ALICE, '/tools/run_shell/execute', { json: { command: 'make', cwd: dir }, headers: { prefer: 'respond-async' } }));
    await tg.asOwner(`/approvals/${asked.approval_id}`, { json: { decision: 'deny' } });
    const hers = await readJson(await as(ALICE, `/calls/${asked.call_id}`));
    expect(hers.reason).toContain(`another client wrote ${join(dir, 'Makefile')}`);
    expect(JSON.stringify(hers)).not.toContain(BOB);
    expect(JSON.stringify(hers)).not.toContain(bobsWrite);
    const listed = ((await readJson(await as(ALICE, '/calls?tool=run_shell'))).calls as Json[]).find((c) => c.id === asked.call_id);
    expect(JSON.stringify(listed)).not.toContain(BOB);
    expect((await readJson(await tg.asOwner(`/calls/${asked.call_id}`))).reason).toContain(`client "${BOB}" wrote`);
  });

  it('a FILES_CHANGED refusal answers her without the other client, in its message, its details and her history', async () => {
    // A folder of its own: the card waited for is this call's, not the one above.
    dir = join(realpathSync(tg.workspace), 'changed');
    mkdirSync(dir);
    await write(BOB, 'all:\n\ttrue\n');
    const pending = as(ALICE, '/tools/run_shell/execute', { json: { command: 'make', cwd: dir } });
    const card = await streams.owner.next((e) => e.event === 'approval' && e.data.phase === 'requested' && JSON.stringify(e.data.approval).includes(dir));
    const bobsRewrite = await write(BOB, 'all:\n\techo changed\n');
    await tg.asOwner(`/approvals/${card.data.approval.id}`, { json: { decision: 'allow_once' } });
    const answer = await readJson(await pending);
    expect(answer.error.name).toBe('FILES_CHANGED');
    expect(answer.error.message).toContain('another client');
    expect(JSON.stringify(answer)).not.toContain(BOB);
    expect(JSON.stringify(answer)).not.toContain(bobsRewrite);
    const hers = await readJson(await as(ALICE, `/calls/${answer.call_id}`));
    expect(hers.error).toMatchObject({ name: 'FILES_CHANGED' });
    expect(JSON.stringify(hers)).not.toContain(BOB);
    expect((await readJson(await tg.asOwner(`/calls/${answer.call_id}`))).error.message).toContain(`client "${BOB}"`);
  });
});

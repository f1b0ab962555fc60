import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, tempDir, type TestGateway } from '../../../helpers/gateway.js';
import { until } from '../../../helpers/wait.js';
import { startStubLlm, type StubLlm } from '../../llm/stub-llm.js';
import { fake } from '../../../helpers/secret-samples.js';

/**
 * An imported MCP server's own requests while a client's call to it runs: its question to the user (elicitation)
 * reaches the owner as an approval tied to the client whose call caused it and the owner's answer goes back to the
 * server; its request to use the model (sampling) is refused unless the owner allowed it, then approved one by one;
 * it is told the roots. All through a real gateway, a real stdio server and the HTTP API.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const ASKER = resolve(import.meta.dirname, '../fixtures/asking-server.mjs');
const MRTR = resolve(import.meta.dirname, '../fixtures/mrtr-server.mjs');
let tg: TestGateway;
let llm: StubLlm;
const tokens: Record<string, string> = {};

async function call(client: string, tool: string, args: Record<string, unknown> = {}, server = 'asker'): Promise<Json> {
  const res = await fetch(`${tg.url}/tool_calls`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens[client]}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tool_calls: [{ id: 'c1', type: 'function', function: { name: `${server}__${tool}`, arguments: JSON.stringify(args) } }] }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as Json;
  return JSON.parse(body.messages[0].content);
}

/** The tool's own answer (the server echoes what it heard), parsed. */
const heard = (envelope: Json): Json => JSON.parse(typeof envelope.result === 'string' ? envelope.result : envelope.result[0].text);

async function waitingQuestion(kind = 'elicitation'): Promise<Json> {
  return until(async () => {
    const { approvals } = (await (await tg.asOwner('/approvals')).json()) as Json;
    return approvals.find((a: Json) => a.kind === kind);
  }, `a pending ${kind} approval`);
}

const decide = (id: string, body: unknown) => tg.asOwner(`/approvals/${id}`, { json: body });

beforeAll(async () => {
  llm = await startStubLlm(() => ({ content: 'Blue.' }));
  tg = await startGateway(
    {
      mcpServers: {
        asker: { command: process.execPath, args: [ASKER] },
        mrtr: { command: process.execPath, args: [MRTR] },
        // A one-second time limit for its calls: the owner takes longer than that to answer.
        brisk: { command: process.execPath, args: [ASKER], timeout_ms: 1000 },
      },
      llm: { baseUrl: llm.url, api: 'ollama', model: 'stub-model' },
    },
    { loadPlugins: true, mcpBackoffMs: [50, 100, 200] },
  );
  for (const name of ['asker', 'mrtr', 'brisk']) {
    await until(async () => {
      const view = (await (await tg.api(`/mcp-servers/${name}`)).json()) as Json;
      return view.status === 'running' && view.tools.length > 0;
    }, `the ${name} server running`);
    // Rated safe, so the calls run without a call approval and the only question is the server's.
    expect((await tg.asOwner(`/mcp-servers/${name}/accept`, { json: { risk: 'safe' } })).status).toBe(200);
  }
  for (const name of ['alice', 'bob']) tokens[name] = ((await (await tg.asOwner('/clients', { json: { name } })).json()) as Json).token;
});
afterAll(async () => {
  await tg?.close();
  await llm?.close();
});

describe('elicitation from an imported server', () => {
  it('reaches the owner as an elicitation approval with the message, the schema and the client whose call caused it', async () => {
    const pending = call('alice', 'book', { flight: 'PA7' });
    const question = await waitingQuestion();
    expect(question).toMatchObject({
      kind: 'elicitation',
      client: 'alice',
      server: 'asker',
      tool: 'asker__book',
      message: 'Which seat on flight PA7?',
      requested_schema: { type: 'object', required: ['seat', 'count'] },
      status: 'pending',
      source: 'mcp:asker',
    });
    expect(question.requested_schema.properties.seat).toMatchObject({ enum: ['window', 'aisle'], title: 'Seat' });
    expect(question.call_id).toMatch(/^c_/);
    // The client sees its own waiting question too (as with call approvals), and nobody else's.
    const mine = (await (await fetch(`${tg.url}/approvals`, { headers: { authorization: `Bearer ${tokens.alice}` } })).json()) as Json;
    expect(mine.approvals.map((a: Json) => a.id)).toContain(question.id);
    const bobs = (await (await fetch(`${tg.url}/approvals`, { headers: { authorization: `Bearer ${tokens.bob}` } })).json()) as Json;
    expect(bobs.approvals).toEqual([]);

    const answered = await decide(question.id, { decision: 'accept', content: { seat: 'aisle', count: 2, email: 'me@example.com' } });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({ status: 'accepted', decision: 'accept', message: 'Which seat on flight PA7?' });
    const envelope = await pending;
    expect(envelope.success).toBe(true);
    // The server received the owner's answer (defaults filled in for what was left out).
    expect(heard(envelope)).toEqual({ heard: { action: 'accept', content: { seat: 'aisle', count: 2, email: 'me@example.com', vip: false } } });
  });

  it("does not count the owner's time to answer against the call's time limit", async () => {
    const pending = call('alice', 'book', { flight: 'PA9' }, 'brisk');
    const question = await waitingQuestion();
    expect(question).toMatchObject({ server: 'brisk', client: 'alice' });
    // Longer than the server's one-second limit: the call's clock stands still while the owner reads the form.
    await new Promise((r) => setTimeout(r, 1_600));
    expect((await decide(question.id, { decision: 'accept', content: { seat: 'window', count: 1 } })).status).toBe(200);
    const envelope = await pending;
    expect(envelope).toMatchObject({ success: true });
    expect(heard(envelope)).toMatchObject({ heard: { action: 'accept', content: { seat: 'window', count: 1 } } });
  });

  it("still ends a call that runs past its time limit while nobody is asked", async () => {
    const envelope = await call('alice', 'hold', { ms: 10_000 }, 'brisk');
    expect(envelope).toMatchObject({ success: false, error: { name: 'TOOL_TIMEOUT' } });
  });

  it('a client cannot answer a question of its own call', async () => {
    const pending = call('alice', 'book');
    const question = await waitingQuestion();
    const res = await fetch(`${tg.url}/approvals/${question.id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'accept', content: { seat: 'window', count: 1 } }),
    });
    expect(res.status).toBe(403);
    await decide(question.id, { decision: 'decline' });
    expect(heard(await pending)).toEqual({ heard: { action: 'decline' } });
  });

  it('decline reaches the server as decline, and the ledger records it', async () => {
    const pending = call('bob', 'book');
    const question = await waitingQuestion();
    expect(question.client).toBe('bob');
    expect((await decide(question.id, { decision: 'decline' })).status).toBe(200);
    expect(heard(await pending)).toEqual({ heard: { action: 'decline' } });
    const db = new Database(join(tg.dataDir, 'pincer.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT kind, server, status, decision, client FROM approvals WHERE id = ?').get(question.id)).toEqual({
        kind: 'elicitation',
        server: 'asker',
        status: 'declined',
        decision: 'decline',
        client: 'bob',
      });
    } finally {
      db.close();
    }
  });

  it('the server receives the answer whole; what the ledger and the answer keep of it is redacted', async () => {
    const secret = `ghp_${fake(36, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789')}`;
    const pending = call('alice', 'book');
    const question = await waitingQuestion();
    const answered = (await (await decide(question.id, { decision: 'accept', content: { seat: 'window', count: 1, note: `token ${secret}` } })).json()) as Json;
    expect(JSON.stringify(answered)).not.toContain(secret);
    expect(answered.response.note).toMatch(/REDACTED/);
    expect(heard(await pending).heard.content.note).toBe(`token ${secret}`);
    const db = new Database(join(tg.dataDir, 'pincer.db'), { readonly: true });
    try {
      const row = db.prepare('SELECT response FROM approvals WHERE id = ?').get(question.id) as { response: string };
      expect(row.response).not.toContain(secret);
      expect(JSON.parse(row.response)).toMatchObject({ seat: 'window', count: 1 });
    } finally {
      db.close();
    }
  });

  it('content that does not fit the schema is a 400 naming the field, and the question stays open', async () => {
    const pending = call('alice', 'book');
    const question = await waitingQuestion();
    const wrongEnum = await decide(question.id, { decision: 'accept', content: { seat: 'roof', count: 1 } });
    expect(wrongEnum.status).toBe(400);
    expect(((await wrongEnum.json()) as Json).error.message).toMatch(/"seat" must be one of "window", "aisle"/);
    const missing = await decide(question.id, { decision: 'accept', content: { count: 1 } });
    expect(((await missing.json()) as Json).error.message).toMatch(/missing required property "seat"/);
    const tooMany = await decide(question.id, { decision: 'accept', content: { seat: 'window', count: 40 } });
    expect(((await tooMany.json()) as Json).error.message).toMatch(/"count" must be <= 9/);
    const badEmail = await decide(question.id, { decision: 'accept', content: { seat: 'window', count: 1, email: 'not an address' } });
    expect(((await badEmail.json()) as Json).error.message).toMatch(/"email" must match format "email"/);
    const invented = await decide(question.id, { decision: 'accept', content: { seat: 'window', count: 1, password: 'x' } });
    expect(((await invented.json()) as Json).error.message).toMatch(/unknown property "password"/);
    const notObject = await decide(question.id, { decision: 'accept', content: ['window'] });
    expect(notObject.status).toBe(400);
    expect(((await notObject.json()) as Json).error.message).toMatch(/content goes with accept and is an object/);
    // Still waiting: a wrong answer is not an answer.
    expect((await waitingQuestion()).id).toBe(question.id);
    await decide(question.id, { decision: 'accept', content: { seat: 'window', count: 1 } });
    expect(heard(await pending).heard.action).toBe('accept');
  });

  it('a call approval decision on a question is a 400 naming accept and decline, and the reverse too', async () => {
    const pending = call('alice', 'book');
    const question = await waitingQuestion();
    for (const decision of ['allow_once', 'allow_always', 'deny']) {
      const res = await decide(question.id, { decision });
      expect(res.status).toBe(400);
      expect(((await res.json()) as Json).error).toMatchObject({ details: { kind: 'elicitation', decisions: ['accept', 'decline'] } });
    }
    await decide(question.id, { decision: 'decline' });
    await pending;

    // A call approval refuses an elicitation's answers.
    const asked = (await (await tg.api('/tools/run_shell/execute', { method: 'POST', json: { command: 'rm -rf ./build' }, headers: { prefer: 'respond-async' } })).json()) as Json;
    expect(asked.pending).toBe(true);
    for (const body of [{ decision: 'accept', content: {} }, { decision: 'decline' }]) {
      const res = await decide(asked.approval_id, body);
      expect(res.status).toBe(400);
      const error = ((await res.json()) as Json).error;
      expect(error.message).toMatch(/allow_once, allow_always, deny/);
      expect(error.details).toMatchObject({ kind: 'call' });
    }
    await decide(asked.approval_id, { decision: 'deny' });
  });

  it('a question left unanswered expires, and the server hears cancel', async () => {
    tg.gateway.approvals.setTimeoutMs(300);
    try {
      const envelope = await call('alice', 'book');
      expect(heard(envelope)).toEqual({ heard: { action: 'cancel' } });
    } finally {
      tg.gateway.approvals.setTimeoutMs(120_000);
    }
  });

  it('a form MCP does not allow (a nested object) is refused to the server, never shown', async () => {
    const envelope = await call('alice', 'nested_form');
    expect(envelope.success).toBe(false);
    // Refused before it reaches the owner (by the SDK's own check of elicitation forms, and Pincer's behind it).
    expect(envelope.error.message).toMatch(/^the client refused: MCP error -32\d{3}: /);
    const { approvals } = (await (await tg.asOwner('/approvals')).json()) as Json;
    expect(approvals).toEqual([]);
  });

  it('while calls of two clients run on the server, a question is refused rather than shown as either one\'s', async () => {
    const hold = call('bob', 'hold', { ms: 1500 });
    await until(async () => ((await (await tg.api('/calls?limit=5')).json()) as Json).calls.some((c: Json) => c.tool === 'asker__hold' && c.status === 'running'), 'the hold call running');
    const envelope = await call('alice', 'book');
    expect(JSON.stringify(envelope)).toMatch(/calls of several clients are running on this server/);
    await hold;
  });
});

describe('a 2026-era server that asks by multi round-trip (input_required)', () => {
  it('its input request is the same elicitation approval, and the retried call carries the answer and the state', async () => {
    const pending = call('bob', 'confirm', { thing: 'the cache' }, 'mrtr');
    const question = await waitingQuestion();
    expect(question).toMatchObject({ kind: 'elicitation', server: 'mrtr', client: 'bob', tool: 'mrtr__confirm', message: 'Delete the cache?' });
    expect(question.call_id).toMatch(/^c_/);
    expect((await decide(question.id, { decision: 'accept', content: { why: 'stale' } })).status).toBe(400);
    expect((await decide(question.id, { decision: 'accept', content: { sure: true, why: 'stale' } })).status).toBe(200);
    const envelope = await pending;
    expect(JSON.parse(envelope.result)).toEqual({ answer: { action: 'accept', content: { sure: true, why: 'stale' } }, state: 'round-1-state' });
  });

  it('a declined input request is retried with decline', async () => {
    const pending = call('alice', 'confirm', { thing: 'x' }, 'mrtr');
    await decide((await waitingQuestion()).id, { decision: 'decline' });
    expect(JSON.parse((await pending).result)).toEqual({ answer: { action: 'decline' }, state: 'round-1-state' });
  });
});

describe('sampling from an imported server', () => {
  it('is refused with a clear error while the owner has not allowed it', async () => {
    const envelope = await call('alice', 'ask_model', { prompt: 'Sky colour?' });
    expect(envelope.error.message).toMatch(/the client refused: .*does not let imported servers use Pincer's model \(Settings: "Let imported servers use the configured model", or mcp_sampling/);
    expect(llm.requests).toHaveLength(0);
  });

  it('once allowed, each request is an approval showing the prompt, run on the configured model when allowed', async () => {
    const patched = await tg.asOwner('/settings', { method: 'PATCH', json: { mcp_sampling: true } });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as Json).mcp_sampling).toBe(true);
    // The servers are connected again with sampling declared.
    for (const name of ['asker', 'mrtr']) {
      await until(async () => {
        const view = (await (await tg.api(`/mcp-servers/${name}`)).json()) as Json;
        return view.status === 'running' && view.tools.some((t: Json) => t.status === 'active');
      }, `the ${name} server reconnected`);
    }

    const pending = call('alice', 'ask_model', { prompt: 'Sky colour?' });
    const question = await waitingQuestion('sampling');
    expect(question).toMatchObject({
      kind: 'sampling',
      client: 'alice',
      server: 'asker',
      message: 'Sky colour?',
      prompt: { system_prompt: 'Answer in one word.', messages: [{ role: 'user', text: 'Sky colour?' }], max_tokens: 20 },
    });
    // Sampling takes allow_once / deny: an elicitation's answer is refused.
    expect((await decide(question.id, { decision: 'accept', content: {} })).status).toBe(400);
    expect((await decide(question.id, { decision: 'allow_once' })).status).toBe(200);
    const envelope = await pending;
    expect(heard(envelope)).toEqual({ model: 'stub-model', said: { type: 'text', text: 'Blue.' } });
    const sent = llm.requests.at(-1)!;
    expect(sent.messages).toEqual([
      { role: 'system', content: 'Answer in one word.' },
      { role: 'user', content: 'Sky colour?' },
    ]);
    // No tools go with it: a server's request gets the model's words only.
    expect(sent.tools).toEqual([]);
  });

  it("a 2026-era server's sampling input request is the same approval, and the retry carries the model's answer", async () => {
    const pending = call('bob', 'summarise', { text: 'a long story' }, 'mrtr');
    const question = await waitingQuestion('sampling');
    expect(question).toMatchObject({ kind: 'sampling', server: 'mrtr', client: 'bob', message: 'Summarise: a long story' });
    await decide(question.id, { decision: 'allow_once' });
    expect(JSON.parse((await pending).result)).toEqual({ answer: { role: 'assistant', content: { type: 'text', text: 'Blue.' }, model: 'stub-model', stopReason: 'endTurn' }, state: null });
  });

  it('a denied request reaches the server as an error and never reaches the model', async () => {
    const before = llm.requests.length;
    const pending = call('alice', 'ask_model', { prompt: 'Anything?' });
    const question = await waitingQuestion('sampling');
    await decide(question.id, { decision: 'deny', message: 'not now' });
    expect(JSON.stringify(await pending)).toMatch(/the owner refused it: not now/);
    expect(llm.requests.length).toBe(before);
  });
});

describe('roots for an imported server', () => {
  it('roots/list answers the configured roots as file:// URIs, and a change is announced', async () => {
    const envelope = await call('alice', 'roots');
    expect(heard(envelope)).toEqual({ roots: [{ uri: pathToFileURL(tg.workspace).href, name: tg.workspace.split('/').at(-1) }] });
    const other = tempDir('pincer-root-b-');
    expect((await tg.asOwner('/settings', { method: 'PATCH', json: { roots: [tg.workspace, other] } })).status).toBe(200);
    await until(async () => heard(await call('alice', 'roots_changes')).changes >= 1, 'the server told of the roots change');
    expect(heard(await call('alice', 'roots')).roots.map((r: Json) => r.uri)).toEqual([pathToFileURL(tg.workspace).href, pathToFileURL(other).href]);
  });
});

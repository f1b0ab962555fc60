import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool, type AnyTool } from '../../../server/index.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';
import { startStubLlm, type StubLlm } from '../llm/stub-llm.js';

/**
 * What a revoked token started ends with it, through the real HTTP and MCP endpoints: its running calls are
 * cancelled, its questions to the owner withdrawn (an "allow" given afterwards runs nothing), its MCP sessions closed
 * (a token issued later under the same name cannot take them over). Revoked through the API and by another process
 * writing the database (`pincer token revoke`).
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

let dangerRuns = 0;
const dangerous: AnyTool = defineTool<{ note?: string }, { ran: true }>({
  name: 'danger_revoked',
  description: 'Test tool: dangerous, so every call asks the owner; counts its runs.',
  parameters: { type: 'object', properties: { note: { type: 'string' } }, additionalProperties: false },
  category: 'test',
  risk: 'dangerous',
  annotations: { readOnlyHint: false, destructiveHint: true },
  handler: () => {
    dangerRuns += 1;
    return { ran: true };
  },
});

/** Runs until its call is cancelled (or `finishSlow` is called). */
let slowStarted = 0;
let finishSlow: () => void = () => undefined;
const slow: AnyTool = defineTool<{ note?: string }, { done: true }>({
  name: 'slow_until_cancelled',
  description: 'Test tool: safe, runs until its call is cancelled.',
  parameters: { type: 'object', properties: { note: { type: 'string' } }, additionalProperties: false },
  category: 'test',
  risk: 'safe',
  annotations: { readOnlyHint: true },
  handler: (_args, context) =>
    new Promise((resolve, reject) => {
      slowStarted += 1;
      finishSlow = () => resolve({ done: true });
      context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true });
    }),
});

let tg: TestGateway;
beforeAll(async () => {
  tg = await startGateway({ approvalTimeoutS: 120 }, { extraTools: [dangerous, slow] });
});
afterAll(async () => {
  finishSlow();
  await tg?.close();
});

async function issue(name: string): Promise<string> {
  const res = await tg.asOwner('/clients', { json: { name } });
  expect(res.status).toBe(201);
  return ((await res.json()) as Json).token;
}

function as(token: string, path: string, init: { json?: unknown; headers?: Record<string, string>; method?: string } = {}) {
  return fetch(`${tg.url}${path}`, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    headers: { authorization: `Bearer ${token}`, ...(init.json !== undefined && { 'content-type': 'application/json' }), ...init.headers },
    ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
  });
}

const pendingFor = async (client: string): Promise<Json[]> =>
  (((await (await tg.asOwner('/approvals')).json()) as Json).approvals as Json[]).filter((a) => a.client === client);

const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

/** Opens an MCP session as the token (initialize, then initialized); answers its id. */
async function mcpSession(token: string): Promise<string> {
  const init = await as(token, '/mcp', {
    headers: MCP_HEADERS,
    json: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'revocation-test', version: '1' } } },
  });
  expect(init.status).toBe(200);
  const id = init.headers.get('mcp-session-id');
  expect(id).toBeTruthy();
  await init.text();
  const initialized = await as(token, '/mcp', { headers: { ...MCP_HEADERS, 'mcp-session-id': id! }, json: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  expect(initialized.status).toBe(202);
  return id!;
}

describe('revoking a client through the API', () => {
  it('cancels its running call, withdraws its question to the owner and closes its MCP session and stream', async () => {
    const token = await issue('rev-api');
    const startedBefore = slowStarted;
    const running = as(token, '/tools/slow_until_cancelled/execute', { json: {} });
    await until(() => slowStarted > startedBefore, 'the slow call running');
    const asked = await as(token, '/tools/danger_revoked/execute', { json: { note: 'after revoke' }, headers: { prefer: 'respond-async' } });
    expect(asked.status).toBe(202);
    const { approval_id: approvalId, call_id: askedCallId } = (await asked.json()) as Json;
    const session = await mcpSession(token);
    const stream = await as(token, '/mcp', { headers: { accept: 'text/event-stream', 'mcp-session-id': session } });
    expect(stream.status).toBe(200);
    const streamEnded = stream.text();

    expect((await tg.asOwner('/clients/rev-api', { method: 'DELETE' })).status).toBe(200);

    const answered = await running;
    const body = (await answered.json()) as Json;
    expect(body).toMatchObject({ success: false, error: { name: 'CALL_CANCELLED' } });
    expect(body.error.message).toContain('The token of client "rev-api" was revoked');
    const slowRecord = (await (await tg.asOwner(`/calls/${body.call_id}`)).json()) as Json;
    expect(slowRecord).toMatchObject({ client: 'rev-api', status: 'cancelled' });

    // The question is gone, and an "allow" sent now runs nothing.
    expect(await pendingFor('rev-api')).toEqual([]);
    const late = await tg.asOwner(`/approvals/${approvalId}`, { json: { decision: 'allow_once' } });
    expect(late.status).not.toBe(200);
    const askedRecord = await until(async () => {
      const record = (await (await tg.asOwner(`/calls/${askedCallId}`)).json()) as Json;
      return record.status === 'cancelled' ? record : undefined;
    }, 'the asked call recorded as cancelled');
    expect(askedRecord.error.message).toContain('was revoked');
    expect(dangerRuns).toBe(0);

    // The session's stream ends; the same name issued again does not reach the old session.
    await streamEnded;
    const again = await issue('rev-api');
    const reused = await as(again, '/mcp', { headers: { ...MCP_HEADERS, 'mcp-session-id': session }, json: { jsonrpc: '2.0', id: 2, method: 'tools/list' } });
    expect(reused.status).toBe(404);
    await reused.text();
    // The new token's own calls run.
    expect((await as(again, '/tools/calculate/execute', { json: { expression: '2+3' } })).status).toBe(200);
  });
});

describe('revoking a client from another process (the database written directly)', () => {
  it('withdraws its questions and cancels its calls within a few seconds, leaving other clients alone', async () => {
    const token = await issue('rev-cli');
    const other = await issue('rev-bystander');
    const startedBefore = slowStarted;
    const running = as(token, '/tools/slow_until_cancelled/execute', { json: {} });
    await until(() => slowStarted > startedBefore, 'the slow call running');
    const mine = await as(token, '/tools/danger_revoked/execute', { json: {}, headers: { prefer: 'respond-async' } });
    const theirs = await as(other, '/tools/danger_revoked/execute', { json: {}, headers: { prefer: 'respond-async' } });
    expect([mine.status, theirs.status]).toEqual([202, 202]);
    const theirApproval = ((await theirs.json()) as Json).approval_id;
    await mine.text();

    // What `pincer token revoke` does: no API call, no event.
    expect(tg.gateway.store.clients.revoke('rev-cli')).toBe(true);

    const body = (await (await running).json()) as Json;
    expect(body.error).toMatchObject({ name: 'CALL_CANCELLED' });
    await until(async () => (await pendingFor('rev-cli')).length === 0, 'the revoked client\'s question withdrawn');
    // The other client's question still waits, and is answered as usual.
    expect((await pendingFor('rev-bystander')).map((a) => a.id)).toEqual([theirApproval]);
    expect((await tg.asOwner(`/approvals/${theirApproval}`, { json: { decision: 'allow_once' } })).status).toBe(200);
    await until(() => dangerRuns === 1, 'the bystander\'s call run');
  });
});

describe('revoking a client in the middle of a chat turn', () => {
  let stub: StubLlm;
  let chatGateway: TestGateway;
  beforeAll(async () => {
    // The model calls the slow tool every time it is asked.
    stub = await startStubLlm(() => ({ tool_calls: [{ name: 'slow_until_cancelled', arguments: {} }] }));
    chatGateway = await startGateway({ llm: { baseUrl: stub.url, model: 'stub-model', api: 'ollama' } }, { extraTools: [dangerous, slow] });
  });
  afterAll(async () => {
    await chatGateway?.close();
    await stub?.close();
  });

  it('stops the turn: its running tool call is cancelled and the model is not asked again', async () => {
    const created = await chatGateway.asOwner('/clients', { json: { name: 'rev-chat' } });
    const { token } = (await created.json()) as Json;
    const startedBefore = slowStarted;
    const turn = fetch(`${chatGateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'stub-model', stream: false, messages: [{ role: 'user', content: 'wait for me' }] }),
    });
    await until(() => slowStarted > startedBefore, 'the turn\'s tool call running');

    expect((await chatGateway.asOwner('/clients/rev-chat', { method: 'DELETE' })).status).toBe(200);

    const answer = await turn;
    const text = await answer.text();
    expect(answer.status, text).not.toBe(200);
    expect(JSON.parse(text).error).toMatchObject({ name: 'CALL_CANCELLED', message: expect.stringContaining('The token of client "rev-chat" was revoked') });
    expect(stub.requests).toHaveLength(1);
    expect(slowStarted).toBe(startedBefore + 1);
    const calls = (((await (await chatGateway.asOwner('/calls?client=rev-chat')).json()) as Json).calls as Json[]).map((c) => [c.tool, c.status]);
    expect(calls).toEqual([['slow_until_cancelled', 'cancelled']]);
  });
});

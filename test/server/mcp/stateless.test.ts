import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Transport1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool, type AnyTool } from '../../../server/index.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';

/**
 * MCP 2026-07-28 (stateless: no initialize, `server/discover`, per-request `_meta`) beside 2025-11-25 at /mcp, driven
 * by the real SDK 2.x client pinned to the new revision and in auto mode, and by raw requests where the wire itself
 * is the point: the same identity, tools, approvals and errors as a session, long approval waits as tasks the client
 * polls, and tasks bound to the token that started them and to a time limit.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const MODERN = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';

const runs: Record<string, number> = {};
function dangerous(name: string): AnyTool {
  runs[name] = 0;
  return defineTool<Record<string, never>, { runs: number }>({
    name,
    description: 'Test tool: dangerous, so every call asks the owner; counts how often it ran.',
    parameters: { type: 'object', properties: {} },
    category: 'test',
    risk: 'dangerous',
    annotations: { readOnlyHint: false, destructiveHint: true },
    handler: () => ({ runs: (runs[name]! += 1) }),
  });
}
const TOOLS = ['wait_progress', 'wait_task', 'wait_foreign', 'wait_cancel', 'wait_hangup', 'wait_deny'];

let tg: TestGateway;
beforeAll(async () => {
  tg = await startGateway({}, { extraTools: TOOLS.map(dangerous), mcpProgressIntervalMs: 200 });
});
afterAll(async () => {
  await tg?.close();
});

type Mode = { pin: string } | 'auto' | undefined;
async function connect(mode: Mode, options: { token?: string; tasks?: boolean; name?: string } = {}): Promise<Client> {
  const client = new Client(
    { name: options.name ?? 'sdk2-test', version: '1.0.0' },
    {
      ...(mode && { versionNegotiation: { mode } }),
      ...(options.tasks && { capabilities: { extensions: { [TASKS]: {} } } }),
    } as Json,
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${tg.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${options.token ?? tg.token}` } } }),
  );
  return client;
}

function meta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, ...extra };
}

/** One raw POST of the stateless revision, with the standard headers a conforming client sends. */
async function post(body: Json, headers: Record<string, string> = {}, token = tg.token, signal?: AbortSignal): Promise<Response> {
  const name = body?.params?.name ?? body?.params?.taskId;
  return fetch(`${tg.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      ...(typeof body?.method === 'string' && { 'mcp-method': body.method }),
      ...(typeof name === 'string' && { 'mcp-name': name }),
      ...headers,
    },
    body: JSON.stringify(body),
    ...(signal && { signal }),
  });
}

/** The JSON-RPC answer of a POST, whether it came as JSON or as an SSE stream. */
async function answerOf(res: Response): Promise<Json> {
  const text = await res.text();
  if (!res.headers.get('content-type')?.includes('text/event-stream')) return JSON.parse(text);
  const messages = text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
  return messages.find((m) => 'result' in m || 'error' in m);
}

async function pendingApproval(tool: string): Promise<Json> {
  return until(async () => {
    const body = (await (await tg.asOwner('/approvals')).json()) as Json;
    return (body.approvals as Json[]).find((a) => a.tool === tool);
  }, `a pending approval for ${tool}`);
}

async function noApproval(tool: string): Promise<void> {
  await until(async () => {
    const body = (await (await tg.asOwner('/approvals')).json()) as Json;
    return !(body.approvals as Json[]).some((a) => a.tool === tool);
  }, `the approval for ${tool} to be withdrawn`);
}

async function lastCall(tool: string): Promise<Json> {
  const body = (await (await tg.api(`/calls?tool=${tool}`)).json()) as Json;
  return body.calls[0];
}

/** A task tools/call started, through a raw tools/call that declares the Tasks extension. */
async function startTask(tool: string, token = tg.token): Promise<Json> {
  const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: {}, _meta: meta({ 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } } }) } }, {}, token);
  const answer = await answerOf(res);
  expect(answer.result.resultType).toBe('task');
  return answer.result;
}

const taskRequest = (method: string, taskId: string, id = 2) => ({ jsonrpc: '2.0', id, method, params: { taskId, _meta: meta() } });

describe('MCP 2026-07-28 with the SDK 2.x client', () => {
  it('a client pinned to 2026-07-28 discovers, lists and calls tools without a handshake', async () => {
    const client = await connect({ pin: MODERN }, { name: 'Pinned Agent' });
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getServerCapabilities()?.extensions?.[TASKS]).toEqual({});
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['calculate', 'wait_task']));
    const result = await client.callTool({ name: 'calculate', arguments: { expression: '6*7' } });
    expect(result.structuredContent).toMatchObject({ result: 42 });
    // The identity is the token; the client's self-reported name (from _meta) is kept beside it as the door.
    expect(await lastCall('calculate')).toMatchObject({ via: 'mcp (Pinned Agent)', client: 'default' });
    await client.close();
  });

  it('a client in auto mode probes server/discover and speaks 2026-07-28', async () => {
    const client = await connect('auto');
    expect(client.getProtocolEra()).toBe('modern');
    const result = await client.callTool({ name: 'calculate', arguments: { expression: '1+1' } });
    expect(result.structuredContent).toMatchObject({ result: 2 });
    await client.close();
  });

  it('an unpinned SDK 2.x client still opens a 2025 session, as does the SDK 1.32 client', async () => {
    const client = await connect(undefined);
    expect(client.getProtocolEra()).toBe('legacy');
    expect((await client.listTools()).tools.some((t) => t.name === 'calculate')).toBe(true);
    await client.close();
    const old = new Client1({ name: 'sdk1', version: '1' });
    await old.connect(new Transport1(new URL(`${tg.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tg.token}` } } }));
    expect((await old.callTool({ name: 'calculate', arguments: { expression: '2+2' } })).structuredContent).toMatchObject({ result: 4 });
    await old.close();
  });

  it('an unknown tool is a protocol error (-32602), a refused call an error result', async () => {
    const client = await connect({ pin: MODERN });
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    const bad = await client.callTool({ name: 'calculate', arguments: { expression: 7 } });
    expect(bad.isError).toBe(true);
    expect((bad.content as Json)[0].text).toMatch(/^INVALID_ARGUMENTS/);
    await client.close();
  });

  it("a named client's token brings its own tool set, and a bad token is refused before anything runs", async () => {
    const { token } = (await (await tg.asOwner('/clients', { json: { name: 'stateless-alice' } })).json()) as Json;
    expect((await tg.asOwner('/clients/stateless-alice/tools', { method: 'PUT', json: { tools: ['calculate'] } })).status).toBe(200);
    const client = await connect({ pin: MODERN }, { token });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['calculate']);
    expect((await client.callTool({ name: 'get_time', arguments: {} })).isError).toBe(true);
    await client.close();
    const refused = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } }, {}, 'pk_not_a_token');
    expect(refused.status).toBe(401);
  });

  it('without the Tasks extension, a call waiting for the owner streams progress and answers once allowed', async () => {
    const client = await connect({ pin: MODERN });
    const progress: string[] = [];
    const call = client.callTool({ name: 'wait_progress', arguments: {} }, { onprogress: (p: Json) => progress.push(p.message), resetTimeoutOnProgress: true } as Json);
    const approval = await pendingApproval('wait_progress');
    await until(() => progress.length > 0, 'a progress notification');
    expect(progress[0]).toContain(approval.id);
    expect((await tg.asOwner(`/approvals/${approval.id}`, { json: { decision: 'allow_once' } })).status).toBe(200);
    expect((await call).structuredContent).toMatchObject({ runs: 1 });
    await client.close();
  });

  it('with the Tasks extension, a call waiting for the owner becomes a task the ext-tasks session polls to its result', async () => {
    const client = await connect({ pin: MODERN }, { tasks: true, name: 'Task Agent' });
    let rawIds = 0;
    const session = createTaskSessionFromClient(client, {
      endpointId: 'pincer-test',
      // The host's request coordinator: the session hands over the framed request, the host gives it an id.
      rawDispatch: async (request: Json) => {
        const answer = await answerOf(await post({ jsonrpc: '2.0', id: `raw-${++rawIds}`, ...request }));
        return 'error' in answer ? { kind: 'error', error: answer.error } : { kind: 'result', result: answer.result };
      },
      v2RequestFraming: { protocolVersion: MODERN, clientInfo: { name: 'Task Agent', version: '1.0.0' }, clientCapabilities: {} },
    });
    try {
      const execution = await session.callTool('wait_task', {});
      expect(execution.kind).toBe('task');
      const approval = await pendingApproval('wait_task');
      expect((await tg.asOwner(`/approvals/${approval.id}`, { json: { decision: 'allow_once' } })).status).toBe(200);
      const { outcome } = await execution.settle();
      expect(outcome.status).toBe('completed');
      expect((resultFromTaskOutcome(outcome) as Json).structuredContent).toMatchObject({ runs: 1 });
      expect(await lastCall('wait_task')).toMatchObject({ status: 'succeeded', via: 'mcp (Task Agent)' });
    } finally {
      await session.close();
      await client.close();
    }
  });

  it('a denied call that became a task completes with the error result the model can read', async () => {
    const task = await startTask('wait_deny');
    const approval = await pendingApproval('wait_deny');
    await tg.asOwner(`/approvals/${approval.id}`, { json: { decision: 'deny' } });
    const done = await until(async () => {
      const answer = await answerOf(await post(taskRequest('tasks/get', task.taskId)));
      return answer.result.status === 'completed' && answer.result;
    }, 'the task to complete');
    expect(done.result.isError).toBe(true);
    expect(done.result.content[0].text).toMatch(/^APPROVAL_DENIED/);
  });
});

describe('tasks are bound to their token and to a time limit', () => {
  it('another token polls, cancels or updates a task id as if it did not exist', async () => {
    const task = await startTask('wait_foreign');
    const { token: other } = (await (await tg.asOwner('/clients', { json: { name: 'stateless-mallory' } })).json()) as Json;
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
      const answer = await answerOf(await post(taskRequest(method, task.taskId), {}, other));
      expect(answer.error, method).toMatchObject({ code: -32602 });
      expect(answer.error.message).toMatch(/not one of this client's tasks/);
    }
    // Still there, still waiting, for the token that started it.
    expect((await answerOf(await post(taskRequest('tasks/get', task.taskId)))).result).toMatchObject({ status: 'working', taskId: task.taskId });
    const approval = await pendingApproval('wait_foreign');
    await tg.asOwner(`/approvals/${approval.id}`, { json: { decision: 'deny' } });
  });

  it('a guessed task id is not found', async () => {
    const answer = await answerOf(await post(taskRequest('tasks/get', '00000000-0000-4000-8000-000000000000')));
    expect(answer.error).toMatchObject({ code: -32602 });
  });

  it('tasks/cancel withdraws the pending approval, and the task stays cancelled', async () => {
    const task = await startTask('wait_cancel');
    await pendingApproval('wait_cancel');
    expect((await answerOf(await post(taskRequest('tasks/cancel', task.taskId)))).result).toMatchObject({ resultType: 'complete' });
    await noApproval('wait_cancel');
    expect((await answerOf(await post(taskRequest('tasks/get', task.taskId)))).result).toMatchObject({ status: 'cancelled' });
    expect(runs.wait_cancel).toBe(0);
    // A finished task cannot be cancelled again.
    expect((await answerOf(await post(taskRequest('tasks/cancel', task.taskId)))).error).toMatchObject({ code: -32602 });
  });

  it('a task past its time limit is gone for everyone and its approval withdrawn', async () => {
    const short = await startGateway({}, { extraTools: [dangerous('wait_expire')], mcpTaskTtlMs: 300 });
    try {
      const res = await fetch(`${short.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${short.token}`, 'content-type': 'application/json', accept: 'application/json', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'wait_expire' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'wait_expire', arguments: {}, _meta: meta({ 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } } }) } }),
      });
      const task = ((await res.json()) as Json).result;
      expect(task).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 300 });
      const get = () =>
        fetch(`${short.url}/mcp`, {
          method: 'POST',
          headers: { authorization: `Bearer ${short.token}`, 'content-type': 'application/json', accept: 'application/json', 'mcp-protocol-version': MODERN, 'mcp-method': 'tasks/get', 'mcp-name': task.taskId },
          body: JSON.stringify(taskRequest('tasks/get', task.taskId)),
        }).then((r) => r.json() as Promise<Json>);
      await until(async () => (await get()).error?.code === -32602, 'the task to expire');
      await until(async () => ((await (await short.asOwner('/approvals')).json()) as Json).approvals.length === 0, 'the approval to be withdrawn');
      expect(runs.wait_expire).toBe(0);
    } finally {
      await short.close();
    }
  });
});

describe('the stateless wire, request by request', () => {
  it('a client that hangs up on a waiting call (no Tasks extension) withdraws its approval', async () => {
    const controller = new AbortController();
    const pending = post({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'wait_hangup', arguments: {}, _meta: meta() } }, {}, tg.token, controller.signal).then(
      (r) => r.text(),
      () => 'aborted',
    );
    await pendingApproval('wait_hangup');
    controller.abort();
    await pending;
    await noApproval('wait_hangup');
    expect(runs.wait_hangup).toBe(0);
  });

  it('answers server/discover with the versions, capabilities and identity, uncached', async () => {
    const res = await post({ jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: meta() } });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const { result } = (await res.json()) as Json;
    expect(result).toMatchObject({
      resultType: 'complete',
      supportedVersions: [MODERN],
      ttlMs: 0,
      cacheScope: 'private',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'pincer' } },
    });
  });

  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } };
  it.each([
    ['a protocol version it does not speak', { ...list, params: { _meta: meta({ 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }) } }, { 'mcp-protocol-version': '2099-01-01' }, 400, -32022],
    ['a header that disagrees with the body', list, { 'mcp-protocol-version': '2099-01-01' }, 400, -32020],
    ['no Mcp-Method header', list, { 'mcp-method': '' }, 400, -32020],
    ['an Mcp-Name naming another tool than the body', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'calculate', arguments: {}, _meta: meta() } }, { 'mcp-name': 'run_shell' }, 400, -32020],
    ['no client capabilities in _meta', { ...list, params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } } }, {}, 400, -32602],
    ['the 2026 header without the _meta envelope', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, {}, 400, -32602],
    ['a batch', [list], {}, 400, -32600],
    ['ping, which the revision removed', { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: meta() } }, {}, 404, -32601],
    ['initialize-era tasks/list', { jsonrpc: '2.0', id: 1, method: 'tasks/list', params: { _meta: meta() } }, {}, 404, -32601],
  ])('refuses %s', async (_what, body, headers, status, code) => {
    const sent = { ...(headers as Record<string, string>) };
    if (sent['mcp-method'] === '') delete sent['mcp-method'];
    const res = await fetch(`${tg.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tg.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        ...(!Array.isArray(body) && (headers as Json)['mcp-method'] !== '' && { 'mcp-method': (body as Json).method }),
        ...(!Array.isArray(body) && (body as Json).params?.name && { 'mcp-name': (body as Json).params.name }),
        ...sent,
      },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(status);
    expect(((await res.json()) as Json).error.code).toBe(code);
  });

  it('accepts a notification with 202, and still answers GET with 405 and a session-less POST of 2025 with 400', async () => {
    const note = await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 12345, _meta: meta() } });
    expect(note.status).toBe(202);
    expect((await tg.api('/mcp', { headers: { accept: 'text/event-stream' } })).status).toBe(405);
    const old = await tg.api('/mcp', { method: 'POST', headers: { accept: 'application/json, text/event-stream' }, json: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(old.status).toBe(400);
  });

  it('decodes a Base64 Mcp-Name the way clients send names that are not plain ASCII', async () => {
    const res = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'calculate', arguments: { expression: '3*3' }, _meta: meta() } },
      { 'mcp-name': `=?base64?${Buffer.from('calculate').toString('base64')}?=` },
    );
    expect(((await answerOf(res)) as Json).result.structuredContent).toMatchObject({ result: 9 });
  });
});

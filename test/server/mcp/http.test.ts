import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool, type AnyTool } from '../../../server/index.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { sseJson } from '../../helpers/sse.js';
import { until } from '../../helpers/wait.js';

/**
 * Pincer as an MCP server over Streamable HTTP, driven by the official SDK client against a real gateway: the
 * tool list, calls through the pipeline, the errors as protocol 2025-11-25 has them, approvals that keep the call
 * open with progress, cancellation, list_changed, and sessions bound to the token that opened them.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const runs: Record<string, number> = {};
function countingTool(name: string): AnyTool {
  runs[name] = 0;
  return defineTool<{ note?: string }, { runs: number; note: string | null }>({
    name,
    description: `Test tool: dangerous, so every call asks the owner; counts how often it ran.`,
    parameters: { type: 'object', properties: { note: { type: 'string' } } },
    category: 'test',
    risk: 'dangerous',
    annotations: { title: `Count ${name}`, readOnlyHint: false, destructiveHint: true },
    handler: (args) => {
      runs[name]! += 1;
      return { runs: runs[name]!, note: args.note ?? null };
    },
  });
}

let tg: TestGateway;

beforeAll(async () => {
  tg = await startGateway({}, { extraTools: [countingTool('danger_allow'), countingTool('danger_deny'), countingTool('danger_cancel'), countingTool('danger_stream'), countingTool('danger_json')], mcpProgressIntervalMs: 200 });
});
afterAll(async () => {
  await tg?.close();
});

async function connect(token = tg.token, name = 'sdk-test'): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${tg.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return { client, transport };
}

const text = (result: CallToolResult) => (result.content[0] as { type: 'text'; text: string }).text;

async function pendingApproval(tool: string): Promise<Json> {
  return until(async () => {
    const body = (await (await tg.asOwner('/approvals')).json()) as Json;
    return (body.approvals as Json[]).find((a) => a.tool === tool);
  }, `a pending approval for ${tool}`);
}

async function lastCall(tool: string): Promise<Json> {
  const body = (await (await tg.api(`/calls?tool=${tool}`)).json()) as Json;
  return body.calls[0];
}

describe('MCP server over Streamable HTTP (SDK client)', () => {
  it('initializes with protocol 2025-11-25 and announces tools with list_changed', async () => {
    const { client } = await connect();
    expect(client.getServerVersion()).toMatchObject({ name: 'pincer' });
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    expect(client.getInstructions()).toMatch(/approve/);
    await client.close();
  });

  it('lists the enabled tools with inputSchema, title and annotations', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    const calc = tools.find((t) => t.name === 'calculate')!;
    expect(calc.inputSchema.type).toBe('object');
    expect(calc.description).toBeTruthy();
    expect(calc.title).toBeTruthy();
    expect(calc.annotations).toMatchObject({ readOnlyHint: true });
    expect(tools.find((t) => t.name === 'danger_allow')).toMatchObject({ title: 'Count danger_allow', annotations: { destructiveHint: true } });
    await client.close();
  });

  it('lists only the tool set of the token\'s client', async () => {
    const created = (await (await tg.asOwner('/clients', { json: { name: 'mcp-narrow' } })).json()) as Json;
    expect(created.token).toBeTruthy();
    expect((await tg.asOwner('/clients/mcp-narrow/tools', { method: 'PUT', json: { tools: ['calculate', 'get_time'] } })).status).toBe(200);
    const { client } = await connect(created.token);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['calculate', 'get_time']);
    const refused = await client.callTool({ name: 'json_parse', arguments: { text: '{}' } });
    expect(refused.isError).toBe(true);
    expect(text(refused as CallToolResult)).toMatch(/^TOOL_DISABLED: /);
    await client.close();
  });

  it('calls a tool through the pipeline and records it as the token\'s client, via mcp with the client\'s own name beside it', async () => {
    const { client } = await connect(tg.token, 'Test Desktop');
    const result = (await client.callTool({ name: 'calculate', arguments: { expression: '(2+3)*4' } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(text(result))).toMatchObject({ result: 20 });
    expect(result.structuredContent).toMatchObject({ result: 20 });
    const call = await lastCall('calculate');
    expect(call).toMatchObject({ client: 'default', via: 'mcp (Test Desktop)', status: 'succeeded' });
    await client.close();
  });

  it('answers an unknown tool with JSON-RPC -32602', async () => {
    const { client } = await connect();
    const error = await client.callTool({ name: 'no_such_tool', arguments: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    await client.close();
  });

  it('returns invalid arguments and a disabled tool as isError results with the envelope error name', async () => {
    const { client } = await connect();
    const invalid = (await client.callTool({ name: 'calculate', arguments: { expression: 42 } })) as CallToolResult;
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toMatch(/^INVALID_ARGUMENTS: /);
    // calculate declares an outputSchema, which the envelope would break: a tool without one carries it.
    expect(invalid.structuredContent).toBeUndefined();
    const untyped = (await client.callTool({ name: 'text_process', arguments: { text: 'a' } })) as CallToolResult;
    expect(untyped.structuredContent).toMatchObject({ success: false, error: { name: 'INVALID_ARGUMENTS' } });

    const failed = (await client.callTool({ name: 'calculate', arguments: { expression: '1/' } })) as CallToolResult;
    expect(failed.isError).toBe(true);

    expect((await tg.asOwner('/tools/get_time', { method: 'PATCH', json: { enabled: false } })).status).toBe(200);
    try {
      const disabled = (await client.callTool({ name: 'get_time', arguments: {} })) as CallToolResult;
      expect(disabled.isError).toBe(true);
      expect(text(disabled)).toMatch(/^TOOL_DISABLED: /);
    } finally {
      await tg.asOwner('/tools/get_time', { method: 'PATCH', json: { enabled: true } });
    }
    await client.close();
  });

  it('sends notifications/tools/list_changed when a tool is toggled', async () => {
    const { client } = await connect();
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changes += 1));
    // The notification travels on the session's GET stream, opened after initialization.
    await until(async () => {
      expect((await tg.asOwner('/tools/text_process', { method: 'PATCH', json: { enabled: false } })).status).toBe(200);
      await tg.asOwner('/tools/text_process', { method: 'PATCH', json: { enabled: true } });
      return changes > 0;
    }, 'a list_changed notification');
    const { tools } = await client.listTools();
    expect(tools.some((t) => t.name === 'text_process')).toBe(true);
    await client.close();
  });

  it('keeps a call that asks open with progress until the owner allows it, then runs it once', async () => {
    const { client } = await connect();
    const progress: string[] = [];
    const answer = client.callTool({ name: 'danger_allow', arguments: { note: 'x' } }, undefined, {
      onprogress: (p) => void progress.push(p.message ?? ''),
      resetTimeoutOnProgress: true,
    });
    const approval = await pendingApproval('danger_allow');
    await until(() => progress.length > 0, 'a progress notification');
    expect(progress[0]).toMatch(/Waiting for the owner/);
    expect(runs.danger_allow).toBe(0);
    expect((await tg.asOwner(`/approvals/${approval.id}`, { json: { decision: 'allow_once' } })).status).toBe(200);
    const result = (await answer) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ runs: 1, note: 'x' });
    expect(runs.danger_allow).toBe(1);
    await client.close();
  });

  it('returns an owner denial as an isError result with the owner\'s message', async () => {
    const { client } = await connect();
    const answer = client.callTool({ name: 'danger_deny', arguments: {} });
    const approval = await pendingApproval('danger_deny');
    await tg.asOwner(`/approvals/${approval.id}`, { json: { decision: 'deny', message: 'not today' } });
    const result = (await answer) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^APPROVAL_DENIED: .*not today/);
    expect(runs.danger_deny).toBe(0);
    await client.close();
  });

  it('withdraws the approval when the client cancels the call (notifications/cancelled)', async () => {
    const { client } = await connect();
    const abort = new AbortController();
    const answer = client.callTool({ name: 'danger_cancel', arguments: {} }, undefined, { signal: abort.signal }).catch((e: unknown) => e);
    await pendingApproval('danger_cancel');
    abort.abort('changed my mind');
    await answer;
    await until(async () => {
      const body = (await (await tg.asOwner('/approvals')).json()) as Json;
      return !(body.approvals as Json[]).some((a) => a.tool === 'danger_cancel');
    }, 'the approval to be withdrawn');
    expect((await until(async () => {
      const call = await lastCall('danger_cancel');
      return call?.status === 'cancelled' && call;
    }, 'the call recorded cancelled')).status).toBe('cancelled');
    expect(runs.danger_cancel).toBe(0);
    await client.close();
  });

  it('binds a session to the token that opened it and ends it with DELETE', async () => {
    const { client, transport } = await connect();
    const sessionId = transport.sessionId!;
    expect(sessionId).toBeTruthy();
    const other = (await (await tg.asOwner('/clients', { json: { name: 'mcp-other' } })).json()) as Json;
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const foreign = await fetch(`${tg.url}/mcp`, { method: 'POST', headers: { ...headers, authorization: `Bearer ${other.token}` }, body: list });
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as Json).error.code).toBe(-32001);

    await transport.terminateSession();
    const after = await fetch(`${tg.url}/mcp`, { method: 'POST', headers: { ...headers, authorization: `Bearer ${tg.token}` }, body: list });
    expect(after.status).toBe(404);
    await client.close();
  });
});

describe('MCP endpoint over raw HTTP', () => {
  // With the tests' short progress interval an answer turns into a stream after 200 ms; on a busy machine even a quick
  // answer may take that long. What must come as plain JSON is asked of a gateway with the usual intervals.
  let quick: TestGateway;
  beforeAll(async () => {
    quick = await startGateway();
  });
  afterAll(async () => {
    await quick?.close();
  });
  const post = (body: string, headers: Record<string, string> = {}, gateway = tg) =>
    fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body,
    });
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
  });

  it('answers GET /mcp without a session with 405 and Allow, never 404', async () => {
    const res = await tg.api('/mcp', { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toMatch(/POST/);
  });

  it('answers malformed JSON with a JSON-RPC parse error (-32700) in JSON', async () => {
    const res = await post('{"jsonrpc": "2.0", "id": 1,');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(((await res.json()) as Json).error.code).toBe(-32700);
  });

  it('answers an unknown method with -32601', async () => {
    const init = await post(initialize);
    expect(init.status).toBe(200);
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.text();
    const res = await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'no/such_method' }), { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' });
    const body = await res.text();
    expect(body).toMatch(/-32601/);
  });

  it('applies the gateway\'s token, Host and Origin checks', async () => {
    const noToken = await fetch(`${tg.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: initialize });
    expect(noToken.status).toBe(401);
    expect((await post(initialize, { origin: 'http://evil.example' })).status).toBe(403);
  });

  it('refuses a request that is not initialize without a session', async () => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error).toBeTruthy();
  });

  /** A new session; its headers for the requests after initialize. */
  async function session(gateway = tg): Promise<Record<string, string>> {
    const init = await post(initialize, {}, gateway);
    expect(init.status).toBe(200);
    const sessionId = init.headers.get('mcp-session-id')!;
    expect(sessionId).toBeTruthy();
    await init.json();
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    expect((await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), headers, gateway)).status).toBe(202);
    return headers;
  }
  const rpc = (id: number, method: string, params?: Json) => JSON.stringify({ jsonrpc: '2.0', id, method, ...(params && { params }) });

  it('answers in plain JSON what needs no stream: initialize, tools/list, a quick call', async () => {
    const init = await post(initialize, {}, quick);
    expect(init.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await init.json()) as Json).result.serverInfo.name).toBe('pincer');
    const headers = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    const list = await post(rpc(1, 'tools/list'), headers, quick);
    expect(list.status).toBe(200);
    expect(list.headers.get('content-type')).toMatch(/^application\/json/);
    expect(list.headers.get('mcp-session-id')).toBe(headers['mcp-session-id']);
    expect(((await list.json()) as Json).result.tools.some((t: Json) => t.name === 'calculate')).toBe(true);
    const call = await post(rpc(2, 'tools/call', { name: 'calculate', arguments: { expression: '6*7' }, _meta: { progressToken: 'p' } }), headers, quick);
    expect(call.headers.get('content-type')).toMatch(/^application\/json/);
    const answer = (await call.json()) as Json;
    expect(answer.id).toBe(2);
    expect(answer.result.isError).toBeFalsy();
    expect(JSON.stringify(answer.result.structuredContent)).toMatch(/42/);
  });

  it('turns the answer of a call that waits for the owner into an SSE stream of progress, then the result, run once', async () => {
    const headers = await session();
    const res = await post(rpc(7, 'tools/call', { name: 'danger_stream', arguments: { note: 's' }, _meta: { progressToken: 'tok' } }), headers);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const stream = sseJson(res);
    const first = (await stream.next()).value;
    expect(first.method).toBe('notifications/progress');
    expect(first.params.progressToken).toBe('tok');
    expect(first.params.message).toMatch(/Waiting for the owner/);
    const approval = await pendingApproval('danger_stream');
    expect(runs.danger_stream).toBe(0);
    expect((await tg.asOwner(`/approvals/${approval.id}`, { json: { decision: 'allow_once' } })).status).toBe(200);
    let result: Json;
    for await (const message of stream) {
      if (message.id === 7) result = message;
      else expect(message.method).toBe('notifications/progress');
    }
    expect(result.result.structuredContent).toEqual({ runs: 1, note: 's' });
    expect(runs.danger_stream).toBe(1);
  });

  it('keeps a client that takes only JSON on JSON, even while a call waits for the owner', async () => {
    const headers = { ...(await session()), accept: 'application/json' };
    const answer = post(rpc(8, 'tools/call', { name: 'danger_json', arguments: {}, _meta: { progressToken: 'tok' } }), headers);
    const approval = await pendingApproval('danger_json');
    await tg.asOwner(`/approvals/${approval.id}`, { json: { decision: 'allow_once' } });
    const res = await answer;
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await res.json()) as Json).result.structuredContent).toEqual({ runs: 1, note: null });
  });

  it('turns a long wait into a stream even without a progress token, so the headers are not held back', async () => {
    const headers = await session();
    // The answer's headers come while the call still waits for the owner.
    const res = await post(rpc(40, 'tools/call', { name: 'danger_stream', arguments: { note: 'late' } }), headers);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const approval = await pendingApproval('danger_stream');
    const before = runs.danger_stream!;
    await tg.asOwner(`/approvals/${approval.id}`, { json: { decision: 'allow_once' } });
    const messages: Json[] = [];
    for await (const message of sseJson(res)) messages.push(message);
    expect(messages).toHaveLength(1);
    expect(messages[0].result.structuredContent).toEqual({ runs: before + 1, note: 'late' });
  });

  it('gives a client that takes only streams a stream, even for a quick answer', async () => {
    const headers = { ...(await session()), accept: 'text/event-stream' };
    const res = await post(rpc(9, 'ping'), headers);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const messages: Json[] = [];
    for await (const message of sseJson(res)) messages.push(message);
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 9, result: {} }]);
  });

  it('names what is wrong with a request\'s headers or shape, in JSON-RPC', async () => {
    const headers = await session();
    const cases: [string, Record<string, string>, string, number, RegExp][] = [
      ['accepts neither', { ...headers, accept: 'text/html' }, rpc(10, 'ping'), 406, /Accept/],
      ['not JSON content', { ...headers, 'content-type': 'text/plain' }, rpc(11, 'ping'), 415, /Content-Type/],
      ['unknown protocol version', { ...headers, 'mcp-protocol-version': '1999-01-01' }, rpc(12, 'ping'), 400, /1999-01-01/],
      ['initialize again', headers, initialize, 400, /already initialized/],
      ['not JSON-RPC', headers, JSON.stringify({ hello: 'world' }), 400, /JSON-RPC/],
      ['empty batch', headers, '[]', 400, /batch/],
    ];
    for (const [what, sent, body, status, message] of cases) {
      const res = await post(body, sent);
      expect(res.status, what).toBe(status);
      expect(res.headers.get('content-type'), what).toMatch(/^application\/json/);
      const answer = (await res.json()) as Json;
      expect(answer.error.message, what).toMatch(message);
    }
    // Still working after all that.
    expect(((await (await post(rpc(13, 'ping'), { ...headers, accept: 'application/json' })).json()) as Json).result).toEqual({});
  });

  it('names no session in the refusal of an initialize it cannot take (none was opened)', async () => {
    for (const headers of [{ accept: 'text/html' }, { 'content-type': 'text/plain' }] as Record<string, string>[]) {
      const res = await post(initialize, headers);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.headers.get('mcp-session-id')).toBeNull();
      await res.body?.cancel();
    }
  });

  it('answers a batch (older clients) with one JSON array in request order', async () => {
    const headers = await session(quick);
    const res = await post(JSON.stringify([JSON.parse(rpc(20, 'ping')), JSON.parse(rpc(21, 'tools/list'))]), headers, quick);
    const answers = (await res.json()) as Json[];
    expect(answers.map((a) => a.id)).toEqual([20, 21]);
    expect(answers[1].result.tools.length).toBeGreaterThan(0);
  });

  it('opens one notification stream per session (a second is refused with 409) and sends list_changed on it', async () => {
    const headers = await session();
    const get = () => fetch(`${tg.url}/mcp`, { headers: { authorization: `Bearer ${tg.token}`, accept: 'text/event-stream', ...headers } });
    const stream = await get();
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const second = await get();
    expect(second.status).toBe(409);
    await second.body?.cancel();
    const messages = sseJson(stream);
    expect((await tg.asOwner('/tools/get_time', { method: 'PATCH', json: { enabled: false } })).status).toBe(200);
    try {
      expect((await messages.next()).value).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    } finally {
      await tg.asOwner('/tools/get_time', { method: 'PATCH', json: { enabled: true } });
      await messages.return(undefined);
    }
  });

  it('ends a session with DELETE: a call still waiting for the owner gets an error answer and its approval is withdrawn', async () => {
    const headers = { ...(await session()), accept: 'application/json' };
    const res = post(rpc(30, 'tools/call', { name: 'danger_json', arguments: {} }), headers);
    await until(async () => {
      const body = (await (await tg.asOwner('/approvals')).json()) as Json;
      return (body.approvals as Json[]).some((a) => a.tool === 'danger_json');
    }, 'the call to wait for the owner');
    const del = await fetch(`${tg.url}/mcp`, { method: 'DELETE', headers: { authorization: `Bearer ${tg.token}`, ...headers } });
    expect(del.status).toBe(200);
    const answer = (await (await res).json()) as Json;
    expect(answer.id).toBe(30);
    expect(answer.error.message).toMatch(/session was closed/);
    await until(async () => {
      const body = (await (await tg.asOwner('/approvals')).json()) as Json;
      return !(body.approvals as Json[]).some((a) => a.tool === 'danger_json');
    }, 'the approval to be withdrawn');
    expect(runs.danger_json).toBe(1);
    expect((await post(rpc(31, 'ping'), headers)).status).toBe(404);
  });
});

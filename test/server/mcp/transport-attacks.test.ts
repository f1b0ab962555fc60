import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defineTool, type AnyTool } from '../../../server/index.js';
import { McpSessions } from '../../../server/mcp/sessions.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { sseJson } from '../../helpers/sse.js';
import { until } from '../../helpers/wait.js';

/**
 * MCP's Streamable HTTP endpoint against misbehaving clients, through the real HTTP API of a real gateway: batches
 * that are too big or malformed, ids reused or shared between sessions or not ids at all, clients that hang up,
 * cancel, send the wrong headers, another token's session id, too many sessions, bodies too big or too deep, and
 * requests that arrive while the gateway closes. Each case says what a demanding server does (MCP 2025-11-25
 * Streamable HTTP, JSON-RPC 2.0) and checks the session still works afterwards.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

// The registry of open sessions, for checking that it shrinks: taken from the first `open` on each gateway.
const opens = vi.spyOn(McpSessions.prototype, 'open');

const runs: Record<string, number> = {};
/** A tool whose every call asks the owner (dangerous), counting how often it really ran. */
function askingTool(name: string): AnyTool {
  runs[name] = 0;
  return defineTool<{ note?: string }, { runs: number; note: string | null }>({
    name,
    description: 'Test tool: dangerous, so every call asks the owner; counts its runs.',
    parameters: { type: 'object', properties: { note: { type: 'string' } } },
    category: 'test',
    risk: 'dangerous',
    annotations: { readOnlyHint: false, destructiveHint: true },
    handler: (args) => ({ runs: (runs[name]! += 1), note: args.note ?? null }),
  });
}
/** A tool that runs at once (safe), counting how often it ran. */
function countingTool(name: string): AnyTool {
  runs[name] = 0;
  return defineTool<Record<string, never>, { runs: number }>({
    name,
    description: 'Test tool: safe, runs at once; counts its runs.',
    parameters: { type: 'object', properties: {} },
    category: 'test',
    risk: 'safe',
    annotations: { readOnlyHint: true },
    handler: () => ({ runs: (runs[name]! += 1) }),
  });
}

const ASKING = ['wait_same_id', 'wait_two_sessions', 'wait_hangup_json', 'wait_hangup_sse', 'wait_cancel', 'wait_evicted', 'wait_closing', 'wait_hygiene'];
const tools = () => [...ASKING.map(askingTool), countingTool('count_batch'), countingTool('count_media')];

const rejections: unknown[] = [];
const onRejection = (reason: unknown) => void rejections.push(reason);
const warnings: string[] = [];
const onWarning = (warning: Error) => void (warning.name === 'MaxListenersExceededWarning' && warnings.push(warning.message));

let tg: TestGateway;
let sessions: McpSessions;

beforeAll(async () => {
  process.on('unhandledRejection', onRejection);
  process.on('warning', onWarning);
  tg = await startGateway({}, { extraTools: tools(), mcpProgressIntervalMs: 200 });
  await session();
  sessions = opens.mock.contexts.at(-1) as McpSessions;
});
afterAll(async () => {
  await tg?.close();
  process.off('unhandledRejection', onRejection);
  process.off('warning', onWarning);
});

const BOTH = 'application/json, text/event-stream';
const initialize = (name = 'attack-test', protocolVersion = '2025-11-25') =>
  JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name, version: '1.0.0' } } });
const message = (id: unknown, method: string, params?: Json) => ({ jsonrpc: '2.0', id, method, ...(params && { params }) });
const rpc = (id: unknown, method: string, params?: Json) => JSON.stringify(message(id, method, params));
const call = (id: unknown, tool: string, args: Json = {}, progressToken?: string) =>
  rpc(id, 'tools/call', { name: tool, arguments: args, ...(progressToken && { _meta: { progressToken } }) });

function post(body: RequestInit['body'], headers: Record<string, string> = {}, gateway = tg, init: RequestInit = {}): Promise<Response> {
  return fetch(`${gateway.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.token}`, 'content-type': 'application/json', accept: BOTH, ...headers },
    body,
    ...init,
  });
}
function get(headers: Record<string, string>, gateway = tg, init: RequestInit = {}): Promise<Response> {
  return fetch(`${gateway.url}/mcp`, { headers: { authorization: `Bearer ${gateway.token}`, accept: 'text/event-stream', ...headers }, ...init });
}
function del(headers: Record<string, string>, gateway = tg): Promise<Response> {
  return fetch(`${gateway.url}/mcp`, { method: 'DELETE', headers: { authorization: `Bearer ${gateway.token}`, ...headers } });
}

/** A new, initialized session: the headers for its requests after initialize. */
async function session(options: { gateway?: TestGateway; token?: string; name?: string; version?: string } = {}): Promise<Record<string, string>> {
  const gateway = options.gateway ?? tg;
  const auth = { authorization: `Bearer ${options.token ?? gateway.token}` };
  const init = await post(initialize(options.name, options.version), auth, gateway);
  expect(init.status).toBe(200);
  const answer = (await init.json()) as Json;
  expect(answer.result?.serverInfo?.name).toBe('pincer');
  const headers = { ...auth, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': answer.result.protocolVersion };
  expect((await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), headers, gateway)).status).toBe(202);
  return headers;
}

/** Every message of an answer, JSON or SSE. */
async function messages(res: Response): Promise<Json[]> {
  if (res.headers.get('content-type')?.startsWith('application/json')) {
    const body = (await res.json()) as Json;
    return Array.isArray(body) ? body : [body];
  }
  const all: Json[] = [];
  for await (const m of sseJson(res)) all.push(m);
  return all;
}

async function approvals(gateway = tg): Promise<Json[]> {
  return ((await (await gateway.asOwner('/approvals')).json()) as Json).approvals;
}
async function pendingApproval(tool: string, note?: string, gateway = tg): Promise<Json> {
  return until(async () => (await approvals(gateway)).find((a) => a.tool === tool && (note === undefined || a.arguments?.note === note)), `a pending approval for ${tool}`);
}
async function decide(approval: Json, decision = 'allow_once', gateway = tg): Promise<void> {
  expect((await gateway.asOwner(`/approvals/${approval.id}`, { json: { decision } })).status).toBe(200);
}
async function withdrawn(tool: string, gateway = tg): Promise<void> {
  await until(async () => !(await approvals(gateway)).some((a) => a.tool === tool), `the approval for ${tool} to be withdrawn`);
}
async function lastCall(tool: string, gateway = tg): Promise<Json> {
  return ((await (await gateway.api(`/calls?tool=${tool}`)).json()) as Json).calls[0];
}
async function stillWorks(headers: Record<string, string>, gateway = tg): Promise<void> {
  const res = await post(rpc('still-works', 'ping'), { ...headers, accept: 'application/json' }, gateway);
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 'still-works', result: {} });
}
async function rpcError(res: Response, status: number): Promise<Json> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await res.json()) as Json;
  expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: expect.any(Number), message: expect.any(String) } });
  return body.error;
}

/**
 * A raw request whose body is sent in two parts, so a test can act between them (or hang up instead). `received`
 * settles once the gateway has the headers and is reading the body (it answered `Expect: 100-continue`).
 */
function slowRequest(gateway: TestGateway, method: string, headers: Record<string, string>, body: string) {
  const full = Buffer.from(body);
  const split = Math.floor(full.length / 2);
  const req = httpRequest(`${gateway.url}/mcp`, { method, agent: false, headers: { ...headers, expect: '100-continue', 'content-length': String(full.length) } });
  const received = new Promise<void>((resolve) => req.once('continue', resolve));
  const response = new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.once('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      res.once('error', reject);
    });
    req.once('error', reject);
  });
  req.flushHeaders();
  void received.then(() => req.write(full.subarray(0, split)));
  return {
    received,
    finish: () => {
      void received.then(() => req.end(full.subarray(split)));
      return response;
    },
    hangUp: () => {
      response.catch(() => undefined);
      req.destroy();
    },
  };
}

describe('MCP Streamable HTTP: batches', () => {
  it('refuses a batch of 17 messages whole (400, -32600) and runs none of it; 16 are answered in order', async () => {
    const headers = await session();
    const tooMany = [...Array.from({ length: 16 }, (_, i) => message(i, 'ping')), message(16, 'tools/call', { name: 'count_batch', arguments: {} })];
    const error = await rpcError(await post(JSON.stringify(tooMany), headers), 400);
    expect(error.code).toBe(-32600);
    expect(error.message).toMatch(/a batch may hold 1 to 16/);
    expect(runs.count_batch).toBe(0);

    const sixteen = Array.from({ length: 16 }, (_, i) => message(i, 'ping'));
    const res = await post(JSON.stringify(sixteen), { ...headers, accept: 'application/json' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json[]).map((a) => a.id)).toEqual(sixteen.map((m) => m.id));
  });

  it('answers a batch as a batch: an array, even when it holds one request (JSON-RPC 2.0 §6)', async () => {
    const headers = await session();
    const one = await post(JSON.stringify([message('only', 'ping')]), { ...headers, accept: 'application/json' });
    expect(await one.json()).toEqual([{ jsonrpc: '2.0', id: 'only', result: {} }]);
    const withNotification = await post(JSON.stringify([message('req', 'ping'), { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'x', progress: 1 } }]), { ...headers, accept: 'application/json' });
    expect(await withNotification.json()).toEqual([{ jsonrpc: '2.0', id: 'req', result: {} }]);
    // A single message is answered with a single message.
    expect(await (await post(rpc('single', 'ping'), { ...headers, accept: 'application/json' })).json()).toEqual({ jsonrpc: '2.0', id: 'single', result: {} });
  });

  it('refuses initialize inside a batch, with or without a session, and opens no session for it', async () => {
    const before = sessions.size;
    const batch = JSON.stringify([JSON.parse(initialize()), message(1, 'ping')]);
    const fresh = await post(batch);
    await rpcError(fresh, 400);
    expect(fresh.headers.get('mcp-session-id')).toBeNull();
    expect(sessions.size).toBe(before);

    const headers = await session();
    const error = await rpcError(await post(batch, headers), 400);
    expect(error.code).toBe(-32600);
    await stillWorks(headers);
  });

  it('refuses a batch that uses one id twice, instead of leaving its POST without an answer', async () => {
    const headers = await session();
    const res = await post(JSON.stringify([message(6, 'ping'), message(6, 'tools/list')]), { ...headers, accept: 'application/json' });
    const error = await rpcError(res, 400);
    expect(error.code).toBe(-32600);
    expect(error.message).toMatch(/6/);
    // The same, with 6 and "6": different ids, both answered, each with its own.
    const mixed = await post(JSON.stringify([message(6, 'ping'), message('6', 'tools/list')]), { ...headers, accept: 'application/json' });
    const answers = (await mixed.json()) as Json[];
    expect(answers.map((a) => a.id)).toEqual([6, '6']);
    expect(answers[0].result).toEqual({});
    expect(answers[1].result.tools.length).toBeGreaterThan(0);
    await stillWorks(headers);
  });
});

describe('MCP Streamable HTTP: request ids', () => {
  it('refuses a request id reused while the first is in flight, and the first still gets its own answer', async () => {
    const headers = { ...(await session()), accept: 'application/json' };
    const first = post(call(5, 'wait_same_id', { note: 'first' }), headers);
    const approval = await pendingApproval('wait_same_id');
    const error = await rpcError(await post(rpc(5, 'ping'), headers), 400);
    expect(error.code).toBe(-32600);
    expect(error.message).toMatch(/in flight/);
    await decide(approval);
    const answer = (await (await first).json()) as Json;
    expect(answer.id).toBe(5);
    expect(answer.result.structuredContent).toEqual({ runs: 1, note: 'first' });
    // Once answered, the id is free again.
    expect(await (await post(rpc(5, 'ping'), headers)).json()).toEqual({ jsonrpc: '2.0', id: 5, result: {} });
  });

  it('keeps one id in two sessions apart: answers go to their own session, a cancel touches only its own', async () => {
    const a = { ...(await session()), accept: 'application/json' };
    const b = { ...(await session()), accept: 'application/json' };
    const answerA = post(call(1, 'wait_two_sessions', { note: 'A' }), a);
    const answerB = post(call(1, 'wait_two_sessions', { note: 'B' }), b);
    const approvalA = await pendingApproval('wait_two_sessions', 'A');
    const approvalB = await pendingApproval('wait_two_sessions', 'B');
    // B cancels its request 1: A's request 1 is not B's to cancel.
    const cancel = await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'B changed its mind' } }), b);
    expect(cancel.status).toBe(202);
    await until(async () => !(await approvals()).some((x) => x.id === approvalB.id), 'B\'s approval to be withdrawn');
    expect((await approvals()).some((x) => x.id === approvalA.id)).toBe(true);
    await decide(approvalA);
    const answer = (await (await answerA).json()) as Json;
    expect(answer).toMatchObject({ id: 1, result: { structuredContent: { runs: 1, note: 'A' } } });
    // B's cancelled request has no answer (MCP: the receiver does not answer a cancelled request); its POST ended.
    const ended = await answerB;
    expect(ended.status).toBe(202);
    expect(await ended.text()).toBe('');
    expect(runs.wait_two_sessions).toBe(1);
  });

  it('refuses ids that JSON-RPC and MCP do not allow (null, object, fraction, boolean, integers past 2^53) and messages that are not JSON-RPC 2.0', async () => {
    const headers = await session();
    for (const bad of [
      rpc(null, 'ping'),
      // Past 2^53 a number id would come back as another number: the client could not match its answer.
      '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}',
      rpc(1e300, 'ping'),
      rpc({}, 'ping'),
      rpc([1], 'ping'),
      rpc(1.5, 'ping'),
      rpc(true, 'ping'),
      JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'ping' }),
      JSON.stringify({ id: 1, method: 'ping' }),
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 7 }),
      'null',
      '"ping"',
      '42',
    ]) {
      const error = await rpcError(await post(bad, headers), 400);
      expect(error.code, bad).toBe(-32600);
    }
    await stillWorks(headers);
  });

  it('answers odd but valid ids exactly as sent: 0, "", negative, 2^53-1, a 100 kB string, "__proto__", 1 next to "1"', async () => {
    const headers = { ...(await session()), accept: 'application/json' };
    const huge = 'x'.repeat(100_000);
    for (const id of [0, '', -7, 9007199254740991, huge, '__proto__', 'constructor', 'hasOwnProperty']) {
      const res = await post(rpc(id, 'ping'), headers);
      expect(res.status, String(id).slice(0, 20)).toBe(200);
      expect(await res.json()).toEqual({ jsonrpc: '2.0', id, result: {} });
    }
    const pair = await post(JSON.stringify([message(1, 'ping'), message('1', 'ping')]), headers);
    expect(((await pair.json()) as Json[]).map((a) => a.id)).toEqual([1, '1']);
  });

  it('takes a response for an id the server never sent (202) and goes on', async () => {
    const headers = await session();
    for (const response of [
      { jsonrpc: '2.0', id: 999, result: {} },
      { jsonrpc: '2.0', id: 'never-sent', error: { code: -32603, message: 'nope' } },
      { jsonrpc: '2.0', id: 0, result: { content: [] } },
    ]) {
      const res = await post(JSON.stringify(response), headers);
      expect(res.status).toBe(202);
      expect(await res.text()).toBe('');
    }
    await stillWorks(headers);
  });

  it('answers notifications only (one, a batch, unknown methods, a cancel for nothing) with 202 and no body', async () => {
    const headers = await session();
    for (const body of [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: 'notifications/no_such_thing', params: { x: 1 } },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nothing-in-flight' } },
      [{ jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', method: 'notifications/roots/list_changed' }],
    ]) {
      const res = await post(JSON.stringify(body), headers);
      expect(res.status).toBe(202);
      expect(res.headers.get('mcp-session-id')).toBe(headers['mcp-session-id']);
      expect(await res.text()).toBe('');
    }
    await stillWorks(headers);
  });
});

describe('MCP Streamable HTTP: clients that leave', () => {
  it('withdraws the approval and records the call cancelled when the client hangs up on a waiting JSON answer; the session goes on', async () => {
    const headers = { ...(await session()), accept: 'application/json' };
    const hangUp = new AbortController();
    const answer = post(call(0, 'wait_hangup_json'), headers, tg, { signal: hangUp.signal }).catch((e: unknown) => e);
    await pendingApproval('wait_hangup_json');
    hangUp.abort();
    expect(await answer).toBeInstanceOf(Error);
    await withdrawn('wait_hangup_json');
    await until(async () => (await lastCall('wait_hangup_json'))?.status === 'cancelled', 'the call to be recorded cancelled');
    expect(runs.wait_hangup_json).toBe(0);
    // The id is free again and the session answers.
    expect(await (await post(rpc(0, 'ping'), headers)).json()).toEqual({ jsonrpc: '2.0', id: 0, result: {} });
    await stillWorks(headers);
  });

  it('does the same when the client hangs up on an answer that became an SSE stream', async () => {
    const headers = await session();
    const hangUp = new AbortController();
    const res = await post(call('s', 'wait_hangup_sse', {}, 'progress'), headers, tg, { signal: hangUp.signal });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const stream = sseJson(res);
    expect((await stream.next()).value.method).toBe('notifications/progress');
    await pendingApproval('wait_hangup_sse');
    hangUp.abort();
    await withdrawn('wait_hangup_sse');
    await until(async () => (await lastCall('wait_hangup_sse'))?.status === 'cancelled', 'the call to be recorded cancelled');
    expect(runs.wait_hangup_sse).toBe(0);
    await stillWorks(headers);
  });

  it('ends the POST of a call the client cancels (notifications/cancelled): no answer, no open stream left behind', async () => {
    const headers = await session();
    // Streamed: progress, then the stream ends without an answer.
    const res = await post(call('c1', 'wait_cancel', { note: 'sse' }, 'progress'), headers);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await pendingApproval('wait_cancel', 'sse');
    expect((await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c1' } }), headers)).status).toBe(202);
    const streamed = await messages(res);
    expect(streamed.every((m) => m.method === 'notifications/progress')).toBe(true);
    await withdrawn('wait_cancel');
    // A client that takes only JSON: 202, nothing to answer.
    const json = post(call('c2', 'wait_cancel', { note: 'json' }), { ...headers, accept: 'application/json' });
    await pendingApproval('wait_cancel', 'json');
    expect((await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c2' } }), headers)).status).toBe(202);
    const done = await json;
    expect(done.status).toBe(202);
    expect(await done.text()).toBe('');
    await withdrawn('wait_cancel');
    // In a batch, the request not cancelled is still answered.
    const batch = post(JSON.stringify([JSON.parse(call('c3', 'wait_cancel', { note: 'batch' })), message('c4', 'ping')]), { ...headers, accept: 'application/json' });
    await pendingApproval('wait_cancel', 'batch');
    await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c3' } }), headers);
    expect(await (await batch).json()).toEqual([{ jsonrpc: '2.0', id: 'c4', result: {} }]);
    await withdrawn('wait_cancel');
    // Ids 0 and "" are ids like any other: cancelling them stops the call too.
    for (const id of [0, '']) {
      const zero = post(call(id, 'wait_cancel', { note: `falsy ${JSON.stringify(id)}` }), { ...headers, accept: 'application/json' });
      await pendingApproval('wait_cancel', `falsy ${JSON.stringify(id)}`);
      // A second request with that id, refused, does not change which call the cancel reaches.
      expect((await post(rpc(id, 'ping'), headers)).status).toBe(400);
      expect((await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } }), headers)).status).toBe(202);
      expect((await zero).status).toBe(202);
      await withdrawn('wait_cancel');
      await until(async () => (await lastCall('wait_cancel'))?.status === 'cancelled', 'the call to be recorded cancelled');
    }
    expect(runs.wait_cancel).toBe(0);
    await stillWorks(headers);
  });

  it('survives a client that hangs up halfway through sending its body', async () => {
    const headers = await session();
    const half = slowRequest(tg, 'POST', { ...headers, 'content-type': 'application/json', accept: BOTH }, rpc('half', 'ping'));
    half.hangUp();
    const halfInit = slowRequest(tg, 'POST', { authorization: headers.authorization!, 'content-type': 'application/json', accept: BOTH }, initialize());
    halfInit.hangUp();
    await stillWorks(headers);
  });
});

describe('MCP Streamable HTTP: the notification stream and the end of a session', () => {
  it('ends the notification stream when the session is deleted, and a second DELETE is 404', async () => {
    const headers = await session();
    const stream = await get(headers);
    expect(stream.status).toBe(200);
    const read = messages(stream);
    expect((await del(headers)).status).toBe(200);
    expect(await read).toEqual([]);
    const again = await del(headers);
    expect((await rpcError(again, 404)).code).toBe(-32001);
    expect((await get(headers)).status).toBe(404);
    expect((await post(rpc(1, 'ping'), headers)).status).toBe(404);
  });

  it('refuses a GET that does not take event streams (406) and opens a new stream once a client hangs up on the old one', async () => {
    const headers = await session();
    for (const accept of ['application/json', 'text/html', 'text/event-stream;q=0, application/json']) {
      const res = await get({ ...headers, accept });
      expect((await rpcError(res, 406)).message, accept).toMatch(/text\/event-stream/);
    }
    const hangUp = new AbortController();
    const first = await get(headers, tg, { signal: hangUp.signal });
    expect(first.status).toBe(200);
    expect((await get(headers)).status).toBe(409);
    hangUp.abort();
    const second = await until(async () => {
      const res = await get(headers);
      if (res.status === 409) return void (await res.body?.cancel());
      return res;
    }, 'the old stream to be gone');
    expect(second.status).toBe(200);
    expect(second.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await second.body?.cancel();
  });

  it('answers another token\'s session id exactly as an unknown one (404), for POST, GET and DELETE, and leaves the session alone', async () => {
    const created = (await (await tg.asOwner('/clients', { json: { name: 'attack-other' } })).json()) as Json;
    const mine = await session();
    const theirs = { ...mine, authorization: `Bearer ${created.token}` };
    const unknown = { ...theirs, 'mcp-session-id': '00000000-0000-4000-8000-000000000000' };
    for (const [what, send] of [
      ['POST', (h: Record<string, string>) => post(rpc(1, 'tools/list'), h)],
      ['GET', (h: Record<string, string>) => get(h)],
      ['DELETE', (h: Record<string, string>) => del(h)],
    ] as const) {
      const stolen = await send(theirs);
      const missing = await send(unknown);
      expect(stolen.status, what).toBe(404);
      expect([...stolen.headers.keys()].sort(), what).toEqual([...missing.headers.keys()].sort());
      expect(stolen.headers.get('mcp-session-id'), what).toBeNull();
      expect(await stolen.text(), what).toBe(await missing.text());
    }
    await stillWorks(mine);
    // The session's notification stream is still its owner's to open (the other token's GET did not take it).
    const stream = await get(mine);
    expect(stream.status).toBe(200);
    await stream.body?.cancel();
  });

  it('keeps at most 32 sessions per token: the 33rd closes the least recently used (its stream ends, then 404), others untouched', async () => {
    const created = (await (await tg.asOwner('/clients', { json: { name: 'attack-many' } })).json()) as Json;
    const other = await session();
    const oldest = await session({ token: created.token });
    const oldestStream = await get(oldest);
    const waiting = post(call('w', 'wait_evicted'), { ...oldest, accept: 'application/json' });
    await pendingApproval('wait_evicted');
    const before = sessions.size;
    const rest: Record<string, string>[] = [];
    for (let i = 0; i < 31; i++) rest.push(await session({ token: created.token }));
    expect(sessions.size).toBe(before + 31);
    await stillWorks(oldest);
    // The 33rd: the least recently used is now the second one opened, not `oldest`, which was just used.
    const newest = await session({ token: created.token });
    expect(sessions.size).toBe(before + 31);
    expect((await post(rpc(1, 'ping'), rest[0]!)).status).toBe(404);
    await stillWorks(oldest);
    await stillWorks(newest);
    await stillWorks(other);
    // One more, and one more: the used one goes once it is the least recently used.
    for (let i = 1; i < 31; i++) await stillWorks(rest[i]!);
    await stillWorks(newest);
    await session({ token: created.token });
    expect(await messages(oldestStream)).toEqual([]);
    const evicted = await post(rpc(1, 'ping'), oldest);
    expect((await rpcError(evicted, 404)).code).toBe(-32001);
    // Its waiting call was answered with an error, and its approval withdrawn.
    expect(((await (await waiting).json()) as Json).error.message).toMatch(/session was closed/);
    await withdrawn('wait_evicted');
    await stillWorks(other);
  });
});

describe('MCP Streamable HTTP: bodies and headers', () => {
  it('refuses JSON nested deeper than the limit with a parse error naming the depth', async () => {
    const headers = await session();
    const deep = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count_batch","arguments":{"a":${'['.repeat(5000)}${']'.repeat(5000)}}}}`;
    const error = await rpcError(await post(deep, headers), 400);
    expect(error.code).toBe(-32700);
    expect(error.message).toMatch(/deep/);
    const unbalanced = '['.repeat(200_000);
    expect((await rpcError(await post(unbalanced, headers), 400)).code).toBe(-32700);
    await stillWorks(headers);
  });

  it('refuses a body over the limit with 413 in JSON-RPC, declared or streamed, and a prototype key with a parse error', async () => {
    const headers = await session();
    const big = rpc(1, 'tools/call', { name: 'count_batch', arguments: { pad: 'x'.repeat(2 * 2 ** 20) } });
    const declared = await post(big, headers);
    expect((await rpcError(declared, 413)).message).toMatch(/limit/);
    const chunks = new TextEncoder().encode(big);
    const streamed = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < chunks.length; i += 65_536) controller.enqueue(chunks.subarray(i, i + 65_536));
        controller.close();
      },
    });
    const chunked = await post(streamed, headers, tg, { duplex: 'half' } as RequestInit);
    expect((await rpcError(chunked, 413)).message).toMatch(/limit/);
    const proto = await post('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"__proto__":{"x":1}}}', headers);
    expect((await rpcError(proto, 400)).code).toBe(-32700);
    expect(runs.count_batch).toBe(0);
    await stillWorks(headers);
  });

  it('refuses a body that is not sent as JSON (415) and runs nothing', async () => {
    const headers = await session();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx', 'multipart/form-data; boundary=x']) {
      const res = await post(call(1, 'count_media'), { ...headers, 'content-type': type });
      expect((await rpcError(res, 415)).message, type).toMatch(/Content-Type/);
    }
    const none = await fetch(`${tg.url}/mcp`, { method: 'POST', headers: { ...headers, accept: BOTH }, body: new Blob([call(1, 'count_media')]) });
    expect(none.status).toBe(415);
    await none.text();
    expect(runs.count_media).toBe(0);
    const ok = await post(call(1, 'count_media'), { ...headers, 'content-type': 'Application/JSON; charset=utf-8', accept: 'application/json' });
    expect(((await ok.json()) as Json).result.structuredContent).toEqual({ runs: 1 });
  });

  it('reads Accept as HTTP does: */*, q-values, and q=0 meaning "not this"', async () => {
    const headers = await session();
    const answerType = async (accept: string) => {
      const res = await post(rpc('a', 'ping'), { ...headers, accept });
      expect(res.status, accept).toBe(200);
      const type = res.headers.get('content-type');
      expect(await messages(res), accept).toEqual([{ jsonrpc: '2.0', id: 'a', result: {} }]);
      return type;
    };
    expect(await answerType('*/*')).toMatch(/^application\/json/);
    expect(await answerType('application/json;q=0.9, text/event-stream;q=0.1')).toMatch(/^application\/json/);
    expect(await answerType('text/event-stream;q=0.1, application/json;q=0.9')).toMatch(/^application\/json/);
    expect(await answerType('application/*')).toMatch(/^application\/json/);
    expect(await answerType('text/*')).toMatch(/^text\/event-stream/);
    expect(await answerType('application/json;q=0, text/event-stream')).toMatch(/^text\/event-stream/);
    expect(await answerType('APPLICATION/JSON')).toMatch(/^application\/json/);
    for (const refused of ['application/json;q=0', 'application/json; q=0.000, text/event-stream;q=0', 'image/png', '*/*;q=0']) {
      expect((await post(rpc(1, 'ping'), { ...headers, accept: refused })).status, refused).toBe(406);
    }
  });

  it('speaks an older supported protocol version (2025-06-18) and refuses garbage in MCP-Protocol-Version', async () => {
    const older = await session({ version: '2025-06-18' });
    expect(older['mcp-protocol-version']).toBe('2025-06-18');
    await stillWorks(older);
    const tools = await post(rpc(2, 'tools/list'), { ...older, accept: 'application/json' });
    expect(((await tools.json()) as Json).result.tools.length).toBeGreaterThan(0);
    // An unknown version at initialize is answered with the latest the server speaks (MCP lifecycle).
    const unknownInit = await post(initialize('x', '1999-01-01'), { accept: 'application/json' });
    expect(((await unknownInit.json()) as Json).result.protocolVersion).toBe('2025-11-25');
    for (const garbage of ['garbage', '2025-11-25, 2025-06-18', '', ' 2025-11-25x', '../../etc/passwd']) {
      const res = await post(rpc(3, 'ping'), { ...older, 'mcp-protocol-version': garbage });
      expect((await rpcError(res, 400)).message, garbage).toMatch(/MCP-Protocol-Version/);
    }
    await stillWorks(older);
  });

  it('records a call\'s via with the client\'s name cleaned of control, format and bidi characters, cut short', async () => {
    const name = '\u001b[31mEvil\u0007 Client\r\nINFO fake line\u202egnp.exe\u200b\u0000 ' + 'y'.repeat(200);
    const headers = await session({ name });
    const res = await post(call(1, 'count_media'), { ...headers, accept: 'application/json' });
    expect(((await res.json()) as Json).result.isError).toBeFalsy();
    const via: string = (await lastCall('count_media')).via;
    expect(via).toMatch(/^mcp \(\[31mEvil Client INFO fake line gnp\.exe y+\)$/);
    expect(via).not.toMatch(/[\p{C}]/u);
    expect(via.length).toBeLessThanOrEqual('mcp ()'.length + 64);
  });

  it('cuts a long client name between characters, never through an emoji', async () => {
    const headers = await session({ name: 'x'.repeat(63) + '🦀🦀' });
    await (await post(call(2, 'count_media'), { ...headers, accept: 'application/json' })).json();
    expect((await lastCall('count_media')).via).toBe(`mcp (${'x'.repeat(63)}🦀)`);
  });

  it('opens no session for an initialize the server refuses (bad params): it answers the error, then the id is unknown', async () => {
    const before = sessions.size;
    const bad = await post(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 5 } }));
    const answer = (await bad.json()) as Json;
    expect(answer.error.message).toBeTruthy();
    const sessionId = bad.headers.get('mcp-session-id');
    await until(() => sessions.size === before, 'the refused session to be gone');
    if (sessionId) {
      const later = await post(rpc(1, 'ping'), { 'mcp-session-id': sessionId, accept: 'application/json' });
      expect(later.status).toBe(404);
    }
  });
});

describe('MCP Streamable HTTP: the gateway closing, and what is left behind', () => {
  it('after "closing": open sessions are gone (404), a new initialize is refused (503), waiting calls and streams are ended', async () => {
    const gw = await startGateway({}, { extraTools: [askingTool('wait_closing')], mcpProgressIntervalMs: 200 });
    const headers = await session({ gateway: gw });
    const stream = await get(headers, gw);
    const streamDone = messages(stream);
    const waiting = post(call('w', 'wait_closing', {}, 'p'), headers, gw).then(messages);
    await pendingApproval('wait_closing', undefined, gw);
    // Requests whose bodies are still arriving when the gateway starts closing, finished once it has.
    const late = slowRequest(gw, 'POST', { ...headers, 'content-type': 'application/json', accept: BOTH }, rpc('late', 'ping'));
    const lateInit = slowRequest(gw, 'POST', { authorization: headers.authorization!, 'content-type': 'application/json', accept: BOTH }, initialize());
    let answers: Promise<[Awaited<ReturnType<typeof late.finish>>, Awaited<ReturnType<typeof late.finish>>]> | undefined;
    await Promise.all([late.received, lateInit.received]);
    gw.gateway.events.once('closing', () => void (answers = Promise.all([late.finish(), lateInit.finish()])));
    const closed = gw.close();
    const waited = await waiting;
    expect(waited.at(-1)).toMatchObject({ id: 'w', result: { isError: true } });
    expect(await streamDone).toEqual([]);
    await until(() => answers, 'the gateway to start closing');
    const [afterClose, initAfterClose] = await answers!;
    expect(afterClose.status).toBe(404);
    expect(JSON.parse(afterClose.body).error.code).toBe(-32001);
    expect(initAfterClose.status).toBe(503);
    expect(initAfterClose.headers['mcp-session-id']).toBeUndefined();
    expect(JSON.parse(initAfterClose.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { message: expect.stringMatching(/shutting down|closing/) } });
    await closed;
    expect(runs.wait_closing).toBe(0);
  });

  it('forgets closed sessions and leaves no timer running: streams end from the server side when the gateway closes', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const baseline = timers();
    const gw = await startGateway({}, { extraTools: [askingTool('wait_hygiene')], mcpProgressIntervalMs: 50 });
    const first = await session({ gateway: gw });
    const registry = opens.mock.contexts.at(-1) as McpSessions;
    expect(registry.size).toBe(1);
    const more = [await session({ gateway: gw }), await session({ gateway: gw }), await session({ gateway: gw })];
    expect(registry.size).toBe(4);
    // Work that starts timers: a streamed wait with progress that the client abandons, a GET stream, a quick call.
    const hangUp = new AbortController();
    const abandoned = await post(call('h', 'wait_hygiene', {}, 'p'), first, gw, { signal: hangUp.signal });
    expect(abandoned.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await pendingApproval('wait_hygiene', undefined, gw);
    hangUp.abort();
    await withdrawn('wait_hygiene', gw);
    const stream = await get(more[0]!, gw);
    const streamDone = messages(stream);
    await stillWorks(more[1]!, gw);
    for (const headers of [first, more[1]!, more[2]!]) expect((await del(headers, gw)).status).toBe(200);
    expect(registry.size).toBe(1);
    await gw.close();
    expect(registry.size).toBe(0);
    // Ended by the server ("closing"), not cut off with the connection: the read finishes without an error.
    expect(await streamDone).toEqual([]);
    await until(() => timers() <= baseline, 'the gateway\'s timers to be gone');
  });

  it('left no unhandled promise rejection and no listener-leak warning behind', () => {
    expect(rejections).toEqual([]);
    expect(warnings).toEqual([]);
  });
});

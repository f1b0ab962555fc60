/**
 * The direct route of tool calls (POST /tools/{name}/execute in its plain form, answered without Express's router)
 * must answer every request exactly as the app does: each check, one request per case, sent both ways — the plain
 * path, which takes the direct route, and the same path with a trailing slash, which the app's router takes.
 */
import { request, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool } from '../../../server/index.js';
import { directCalls } from '../../../server/http/direct-calls.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';

let runs = 0;
/** Counts its runs, so a refused request is seen not to have run it on either route. */
const counter = defineTool<{ n?: number }, { n: number }>({
  name: 'count_runs',
  description: 'Test tool that counts its runs.',
  parameters: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false },
  category: 'test',
  risk: 'safe',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: ({ n }) => {
    runs++;
    return { n: n ?? 0 };
  },
});

interface Sent {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

function send(port: number, path: string, headers: Record<string, string>, body: string | undefined, setHost = true): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const client = request({ host: '127.0.0.1', port, method: 'POST', path, headers, setHost, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (chunk: Buffer) => parts.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(parts).toString('utf8') }));
      res.on('error', reject);
    });
    client.on('error', reject);
    client.end(body);
  });
}

/** Headers that differ between any two answers. */
const PER_ANSWER = new Set(['date', 'content-length', 'connection', 'keep-alive']);

/**
 * What must agree between the two routes: status, every header but those of the moment (so a header a middleware
 * adds for every request is seen missing from the direct route), and the envelope without its call's id and time.
 */
function comparable(sent: Sent): unknown {
  const body = JSON.parse(sent.text) as Record<string, unknown>;
  delete body.call_id;
  delete body.duration_ms;
  const headers = Object.fromEntries(Object.entries(sent.headers).filter(([name]) => !PER_ANSWER.has(name)));
  return { status: sent.status, headers, body };
}

let tg: TestGateway;
const LIMIT = 2048;

beforeAll(async () => {
  tg = await startGateway({ bodyLimitBytes: LIMIT, jsonMaxDepth: 8 }, { extraTools: [counter] });
});
afterAll(async () => {
  await tg?.close();
});

interface Case {
  name: string;
  headers: (tg: TestGateway) => Promise<Record<string, string>> | Record<string, string>;
  body?: string;
  tool?: string;
  setHost?: boolean;
  status: number;
  error?: string;
  ran?: boolean;
}

const asClient = (extra: Record<string, string> = {}) => (gw: TestGateway) => ({ authorization: `Bearer ${gw.token}`, 'content-type': 'application/json', ...extra });

const CASES: Case[] = [
  { name: 'a call that runs', headers: asClient(), body: '{"n":3}', status: 200, ran: true },
  { name: 'a call with no body (all its arguments optional)', headers: (gw) => ({ authorization: `Bearer ${gw.token}` }), status: 200, ran: true },
  { name: 'the token as X-API-Key', headers: (gw) => ({ 'x-api-key': gw.token, 'content-type': 'application/json' }), body: '{}', status: 200, ran: true },
  { name: 'no token', headers: () => ({ 'content-type': 'application/json' }), body: '{}', status: 401, error: 'AUTH_MISSING' },
  { name: 'an empty Bearer token', headers: () => ({ authorization: 'Bearer ', 'content-type': 'application/json' }), body: '{}', status: 401, error: 'AUTH_MISSING' },
  { name: 'an unknown token', headers: () => ({ authorization: 'Bearer pk_not_a_real_token_at_all', 'content-type': 'application/json' }), body: '{}', status: 401, error: 'AUTH_FAILED' },
  { name: 'a foreign Host (DNS rebinding)', headers: asClient({ host: 'attacker.example' }), body: '{}', status: 403, error: 'HOST_NOT_ALLOWED' },
  { name: 'no Host at all', headers: asClient(), body: '{}', setHost: false, status: 403, error: 'HOST_NOT_ALLOWED' },
  { name: 'a foreign Origin (a web page)', headers: asClient({ origin: 'https://attacker.example' }), body: '{}', status: 403, error: 'ORIGIN_NOT_ALLOWED' },
  { name: 'the opaque "null" Origin', headers: asClient({ origin: 'null' }), body: '{}', status: 403, error: 'ORIGIN_NOT_ALLOWED' },
  {
    name: "the owner's session cookie without the dashboard's Origin (CSRF)",
    headers: async (gw) => ({ cookie: (await gw.ownerHeaders()).cookie!, 'content-type': 'application/json' }),
    body: '{}',
    status: 403,
    error: 'ORIGIN_NOT_ALLOWED',
  },
  { name: "the owner's session from the dashboard", headers: async (gw) => ({ ...(await gw.ownerHeaders()), 'content-type': 'application/json' }), body: '{}', status: 200, ran: true },
  { name: 'a text/plain body (a cross-site "simple" request)', headers: asClient({ 'content-type': 'text/plain' }), body: '{}', status: 415, error: 'UNSUPPORTED_MEDIA_TYPE' },
  { name: 'an empty form body', headers: asClient({ 'content-type': 'application/x-www-form-urlencoded' }), body: '', status: 415, error: 'UNSUPPORTED_MEDIA_TYPE' },
  { name: 'a JSON body in another charset', headers: asClient({ 'content-type': 'application/json; charset=latin1' }), body: '{}', status: 415, error: 'UNSUPPORTED_MEDIA_TYPE' },
  { name: 'a body over the limit', headers: asClient(), body: JSON.stringify({ pad: 'x'.repeat(LIMIT) }), status: 413, error: 'PAYLOAD_TOO_LARGE' },
  { name: 'a chunked body over the limit', headers: asClient({ 'transfer-encoding': 'chunked' }), body: JSON.stringify({ pad: 'x'.repeat(LIMIT) }), status: 413, error: 'PAYLOAD_TOO_LARGE' },
  { name: 'a body that is not JSON', headers: asClient(), body: '{"n": 3', status: 400, error: 'INVALID_JSON' },
  { name: 'JSON nested deeper than allowed', headers: asClient(), body: `${'['.repeat(20)}${']'.repeat(20)}`, status: 400 },
  { name: 'arguments the schema refuses', headers: asClient(), body: '{"n":"three"}', status: 400, error: 'INVALID_ARGUMENTS' },
  { name: 'a tool that does not exist', headers: asClient(), body: '{}', tool: 'count_run', status: 404, error: 'TOOL_NOT_FOUND' },
];

describe('POST /tools/{name}/execute answers the same by the direct route and through the app', () => {
  it.each(CASES)('$name', async (c) => {
    const headers = await c.headers(tg);
    const tool = c.tool ?? 'count_runs';
    runs = 0;
    const direct = await send(tg.port, `/tools/${tool}/execute`, headers, c.body, c.setHost);
    const ranDirect = runs;
    const viaApp = await send(tg.port, `/tools/${tool}/execute/`, headers, c.body, c.setHost);
    expect(direct.status, direct.text).toBe(c.status);
    expect(comparable(direct)).toEqual(comparable(viaApp));
    if (c.error) expect(JSON.parse(direct.text).error.name).toBe(c.error);
    // Refused means not run, on either route.
    expect([ranDirect, runs - ranDirect]).toEqual(c.ran ? [1, 1] : [0, 0]);
  });

  it('takes a query string, as the app does', async () => {
    const sent = await send(tg.port, '/tools/count_runs/execute?verbose=1', asClient()(tg), '{"n":5}');
    expect(JSON.parse(sent.text)).toMatchObject({ success: true, result: { n: 5 } });
  });

  it('leaves another spelling of the name to the app, with the same outcome', async () => {
    const encoded = await send(tg.port, '/tools/count%5Fruns/execute', asClient()(tg), '{"n":7}');
    expect(JSON.parse(encoded.text)).toMatchObject({ success: true, result: { n: 7 } });
    const shouted = await send(tg.port, '/TOOLS/count_runs/EXECUTE', asClient()(tg), '{"n":8}');
    expect(JSON.parse(shouted.text)).toMatchObject({ success: true, result: { n: 8 } });
  });

  it('records a call that came by the direct route like any other', async () => {
    const sent = await send(tg.port, '/tools/count_runs/execute', asClient()(tg), '{"n":9}');
    const { call_id: id } = JSON.parse(sent.text) as { call_id: string };
    const recorded = await (await tg.api(`/calls/${id}`)).json();
    expect(recorded).toMatchObject({ id, tool: 'count_runs', via: 'http', status: 'succeeded', result: { n: 9 } });
  });
});

describe('directCalls', () => {
  const taken: string[] = [];
  const route = directCalls({
    checks: [],
    answer: async (_req, _res, call) => {
      taken.push(call.tool);
    },
    fail: (error) => {
      throw error;
    },
  });
  const offer = (method: string, url: string) => route({ method, url } as never, {} as never);

  it('takes POST to the plain path of a tool call, with or without a query', () => {
    expect(offer('POST', '/tools/read_file/execute')).toBe(true);
    expect(offer('POST', '/tools/fs.read-file:v2/execute?x=1')).toBe(true);
    expect(taken).toEqual(['read_file', 'fs.read-file:v2']);
  });

  it('hands a check that throws, or an answer that fails, to the error handler, as the router does', async () => {
    const failures: unknown[] = [];
    const fail = (error: unknown) => failures.push(error);
    const throwing = directCalls({
      checks: [
        () => {
          throw new Error('check broke');
        },
      ],
      answer: async () => {},
      fail,
    });
    expect(throwing({ method: 'POST', url: '/tools/a/execute' } as never, {} as never)).toBe(true);
    const rejecting = directCalls({ checks: [(_req, _res, next) => next()], answer: () => Promise.reject(new Error('answer broke')), fail });
    rejecting({ method: 'POST', url: '/tools/a/execute' } as never, {} as never);
    await new Promise((resolve) => setImmediate(resolve));
    expect(failures.map((error) => (error as Error).message)).toEqual(['check broke', 'answer broke']);
  });

  it.each([
    ['GET', '/tools/read_file/execute'],
    ['HEAD', '/tools/read_file/execute'],
    ['POST', '/tools/read_file/execute/'],
    ['POST', '/tools/read%5Ffile/execute'],
    ['POST', '/TOOLS/read_file/execute'],
    ['POST', '/tools//execute'],
    ['POST', '/tools/a/b/execute'],
    ['POST', '//tools/read_file/execute'],
    ['POST', '/tools/read_file/executed'],
    ['POST', '/execute'],
    ['POST', '/tool_calls'],
  ])('leaves %s %s to the app', (method, url) => {
    expect(offer(method, url)).toBe(false);
  });
});

/**
 * The gateway's HTTP defences, one attack per test, each through real HTTP against 127.0.0.1.
 * Every refused request also proves the tool behind it never ran (the spy's invocation count stays 0).
 */
import { request, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defineTool } from '../../../server/index.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';

// ---------------------------------------------------------------------------------------------------------------
// Helpers

let spyRuns = 0;
/** Counts every time the executor actually runs it; accepts any arguments so only the gateway can refuse a call. */
const spyTool = defineTool<Record<string, unknown>, { ran: true }>({
  name: 'spy',
  description: 'Test tool that counts its invocations.',
  parameters: { type: 'object', properties: {}, additionalProperties: true },
  category: 'test',
  risk: 'safe',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: () => {
    spyRuns++;
    return { ran: true };
  },
});

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON (throws if it is not). */
  json: () => any;
}

interface RawRequest {
  method?: string;
  path: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
  /** Sent one by one with chunked transfer encoding (no Content-Length). */
  chunks?: Buffer[];
}

/** One request over node:http to 127.0.0.1 with exactly the headers given (Host defaults to the gateway's own). */
function send(port: number, req: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const client = request(
      { host: '127.0.0.1', port, method: req.method ?? 'GET', path: req.path, headers: req.headers ?? {}, agent: false },
      (res) => {
        answered = true;
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
        });
      },
    );
    // A server that answers before reading the whole body may close while we are still writing; the answer counts.
    client.on('error', (error) => {
      if (!answered) reject(error);
    });
    if (req.chunks) {
      const writeNext = (i: number): void => {
        if (answered || i >= req.chunks!.length) {
          client.end();
          return;
        }
        if (client.write(req.chunks![i]!)) setImmediate(() => writeNext(i + 1));
        else client.once('drain', () => writeNext(i + 1));
      };
      writeNext(0);
    } else {
      client.end(req.body);
    }
  });
}

/** Writes raw bytes on a TCP socket to 127.0.0.1 and returns everything the server sent back before closing. */
function rawSocket(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const parts: Buffer[] = [];
    socket.setTimeout(20_000, () => socket.destroy(new Error('no answer within 20 s')));
    socket.on('data', (c: Buffer) => parts.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(parts).toString('utf8')));
    socket.write(text);
  });
}

function expectError(res: RawResponse, status: number, name: string): any {
  expect({ status: res.status, body: res.text.slice(0, 400) }).toMatchObject({ status });
  const body = res.json();
  expect(body.success).toBe(false);
  expect(body.error.name).toBe(name);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  return body;
}

/** Nothing in an answer gives away the process's insides: no stack frames, no source paths. */
function expectNoLeak(text: string): void {
  expect(text).not.toMatch(/\bat [^\n"]*\(?[^\s"]*\.(?:ts|js|mjs|cjs):\d+/);
  expect(text).not.toMatch(/\s+at\s+\S+\s+\(/);
  expect(text).not.toContain(process.cwd());
  expect(text).not.toContain('node_modules');
  expect(text).not.toMatch(/node:internal/);
}

const JSON_HEADERS = (tg: TestGateway) => ({ authorization: `Bearer ${tg.token}`, 'content-type': 'application/json' });

// ---------------------------------------------------------------------------------------------------------------

let tg: TestGateway;

beforeAll(async () => {
  tg = await startGateway({}, { extraTools: [spyTool] });
});
afterAll(async () => {
  await tg?.close();
});
beforeEach(() => {
  spyRuns = 0;
});

/** The spy runs when asked properly: the refusals below are the gateway's doing, not a broken tool. */
describe('control', () => {
  it('runs the spy tool for a well-formed, authenticated request', async () => {
    const res = await send(tg.port, { method: 'POST', path: '/tools/spy/execute', headers: JSON_HEADERS(tg), body: '{"a":1}' });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ success: true, result: { ran: true } });
    expect(spyRuns).toBe(1);
  });
});

describe('DNS rebinding: the Host header must be one of the gateway\'s own names and port', () => {
  const post = (host: string | undefined) =>
    send(tg.port, {
      method: 'POST',
      path: '/tools/spy/execute',
      headers: { ...JSON_HEADERS(tg), ...(host !== undefined && { host }) },
      body: '{}',
    });

  it('refuses Host: attacker.example with 403 HOST_NOT_ALLOWED and does not run the tool', async () => {
    const res = await post('attacker.example');
    expectError(res, 403, 'HOST_NOT_ALLOWED');
    expect(spyRuns).toBe(0);
  });

  it('refuses a rebound name that carries the gateway\'s port (attacker.example:<port>)', async () => {
    expectError(await post(`attacker.example:${tg.port}`), 403, 'HOST_NOT_ALLOWED');
    expect(spyRuns).toBe(0);
  });

  it('refuses the right name on the wrong port', async () => {
    const otherPort = tg.port === 65535 ? 65534 : tg.port + 1;
    expectError(await post(`127.0.0.1:${otherPort}`), 403, 'HOST_NOT_ALLOWED');
    expectError(await post(`localhost:${otherPort}`), 403, 'HOST_NOT_ALLOWED');
    expect(spyRuns).toBe(0);
  });

  it('refuses the right name with no port at all', async () => {
    expectError(await post('127.0.0.1'), 403, 'HOST_NOT_ALLOWED');
    expectError(await post('localhost'), 403, 'HOST_NOT_ALLOWED');
    expect(spyRuns).toBe(0);
  });

  it('refuses a name that merely starts with a loopback name (localhost.attacker.example)', async () => {
    expectError(await post(`localhost.attacker.example:${tg.port}`), 403, 'HOST_NOT_ALLOWED');
    expectError(await post(`127.0.0.1.nip.io:${tg.port}`), 403, 'HOST_NOT_ALLOWED');
    expect(spyRuns).toBe(0);
  });

  it('refuses an empty Host header (raw HTTP/1.1)', async () => {
    const answer = await rawSocket(
      tg.port,
      `POST /tools/spy/execute HTTP/1.1\r\nHost: \r\nAuthorization: Bearer ${tg.token}\r\nContent-Type: application/json\r\n` +
        'Content-Length: 2\r\nConnection: close\r\n\r\n{}',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 403 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).error.name).toBe('HOST_NOT_ALLOWED');
    expect(spyRuns).toBe(0);
  });

  it('refuses a request with no Host header at all (raw HTTP/1.0) with 403 HOST_NOT_ALLOWED', async () => {
    const body = '{}';
    const answer = await rawSocket(
      tg.port,
      `POST /tools/spy/execute HTTP/1.0\r\nAuthorization: Bearer ${tg.token}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(answer).toMatch(/^HTTP\/1\.[01] 403 /);
    const json = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(json.error.name).toBe('HOST_NOT_ALLOWED');
    expect(spyRuns).toBe(0);
  });

  it('guards /health too: a rebound page cannot even probe whether the gateway runs', async () => {
    const res = await send(tg.port, { path: '/health', headers: { host: 'attacker.example' } });
    expectError(res, 403, 'HOST_NOT_ALLOWED');
  });

  it('accepts Host: 127.0.0.1:<port>, localhost:<port> and [::1]:<port>, in any letter case', async () => {
    for (const host of [`127.0.0.1:${tg.port}`, `localhost:${tg.port}`, `LocalHost:${tg.port}`, `[::1]:${tg.port}`]) {
      const res = await post(host);
      expect({ host, status: res.status }).toEqual({ host, status: 200 });
      expect(res.json().success).toBe(true);
    }
    expect(spyRuns).toBe(4);
  });
});

describe('cross-site requests: the Origin header', () => {
  const post = (origin: string) =>
    send(tg.port, { method: 'POST', path: '/tools/spy/execute', headers: { ...JSON_HEADERS(tg), origin }, body: '{}' });

  it('refuses a foreign Origin with 403 ORIGIN_NOT_ALLOWED, even with a valid client token, and does not run the tool', async () => {
    expectError(await post('https://attacker.example'), 403, 'ORIGIN_NOT_ALLOWED');
    expect(spyRuns).toBe(0);
  });

  it('refuses Origin: null (sandboxed frames, file:// pages, redirects)', async () => {
    expectError(await post('null'), 403, 'ORIGIN_NOT_ALLOWED');
    expect(spyRuns).toBe(0);
  });

  it('refuses look-alike origins: other scheme, other port, loopback name without port', async () => {
    const otherPort = tg.port === 65535 ? 65534 : tg.port + 1;
    for (const origin of [`https://127.0.0.1:${tg.port}`, `http://127.0.0.1:${otherPort}`, 'http://localhost', `http://127.0.0.1:${tg.port}.attacker.example`]) {
      expectError(await post(origin), 403, 'ORIGIN_NOT_ALLOWED');
    }
    expect(spyRuns).toBe(0);
  });

  it('refuses a foreign Origin on reads too (GET /tools)', async () => {
    const res = await send(tg.port, { path: '/tools', headers: { authorization: `Bearer ${tg.token}`, origin: 'https://attacker.example' } });
    expectError(res, 403, 'ORIGIN_NOT_ALLOWED');
  });

  it('accepts the gateway\'s own Origin', async () => {
    const res = await post(tg.url);
    expect(res.status).toBe(200);
    expect(spyRuns).toBe(1);
  });

  it('never sends Access-Control-Allow-Origin: not on answers, not on errors, not on an OPTIONS preflight', async () => {
    const responses = [
      await send(tg.port, { path: '/tools', headers: { authorization: `Bearer ${tg.token}`, origin: tg.url } }),
      await send(tg.port, { path: '/health', headers: { origin: tg.url } }),
      await post('https://attacker.example'),
      await send(tg.port, {
        method: 'OPTIONS',
        path: '/tools/spy/execute',
        headers: { origin: 'https://attacker.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
      }),
      await send(tg.port, {
        method: 'OPTIONS',
        path: '/tools/spy/execute',
        headers: { origin: tg.url, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
      }),
      await send(tg.port, {
        method: 'OPTIONS',
        path: '/tools/spy/execute',
        headers: { authorization: `Bearer ${tg.token}`, 'access-control-request-method': 'POST' },
      }),
    ];
    for (const res of responses) {
      for (const header of Object.keys(res.headers)) expect(header).not.toMatch(/^access-control-/);
    }
    // The preflight from a foreign page is refused outright.
    expectError(responses[3]!, 403, 'ORIGIN_NOT_ALLOWED');
    expect(spyRuns).toBe(0);
  });
});

describe('request bodies', () => {
  const post = (body: string | Buffer, contentType?: string, path = '/tools/spy/execute') =>
    send(tg.port, {
      method: 'POST',
      path,
      headers: { authorization: `Bearer ${tg.token}`, ...(contentType !== undefined && { 'content-type': contentType }) },
      body,
    });

  it('refuses a text/plain body (a CORS "simple request") with 415 and does not run the tool', async () => {
    const res = await post('{"a":1}', 'text/plain');
    const body = expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(body.error.code).toBe(415);
    expect(spyRuns).toBe(0);
  });

  it('refuses a form-encoded body with 415', async () => {
    expectError(await post('a=1&b=2', 'application/x-www-form-urlencoded'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(spyRuns).toBe(0);
  });

  it('refuses a multipart body with 415', async () => {
    const body = '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n';
    expectError(await post(body, 'multipart/form-data; boundary=x'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(spyRuns).toBe(0);
  });

  it('refuses a body with no Content-Type with 415', async () => {
    expectError(await post('{"a":1}'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(spyRuns).toBe(0);
  });

  it('refuses an empty text/plain or form body too: it would run a tool whose arguments are all optional', async () => {
    expectError(await post('', 'text/plain;charset=UTF-8'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(await post('', 'application/x-www-form-urlencoded'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(spyRuns).toBe(0);
  });

  it('refuses a chunked text/plain body with 415', async () => {
    const res = await send(tg.port, {
      method: 'POST',
      path: '/tools/spy/execute',
      headers: { authorization: `Bearer ${tg.token}`, 'content-type': 'text/plain' },
      chunks: [Buffer.from('{"a":'), Buffer.from('1}')],
    });
    expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(spyRuns).toBe(0);
  });

  it('still runs a tool for a POST with no body and no Content-Type, or an empty JSON body', async () => {
    expect((await send(tg.port, { method: 'POST', path: '/tools/spy/execute', headers: { authorization: `Bearer ${tg.token}` } })).status).toBe(200);
    expect((await post('', 'application/json')).status).toBe(200);
    expect(spyRuns).toBe(2);
  });

  it('ignores a Content-Type on a read without a body', async () => {
    const res = await send(tg.port, { path: '/tools/spy', headers: { authorization: `Bearer ${tg.token}`, 'content-type': 'text/plain' } });
    expect(res.status).toBe(200);
  });

  it('refuses JSON declared in another charset with 415', async () => {
    expectError(await post('{"a":1}', 'application/json; charset=latin1'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(spyRuns).toBe(0);
  });

  it('accepts application/json with a UTF-8 charset and +json media types', async () => {
    expect((await post('{"a":1}', 'application/json; charset=utf-8')).status).toBe(200);
    expect((await post('{"a":1}', 'application/merge-patch+json')).status).toBe(200);
    expect(spyRuns).toBe(2);
  });

  it('refuses invalid JSON with 400 INVALID_JSON', async () => {
    for (const text of ['{"a":', '{a:1}', "{'a':1}", '{"a":1}}', 'undefined']) {
      expectError(await post(text, 'application/json'), 400, 'INVALID_JSON');
    }
    expect(spyRuns).toBe(0);
  });

  it('does not quote the body back in an INVALID_JSON message (it may hold a secret)', async () => {
    for (const text of ['{"password": hunter2-in-the-body}', 'hunter2-in-the-body', '{"token": "hunter2-in-the-body", }']) {
      const body = expectError(await post(text, 'application/json'), 400, 'INVALID_JSON');
      expect(body.error.message).toMatch(/^The request body is not valid JSON/);
      expect(body.error.message).not.toContain('hunter2');
    }
    expect(spyRuns).toBe(0);
  });

  it('reports broken JSON that merely mentions "prototype" as invalid JSON, not as a prototype attack', async () => {
    const body = expectError(await post('{"prototype": }', 'application/json'), 400, 'INVALID_JSON');
    expect(body.error.message).toMatch(/not valid JSON/);
    expect(body.error.message).not.toMatch(/__proto__/);
  });

  describe('prototype pollution', () => {
    const attacks: [string, string][] = [
      ['a top-level "__proto__" key', '{"__proto__": {"polluted": "yes"}}'],
      ['a unicode-escaped "\\u005f_proto__" key', '{"\\u005f_proto__": {"polluted": "yes"}}'],
      ['a fully escaped "__proto__" key', '{"\\u005f\\u005fproto\\u005f\\u005f": {"polluted": "yes"}}'],
      ['a "__proto__" key nested inside an object', '{"outer": {"inner": [{"__proto__": {"polluted": "yes"}}]}}'],
      ['a "constructor.prototype" key', '{"constructor": {"prototype": {"polluted": "yes"}}}'],
      ['a nested, escaped "constructor.prototype" key', '{"a": {"\\u0063onstructor": {"prototyp\\u0065": {"polluted": "yes"}}}}'],
    ];

    it.each(attacks)('refuses %s with 400 INVALID_JSON and does not run the tool', async (_what, text) => {
      const res = await post(text, 'application/json');
      expectError(res, 400, 'INVALID_JSON');
      expect(spyRuns).toBe(0);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it.each(attacks)('refuses %s inside POST /execute arguments', async (_what, text) => {
      const res = await post(`{"name": "spy", "arguments": ${text}}`, 'application/json', '/execute');
      expectError(res, 400, 'INVALID_JSON');
      expect(spyRuns).toBe(0);
    });

    it('refuses a "__proto__" key inside a tool_call arguments string, for that call only', async () => {
      const body = JSON.stringify({
        tool_calls: [
          { id: 'bad', type: 'function', function: { name: 'spy', arguments: '{"__proto__": {"polluted": "yes"}}' } },
          { id: 'good', type: 'function', function: { name: 'spy', arguments: '{"a": 1}' } },
        ],
      });
      const res = await post(body, 'application/json', '/tool_calls');
      expect(res.status).toBe(200);
      const [bad, good] = res.json().messages.map((m: { content: string }) => JSON.parse(m.content));
      expect(bad.error.name).toBe('INVALID_ARGUMENTS');
      expect(bad.error.message).toMatch(/__proto__/);
      expect(good.success).toBe(true);
      expect(spyRuns).toBe(1);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('still accepts "__proto__" as a string value and "constructor" as an ordinary key', async () => {
      const res = await post('{"note": "__proto__", "constructor": "x"}', 'application/json');
      expect(res.status).toBe(200);
      expect(spyRuns).toBe(1);
    });
  });

  describe('oversized bodies', () => {
    const twoMiB = () => Buffer.alloc(2 * 2 ** 20, 'a');
    const jsonOfSize = () => {
      const buf = twoMiB();
      buf.write('{"a":"', 0);
      buf.write('"}', buf.length - 2);
      return buf;
    };

    it('refuses a 2 MiB body declared with Content-Length with 413 PAYLOAD_TOO_LARGE', async () => {
      const body = jsonOfSize();
      const res = await send(tg.port, {
        method: 'POST',
        path: '/tools/spy/execute',
        headers: { ...JSON_HEADERS(tg), 'content-length': body.length },
        body,
      });
      const json = expectError(res, 413, 'PAYLOAD_TOO_LARGE');
      expect(json.error.details.limit_bytes).toBe(2 ** 20);
      expect(spyRuns).toBe(0);
    });

    it('refuses a 2 MiB body sent chunked (no Content-Length) with 413 PAYLOAD_TOO_LARGE', async () => {
      const body = jsonOfSize();
      const chunks: Buffer[] = [];
      for (let i = 0; i < body.length; i += 64 * 1024) chunks.push(body.subarray(i, i + 64 * 1024));
      const res = await send(tg.port, { method: 'POST', path: '/tools/spy/execute', headers: JSON_HEADERS(tg), chunks });
      expectError(res, 413, 'PAYLOAD_TOO_LARGE');
      expect(spyRuns).toBe(0);
    });

    it('does not read the body of an unauthenticated request: 401 AUTH_MISSING, not 413', async () => {
      const body = jsonOfSize();
      const res = await send(tg.port, {
        method: 'POST',
        path: '/tools/spy/execute',
        headers: { 'content-type': 'application/json', 'content-length': body.length },
        body,
      });
      expectError(res, 401, 'AUTH_MISSING');
      expect(spyRuns).toBe(0);
    });

    it('keeps answering after oversized bodies', async () => {
      const res = await send(tg.port, { path: '/health' });
      expect(res.status).toBe(200);
    });
  });

  describe('deeply nested JSON', () => {
    it('refuses 100,000-deep nested arrays with 400 INVALID_JSON and keeps answering /health', async () => {
      const deep = '['.repeat(100_000) + ']'.repeat(100_000);
      const res = await post(deep, 'application/json');
      const body = expectError(res, 400, 'INVALID_JSON');
      expect(body.error.message).toMatch(/nested|deep/i);
      expect(spyRuns).toBe(0);
      expect((await send(tg.port, { path: '/health' })).status).toBe(200);
    });

    it('refuses 100,000-deep nested objects inside valid-looking arguments', async () => {
      const deep = `{"a":${'{"b":'.repeat(100_000)}1${'}'.repeat(100_000)}}`;
      expectError(await post(deep, 'application/json'), 400, 'INVALID_JSON');
      expect(spyRuns).toBe(0);
      expect((await send(tg.port, { path: '/health' })).status).toBe(200);
    });

    it('refuses unbalanced 100,000-deep nesting (never closed)', async () => {
      expectError(await post('['.repeat(100_000), 'application/json'), 400, 'INVALID_JSON');
      expect(spyRuns).toBe(0);
    });

    it('refuses a deeply nested tool_call arguments string for that call only', async () => {
      const args = '['.repeat(100_000) + ']'.repeat(100_000);
      const body = JSON.stringify({ tool_calls: [{ id: 'deep', type: 'function', function: { name: 'spy', arguments: args } }] });
      const res = await post(body, 'application/json', '/tool_calls');
      expect(res.status).toBe(200);
      const message = JSON.parse(res.json().messages[0].content);
      expect(message.error.name).toBe('INVALID_ARGUMENTS');
      expect(spyRuns).toBe(0);
    });

    it('accepts nesting up to the limit (64) and refuses one level more', async () => {
      const nested = (levels: number) => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
      expect((await post(nested(64), 'application/json')).status).toBe(200);
      const body = expectError(await post(nested(65), 'application/json'), 400, 'INVALID_JSON');
      expect(body.error.message).toContain('at most 64');
      expect(spyRuns).toBe(1);
    });

    it('counts brackets inside strings as text, not nesting', async () => {
      const res = await post(JSON.stringify({ text: '['.repeat(10_000) }), 'application/json');
      expect(res.status).toBe(200);
      expect(spyRuns).toBe(1);
    });
  });
});

describe('client authentication', () => {
  const call = (headers: Record<string, string>) =>
    send(tg.port, { method: 'POST', path: '/tools/spy/execute', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });

  it('refuses a call with no token with 401 AUTH_MISSING', async () => {
    const body = expectError(await call({}), 401, 'AUTH_MISSING');
    expect(body.error.message).toMatch(/Bearer/);
    expect(spyRuns).toBe(0);
  });

  it('refuses a wrong token with 401 AUTH_FAILED', async () => {
    expectError(await call({ authorization: 'Bearer pk_definitely-not-the-token' }), 401, 'AUTH_FAILED');
    expectError(await call({ 'x-api-key': 'pk_definitely-not-the-token' }), 401, 'AUTH_FAILED');
    expect(spyRuns).toBe(0);
  });

  it('refuses a token that is the right one with a character changed or a suffix added', async () => {
    const flipped = tg.token.slice(0, -1) + (tg.token.endsWith('A') ? 'B' : 'A');
    expectError(await call({ authorization: `Bearer ${flipped}` }), 401, 'AUTH_FAILED');
    expectError(await call({ authorization: `Bearer ${tg.token}x` }), 401, 'AUTH_FAILED');
    expectError(await call({ authorization: `Bearer ${tg.token.slice(0, -1)}` }), 401, 'AUTH_FAILED');
    expect(spyRuns).toBe(0);
  });

  it('accepts the token as "Authorization: Bearer" (any case of the scheme)', async () => {
    expect((await call({ authorization: `Bearer ${tg.token}` })).status).toBe(200);
    expect((await call({ authorization: `bearer ${tg.token}` })).status).toBe(200);
    expect(spyRuns).toBe(2);
  });

  it('accepts the token as X-API-Key', async () => {
    const res = await call({ 'x-api-key': tg.token });
    expect(res.status).toBe(200);
    expect(spyRuns).toBe(1);
  });

  it('uses X-API-Key when an Authorization header of another scheme is also sent (a proxy may add one)', async () => {
    const res = await call({ authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': tg.token });
    expect(res.status).toBe(200);
    expect(spyRuns).toBe(1);
  });

  it('answers an empty X-API-Key with AUTH_MISSING naming both ways to send a token', async () => {
    const res = await call({ 'x-api-key': '  ' });
    const body = expectError(res, 401, 'AUTH_MISSING');
    expect(body.error.message).toMatch(/X-API-Key/);
    expect(spyRuns).toBe(0);
  });

  it.each([
    ['Basic credentials', (t: string) => `Basic ${Buffer.from(`user:${t}`).toString('base64')}`],
    ['a bare token without a scheme', (t: string) => t],
    ['"Bearer" with no token', () => 'Bearer'],
    ['"Bearer" with two tokens', (t: string) => `Bearer ${t} ${t}`],
    ['another scheme', (t: string) => `Token ${t}`],
  ])('refuses a malformed Authorization header (%s) with 401', async (_what, make) => {
    const res = await call({ authorization: make(tg.token) });
    expect(res.status).toBe(401);
    expect(['AUTH_MISSING', 'AUTH_FAILED']).toContain(res.json().error.name);
    expect(spyRuns).toBe(0);
  });

  it('does not take a token from the query string (it would end up in logs and history)', async () => {
    const res = await send(tg.port, {
      method: 'POST',
      path: `/tools/spy/execute?token=${tg.token}&api_key=${tg.token}`,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expectError(res, 401, 'AUTH_MISSING');
    expect(spyRuns).toBe(0);
  });

  it('refuses a revoked named token with 401 AUTH_FAILED', async () => {
    const botToken = tg.gateway.credentials.createClient('bot');
    const before = await call({ authorization: `Bearer ${botToken}` });
    expect(before.status).toBe(200);
    const callId = before.json().call_id;
    expect(tg.gateway.store.calls.get(callId)?.client).toBe('bot');
    expect(spyRuns).toBe(1);

    expect(tg.gateway.store.clients.revoke('bot')).toBe(true);
    expectError(await call({ authorization: `Bearer ${botToken}` }), 401, 'AUTH_FAILED');
    expectError(await call({ 'x-api-key': botToken }), 401, 'AUTH_FAILED');
    expect(spyRuns).toBe(1);
  });

  it('serves /health without a token', async () => {
    const res = await send(tg.port, { path: '/health' });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ status: 'ok' });
  });

  it('requires a token for every other read (tools, calls, stats, events)', async () => {
    for (const path of ['/tools', '/tools/openai', '/calls', '/stats', '/events', '/openapi.json']) {
      const res = await send(tg.port, { path });
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
      expect(res.json().error.name).toBe('AUTH_MISSING');
    }
  });
});

describe('owner-only actions', () => {
  afterEach(async () => {
    tg.gateway.registry.setEnabled('spy', true);
  });

  const spyEnabled = () => tg.gateway.registry.isEnabled('spy');

  /** Follows nothing: the login answer itself is what matters. */
  const login = (code: string) => send(tg.port, { path: `/auth?code=${encodeURIComponent(code)}` });

  it('refuses PATCH /tools/{name} from a client token with 403 FORBIDDEN and changes nothing', async () => {
    const res = await send(tg.port, {
      method: 'PATCH',
      path: '/tools/spy',
      headers: JSON_HEADERS(tg),
      body: '{"enabled": false}',
    });
    expectError(res, 403, 'FORBIDDEN');
    expect(spyEnabled()).toBe(true);
    const list = await send(tg.port, { path: '/tools/openai', headers: { authorization: `Bearer ${tg.token}` } });
    expect(list.json().tools.map((t: { function: { name: string } }) => t.function.name)).toContain('spy');
  });

  it('refuses PATCH from a client token even when it also sends the gateway\'s own Origin', async () => {
    const res = await send(tg.port, {
      method: 'PATCH',
      path: '/tools/spy',
      headers: { ...JSON_HEADERS(tg), origin: tg.url },
      body: '{"enabled": false}',
    });
    expectError(res, 403, 'FORBIDDEN');
    expect(spyEnabled()).toBe(true);
  });

  it('refuses a client token used as a login code: 401 page, no session cookie', async () => {
    const res = await login(tg.token);
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.text).toMatch(/not accepted/i);
    expect(res.text).toMatch(/malformed/i);
  });

  it('refuses a named client\'s token used as a login code', async () => {
    const token = tg.gateway.credentials.createClient('eve');
    const res = await login(token);
    expect(res.status).toBe(401);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a login code whose signature was forged', async () => {
    const [nonce, expires, signature] = tg.gateway.credentials.createLoginCode().split('.') as [string, string, string];
    const forged = signature.slice(0, -2) + (signature.endsWith('AA') ? 'BB' : 'AA');
    const res = await login(`${nonce}.${expires}.${forged}`);
    expect(res.status).toBe(401);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.text).toMatch(/not valid for this gateway/);
  });

  it('refuses a login code whose expiry was extended (the signature covers it)', async () => {
    const [nonce, , signature] = tg.gateway.credentials.createLoginCode(Date.now() - 60 * 60_000).split('.') as [string, string, string];
    const later = (Date.now() + 60 * 60_000).toString(36);
    const res = await login(`${nonce}.${later}.${signature}`);
    expect(res.status).toBe(401);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.text).toMatch(/not valid for this gateway/);
  });

  it('refuses an expired login code', async () => {
    const code = tg.gateway.credentials.createLoginCode(Date.now() - 16 * 60_000);
    const res = await login(code);
    expect(res.status).toBe(401);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.text).toMatch(/expired/);
  });

  it('refuses a login code used a second time', async () => {
    const code = tg.gateway.credentials.createLoginCode();
    const first = await login(code);
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/');
    const second = await login(code);
    expect(second.status).toBe(401);
    expect(second.headers['set-cookie']).toBeUndefined();
    expect(second.text).toMatch(/already been used/);
  });

  it('refuses a login link without a code, or with the code given twice', async () => {
    const none = await send(tg.port, { path: '/auth' });
    expect(none.status).toBe(401);
    expect(none.headers['set-cookie']).toBeUndefined();
    const code = tg.gateway.credentials.createLoginCode();
    const twice = await send(tg.port, { path: `/auth?code=${code}&code=${code}` });
    expect(twice.status).toBe(401);
    expect(twice.headers['set-cookie']).toBeUndefined();
  });

  it('does not reflect the presented code into the problem page', async () => {
    const res = await login('<script>alert(1)</script>.x.y');
    expect(res.status).toBe(401);
    expect(res.text).not.toContain('<script>alert(1)</script>');
  });

  it('sets the session cookie HttpOnly and SameSite=Strict, for the whole site', async () => {
    const res = await login(tg.gateway.credentials.createLoginCode());
    expect(res.status).toBe(303);
    const cookie = (res.headers['set-cookie'] ?? []).find((c) => c.startsWith('pincer_session='));
    expect(cookie).toBeDefined();
    expect(cookie).toMatch(/;\s*HttpOnly/i);
    expect(cookie).toMatch(/;\s*SameSite=Strict/i);
    expect(cookie).toMatch(/;\s*Path=\//i);
  });

  it('refuses a state change made with the owner cookie but no Origin header (403) and changes nothing', async () => {
    const cookie = (await tg.ownerHeaders()).cookie!;
    const res = await send(tg.port, {
      method: 'PATCH',
      path: '/tools/spy',
      headers: { cookie, 'content-type': 'application/json' },
      body: '{"enabled": false}',
    });
    expectError(res, 403, 'ORIGIN_NOT_ALLOWED');
    expect(spyEnabled()).toBe(true);
  });

  it('refuses a state change made with the owner cookie from a foreign Origin (403) and changes nothing', async () => {
    const cookie = (await tg.ownerHeaders()).cookie!;
    const res = await send(tg.port, {
      method: 'PATCH',
      path: '/tools/spy',
      headers: { cookie, origin: 'https://attacker.example', 'content-type': 'application/json' },
      body: '{"enabled": false}',
    });
    expectError(res, 403, 'ORIGIN_NOT_ALLOWED');
    expect(spyEnabled()).toBe(true);
  });

  it('refuses a tool call made with the owner cookie but no Origin (cookie-borne CSRF cannot run tools)', async () => {
    const cookie = (await tg.ownerHeaders()).cookie!;
    const res = await send(tg.port, {
      method: 'POST',
      path: '/tools/spy/execute',
      headers: { cookie, 'content-type': 'application/json' },
      body: '{}',
    });
    expectError(res, 403, 'ORIGIN_NOT_ALLOWED');
    expect(spyRuns).toBe(0);
  });

  it('lets the owner cookie with the gateway\'s own Origin toggle a tool', async () => {
    const headers = await tg.ownerHeaders();
    const res = await send(tg.port, {
      method: 'PATCH',
      path: '/tools/spy',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{"enabled": false}',
    });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ name: 'spy', enabled: false });
    expect(spyEnabled()).toBe(false);
  });

  it('lets the owner read with the cookie alone (same-origin GETs carry no Origin)', async () => {
    const cookie = (await tg.ownerHeaders()).cookie!;
    const res = await send(tg.port, { path: '/calls?limit=1', headers: { cookie } });
    expect(res.status).toBe(200);
  });

  it('records a tool call made by the owner as the owner\'s', async () => {
    const headers = await tg.ownerHeaders();
    const res = await send(tg.port, { method: 'POST', path: '/tools/spy/execute', headers: { ...headers, 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(200);
    expect(tg.gateway.store.calls.get(res.json().call_id)?.client).toBe('owner');
    expect(spyRuns).toBe(1);
  });

  it('does not accept the owner session, or a login code, as a client token', async () => {
    const session = (await tg.ownerHeaders()).cookie!.split('=')[1]!;
    const code = tg.gateway.credentials.createLoginCode();
    for (const token of [session, code]) {
      const res = await send(tg.port, { method: 'POST', path: '/tools/spy/execute', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
      expectError(res, 401, 'AUTH_FAILED');
    }
    expect(spyRuns).toBe(0);
  });

  it('does not accept a client token as the session cookie', async () => {
    const res = await send(tg.port, {
      method: 'PATCH',
      path: '/tools/spy',
      headers: { cookie: `pincer_session=${tg.token}`, origin: tg.url, 'content-type': 'application/json' },
      body: '{"enabled": false}',
    });
    expectError(res, 401, 'AUTH_MISSING');
    expect(spyEnabled()).toBe(true);
  });

  it('does not treat a forged session cookie as the owner', async () => {
    const res = await send(tg.port, {
      method: 'PATCH',
      path: '/tools/spy',
      headers: { cookie: 'pincer_session=forged-session-value', origin: tg.url, 'content-type': 'application/json' },
      body: '{"enabled": false}',
    });
    expectError(res, 401, 'AUTH_MISSING');
    expect(spyEnabled()).toBe(true);
  });

  it('ends the session on logout: the old cookie no longer grants anything', async () => {
    const login1 = await login(tg.gateway.credentials.createLoginCode());
    const cookie = login1.headers['set-cookie']![0]!.split(';')[0]!;
    const logout = await send(tg.port, { method: 'POST', path: '/auth/logout', headers: { cookie, origin: tg.url } });
    expect(logout.status).toBe(200);
    const res = await send(tg.port, {
      method: 'PATCH',
      path: '/tools/spy',
      headers: { cookie, origin: tg.url, 'content-type': 'application/json' },
      body: '{"enabled": false}',
    });
    expect(res.status).toBe(401);
    expect(spyEnabled()).toBe(true);
  });
});

describe('--no-auth', () => {
  let open: TestGateway;
  beforeAll(async () => {
    open = await startGateway({ clientAuth: false }, { extraTools: [spyTool] });
  });
  afterAll(async () => {
    await open?.close();
  });

  it('lets a client call a tool without a token, recorded as the default client', async () => {
    const res = await send(open.port, { method: 'POST', path: '/tools/spy/execute', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(200);
    expect(spyRuns).toBe(1);
    expect(open.gateway.store.calls.get(res.json().call_id)?.client).toBe('default');
  });

  it('still refuses owner actions (PATCH /tools) without an owner session', async () => {
    const res = await send(open.port, {
      method: 'PATCH',
      path: '/tools/spy',
      headers: { 'content-type': 'application/json', origin: open.url },
      body: '{"enabled": false}',
    });
    expectError(res, 403, 'FORBIDDEN');
    expect(open.gateway.registry.isEnabled('spy')).toBe(true);
  });

  it('still refuses owner actions when a client token is presented', async () => {
    const res = await send(open.port, {
      method: 'PATCH',
      path: '/tools/spy',
      headers: { authorization: `Bearer ${open.token}`, 'content-type': 'application/json' },
      body: '{"enabled": false}',
    });
    expectError(res, 403, 'FORBIDDEN');
    expect(open.gateway.registry.isEnabled('spy')).toBe(true);
  });

  it('refuses an empty form POST, the one cross-site request that needs neither a token nor a preflight', async () => {
    const res = await send(open.port, { method: 'POST', path: '/tools/spy/execute', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(spyRuns).toBe(0);
  });

  it('still refuses a foreign Host and a foreign Origin', async () => {
    const rebound = await send(open.port, { method: 'POST', path: '/tools/spy/execute', headers: { host: 'attacker.example', 'content-type': 'application/json' }, body: '{}' });
    expectError(rebound, 403, 'HOST_NOT_ALLOWED');
    const crossSite = await send(open.port, { method: 'POST', path: '/tools/spy/execute', headers: { origin: 'https://attacker.example', 'content-type': 'application/json' }, body: '{}' });
    expectError(crossSite, 403, 'ORIGIN_NOT_ALLOWED');
    const simple = await send(open.port, { method: 'POST', path: '/tools/spy/execute', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expectError(simple, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(spyRuns).toBe(0);
  });

  it('lets the owner toggle tools through a real login', async () => {
    const headers = await open.ownerHeaders();
    const res = await send(open.port, { method: 'PATCH', path: '/tools/spy', headers: { ...headers, 'content-type': 'application/json' }, body: '{"enabled": false}' });
    expect(res.status).toBe(200);
    expect(open.gateway.registry.isEnabled('spy')).toBe(false);
    open.gateway.registry.setEnabled('spy', true);
  });
});

describe('error answers leak nothing', () => {
  it('no error answer carries a stack trace or a source path', async () => {
    const answers = [
      await send(tg.port, { path: '/tools', headers: { host: 'attacker.example' } }),
      await send(tg.port, { path: '/tools', headers: { origin: 'null' } }),
      await send(tg.port, { path: '/tools' }),
      await send(tg.port, { path: '/tools', headers: { authorization: 'Bearer nope' } }),
      await send(tg.port, { method: 'POST', path: '/tools/spy/execute', headers: JSON_HEADERS(tg), body: '{"a":' }),
      await send(tg.port, { method: 'POST', path: '/tools/spy/execute', headers: JSON_HEADERS(tg), body: '{"__proto__":{}}' }),
      await send(tg.port, { method: 'POST', path: '/tools/spy/execute', headers: { ...JSON_HEADERS(tg), 'content-type': 'text/plain' }, body: 'x' }),
      await send(tg.port, { method: 'POST', path: '/tools/nope/execute', headers: JSON_HEADERS(tg), body: '{}' }),
      await send(tg.port, { method: 'POST', path: '/tools/calculate/execute', headers: JSON_HEADERS(tg), body: '{"expression": 5}' }),
      await send(tg.port, { method: 'POST', path: '/tools/calculate/execute', headers: JSON_HEADERS(tg), body: '{"expression": "1/0"}' }),
      await send(tg.port, { method: 'POST', path: '/execute', headers: JSON_HEADERS(tg), body: '[]' }),
      await send(tg.port, { method: 'POST', path: '/tool_calls', headers: JSON_HEADERS(tg), body: '{"tool_calls": 1}' }),
      await send(tg.port, { method: 'PATCH', path: '/tools/spy', headers: JSON_HEADERS(tg), body: '{}' }),
      await send(tg.port, { path: '/calls?status=bogus', headers: { authorization: `Bearer ${tg.token}` } }),
      await send(tg.port, { path: '/calls?cursor=%%%', headers: { authorization: `Bearer ${tg.token}` } }),
      await send(tg.port, { path: '/tools/%E0%A4%A', headers: { authorization: `Bearer ${tg.token}` } }),
      await send(tg.port, { path: '/no/such/route', headers: { authorization: `Bearer ${tg.token}` } }),
      await send(tg.port, { path: '/auth?code=a.b.c' }),
    ];
    for (const res of answers) {
      expect(res.status).toBeGreaterThanOrEqual(200);
      expectNoLeak(res.text);
      if (res.headers['content-type']?.startsWith('application/json')) {
        const body = res.json();
        if (body.success === false) {
          expect(typeof body.error.name).toBe('string');
          expect(Number.isInteger(body.error.code)).toBe(true);
          expect(body.error).not.toHaveProperty('stack');
        }
      }
    }
    expect(spyRuns).toBe(0);
  });

  it('a malformed percent-encoding in the path is a 400 envelope with its HTTP status as the code', async () => {
    const res = await send(tg.port, { method: 'POST', path: '/tools/%E0%A4%A/execute', headers: JSON_HEADERS(tg), body: '{}' });
    expect(res.status).toBe(400);
    const body = res.json();
    expect(body.success).toBe(false);
    expect(body.error.code).toBe(400);
    expectNoLeak(res.text);
  });
});

describe('odd tool names in the URL', () => {
  it.each([
    ['an encoded path traversal', '/tools/..%2f..%2fetc/execute'],
    ['an encoded upper-case path traversal', '/tools/..%2F..%2Fetc%2Fpasswd/execute'],
    ['a NUL byte', '/tools/%00/execute'],
    ['a name with a NUL byte after a real tool name', '/tools/spy%00/execute'],
    ['a backslash traversal', '/tools/..%5c..%5cwindows/execute'],
    ['a prototype name', '/tools/__proto__/execute'],
    ['a constructor name', '/tools/constructor/execute'],
    ['a name in the wrong case', '/tools/SPY/execute'],
    ['an over-long name', `/tools/${'a'.repeat(5000)}/execute`],
  ])('answers %s with a 404 TOOL_NOT_FOUND envelope and runs nothing', async (_what, path) => {
    const res = await send(tg.port, { method: 'POST', path, headers: JSON_HEADERS(tg), body: '{}' });
    const body = expectError(res, 404, 'TOOL_NOT_FOUND');
    expect(body.error.code).toBe(600);
    expect(body.call_id).toMatch(/^c_/);
    expect(spyRuns).toBe(0);
    expectNoLeak(res.text);
  });

  it.each([
    ['an encoded path traversal', '/tools/..%2f..%2fetc'],
    ['a NUL byte', '/tools/%00'],
    ['a prototype name', '/tools/__proto__'],
  ])('answers GET /tools/{name} with %s with 404 TOOL_NOT_FOUND', async (_what, path) => {
    const res = await send(tg.port, { path, headers: { authorization: `Bearer ${tg.token}` } });
    expectError(res, 404, 'TOOL_NOT_FOUND');
  });

  it('answers POST /execute with an odd name with 404 TOOL_NOT_FOUND', async () => {
    for (const name of ['../../etc/passwd', '\u0000', '__proto__', 'constructor', 'toString', '']) {
      const res = await send(tg.port, { method: 'POST', path: '/execute', headers: JSON_HEADERS(tg), body: JSON.stringify({ name, arguments: {} }) });
      expect({ name, status: res.status }).toEqual({ name, status: 404 });
      expect(res.json().error.name).toBe('TOOL_NOT_FOUND');
    }
    expect(spyRuns).toBe(0);
  });
});

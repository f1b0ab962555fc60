import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ToolError } from '../../../../server/errors.js';
import { httpAnalyzers } from '../../../../server/policy/analyzers/http.js';
import { NetGuard, type Resolver } from '../../../../server/security/net.js';
import { createHttpGetTool } from '../../../../server/tools/builtin/http-get.js';
import { createHttpPostTool } from '../../../../server/tools/builtin/http-post.js';
import { createWebSearchTool } from '../../../../server/tools/builtin/web-search.js';
import { ToolRegistry } from '../../../../server/tools/registry.js';

/**
 * Real requests, to stub servers on loopback only: 127.0.0.2 is opened by http_allow, 127.0.0.1 and 127.0.0.3 are
 * not. Names resolve through an injected table. Nothing here sends a packet anywhere but 127.0.0.x.
 */

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Route = (req: IncomingMessage, res: ServerResponse, body: string) => void;

class Stub {
  readonly seen: Seen[] = [];
  readonly open = new Set<ServerResponse>();
  server!: Server;
  port = 0;
  constructor(
    readonly host: string,
    readonly routes: Record<string, Route> = {},
  ) {}

  get origin(): string {
    return `http://${this.host}:${this.port}`;
  }

  async listen(port = 0): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        this.seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        this.open.add(res);
        res.on('close', () => this.open.delete(res));
        const path = (req.url ?? '/').split('?')[0]!;
        const route = this.routes[path] ?? Object.entries(this.routes).find(([p]) => p.endsWith('*') && path.startsWith(p.slice(0, -1)))?.[1];
        if (route) route(req, res, body);
        else res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, this.host, () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const json = (res: ServerResponse, value: unknown, status = 200) =>
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(value));
const redirect = (res: ServerResponse, status: number, location: string) => res.writeHead(status, { location }).end();
const echo: Route = (req, res, body) => json(res, { method: req.method, url: req.url, headers: req.headers, body });

const BOMB = gzipSync(Buffer.alloc(32 * 1024 * 1024), { level: 9 });

let main: Stub; // 127.0.0.2, opened by http_allow
let sibling: Stub; // 127.0.0.2 on another port: another origin, still opened
let forbidden: Stub; // 127.0.0.1 on main's port: must never receive anything
let other: Stub; // 127.0.0.3: not opened

function mainRoutes(): Record<string, Route> {
  return {
    '/text': (_q, res) => res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'set-cookie': 'session=s3cret' }).end('héllo, wörld'),
    '/latin1': (_q, res) => res.writeHead(200, { 'content-type': 'text/html; charset=iso-8859-1' }).end(Buffer.from('<p>café</p>', 'latin1')),
    '/json': (_q, res) => json(res, { answer: 42, list: [1, 2, 3], nested: { ok: true } }),
    '/json-proto': (_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"__proto__": {"polluted": true}}'),
    '/problem': (_q, res) => res.writeHead(400, { 'content-type': 'application/problem+json' }).end('{"title":"bad"}'),
    '/binary': (_q, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255])),
    '/untyped': (_q, res) => res.end('plain words'),
    '/big': (_q, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('a'.repeat(200_000)),
    '/endless': (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'z');
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    },
    '/hang': () => {},
    '/hang-body': (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    },
    '/missing': (_q, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('no such page'),
    '/gzip': (_q, res) => res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(gzipSync('compressed hello')),
    '/br': (_q, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'br' }).end(brotliCompressSync('{"br":true}')),
    '/deflate-raw': (_q, res) => res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'deflate' }).end(deflateRawSync('raw deflate')),
    '/bad-gzip': (_q, res) => res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end('this is not gzip at all'),
    '/bomb': (_q, res) => res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' }).end(BOMB),
    '/echo': echo,
    '/hop/*': (req, res) => {
      const n = Number(req.url!.split('/')[2]);
      if (n <= 0) res.writeHead(200, { 'content-type': 'text/plain' }).end('arrived');
      else redirect(res, 302, `/hop/${n - 1}`);
    },
    '/to-loopback': (_q, res) => redirect(res, 302, `http://127.0.0.1:${forbidden.port}/secret`),
    '/to-loopback-name': (_q, res) => redirect(res, 301, `http://localhost:${forbidden.port}/secret`),
    '/to-other': (_q, res) => redirect(res, 302, `${other.origin}/`),
    '/to-metadata': (_q, res) => redirect(res, 302, 'http://169.254.169.254/latest/meta-data/'),
    '/to-file': (_q, res) => redirect(res, 302, 'file:///etc/passwd'),
    '/to-creds': (_q, res) => redirect(res, 302, `http://admin:hunter2@127.0.0.2:${main.port}/echo`),
    '/to-sibling': (_q, res) => redirect(res, 302, `${sibling.origin}/echo`),
    '/to-same': (_q, res) => redirect(res, 302, '/echo'),
    '/post-303': (_q, res) => redirect(res, 303, '/echo'),
    '/post-302': (_q, res) => redirect(res, 302, '/echo'),
    '/post-307': (_q, res) => redirect(res, 307, '/echo'),
    '/post-308': (_q, res) => redirect(res, 308, `${sibling.origin}/echo`),
    '/search': (req, res) => {
      const q = new URL(req.url!, 'http://stub').searchParams;
      if (q.get('format') !== 'json') return void res.writeHead(403).end('json format disabled');
      json(res, {
        query: q.get('q'),
        number_of_results: 3,
        results: Array.from({ length: 8 }, (_, i) => ({
          title: `Result ${i}  for ${q.get('q')}`,
          url: `https://example.com/${i}`,
          content: `Snippet\n number ${i}`,
          engine: 'stub',
        })),
      });
    },
  };
}

/** main on 127.0.0.2:P and forbidden on 127.0.0.1:P — the same port, so a connection that was not pinned would land there. */
async function startPair(): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    main = new Stub('127.0.0.2', mainRoutes());
    await main.listen();
    forbidden = new Stub('127.0.0.1', { '/*': (_q, res) => res.end('FORBIDDEN-SECRET') });
    try {
      await forbidden.listen(main.port);
      return;
    } catch (error) {
      await main.close();
      if (attempt >= 10) throw error;
    }
  }
}

const TABLE: Record<string, string[]> = {
  'stub.test': ['127.0.0.2'],
  'public.test': ['93.184.215.14'],
  'loopback.test': ['127.0.0.1'],
};
const resolver: Resolver = async (host) => {
  const answer = TABLE[host];
  if (!answer) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return answer.map((address) => ({ address, family: 4 as const }));
};

const net = new NetGuard({ allow: ['127.0.0.2'], resolve: resolver });
const httpGet = createHttpGetTool(net);
const httpPost = createHttpPostTool(net);
const ctx = (signal = new AbortController().signal) => ({ signal, callId: 'c_test', client: 'test' });

async function failure(run: unknown): Promise<ToolError> {
  try {
    await run;
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return error as ToolError;
  }
  throw new Error('expected a ToolError');
}

beforeAll(async () => {
  await startPair();
  sibling = new Stub('127.0.0.2', { '/echo': echo });
  await sibling.listen();
  other = new Stub('127.0.0.3', { '/*': (_q, res) => res.end('other') });
  await other.listen();
});

afterAll(async () => {
  await Promise.all([main, sibling, forbidden, other].map((s) => s?.close()));
});

beforeEach(() => {
  for (const stub of [main, sibling, forbidden, other]) stub.seen.length = 0;
});

/** The stubs that must never be reached, checked after every test that could reach them. */
function expectUntouched(): void {
  expect(forbidden.seen).toEqual([]);
  expect(other.seen).toEqual([]);
}

describe('http tools: declarations', () => {
  it('register with their category, risk and annotations', () => {
    const registry = new ToolRegistry();
    const search = createWebSearchTool(net, undefined);
    for (const tool of [httpGet, httpPost, search]) registry.register(tool);
    expect(httpGet).toMatchObject({ name: 'http_get', category: 'network', risk: 'sensitive' });
    expect(httpGet.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true, destructiveHint: false });
    expect(httpPost).toMatchObject({ name: 'http_post', category: 'network', risk: 'dangerous' });
    expect(httpPost.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });
    expect(search).toMatchObject({ name: 'web_search', category: 'network', risk: 'sensitive' });
    expect(search.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true });
    // A page fetched again may have changed, so fetches always run; a repeated search may come from the cache.
    for (const tool of [httpGet, httpPost]) expect(tool.cache).toBeUndefined();
    expect(search.cache).toEqual({ ttl_s: 300 });
  });
});

describe('http_get: answers', () => {
  it('returns text decoded as UTF-8 with a filtered set of headers', async () => {
    const result = await httpGet.handler({ url: `${main.origin}/text` }, ctx());
    expect(result).toMatchObject({
      ok: true,
      status: 200,
      url: `${main.origin}/text`,
      final_url: `${main.origin}/text`,
      body_encoding: 'text',
      body: 'héllo, wörld',
      truncated: false,
      redirects: [],
    });
    expect(result.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(JSON.stringify(result)).not.toContain('s3cret');
    expect(main.seen[0]!.headers['user-agent']).toMatch(/^Pincer\//);
  });

  it('decodes a latin1 charset', async () => {
    const result = await httpGet.handler({ url: `${main.origin}/latin1` }, ctx());
    expect(result.body).toBe('<p>café</p>');
  });

  it('parses a JSON body into json and leaves the text out', async () => {
    const result = await httpGet.handler({ url: `${main.origin}/json` }, ctx());
    expect(result.json).toEqual({ answer: 42, list: [1, 2, 3], nested: { ok: true } });
    expect(result.body).toBeUndefined();
  });

  it('keeps a JSON body with a __proto__ key as text, explaining why', async () => {
    const result = await httpGet.handler({ url: `${main.origin}/json-proto` }, ctx());
    expect(result.json).toBeUndefined();
    expect(result.json_error).toMatch(/__proto__/);
    expect(result.body).toContain('polluted');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('returns an upstream 404 as a result with ok: false, not a failure', async () => {
    const result = await httpGet.handler({ url: `${main.origin}/missing` }, ctx());
    expect(result).toMatchObject({ ok: false, status: 404, body: 'no such page' });
  });

  it('parses problem+json error bodies too', async () => {
    const result = await httpGet.handler({ url: `${main.origin}/problem` }, ctx());
    expect(result).toMatchObject({ ok: false, status: 400, json: { title: 'bad' } });
  });

  it('returns binary bodies as base64 and flags them', async () => {
    const result = await httpGet.handler({ url: `${main.origin}/binary` }, ctx());
    expect(result.body_encoding).toBe('base64');
    expect(Buffer.from(result.body!, 'base64')).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]));
  });

  it('sniffs text when there is no content type', async () => {
    const result = await httpGet.handler({ url: `${main.origin}/untyped` }, ctx());
    expect(result).toMatchObject({ body_encoding: 'text', body: 'plain words' });
  });

  it('decodes gzip, brotli and raw deflate bodies', async () => {
    expect((await httpGet.handler({ url: `${main.origin}/gzip` }, ctx())).body).toBe('compressed hello');
    expect((await httpGet.handler({ url: `${main.origin}/br` }, ctx())).json).toEqual({ br: true });
    expect((await httpGet.handler({ url: `${main.origin}/deflate-raw` }, ctx())).body).toBe('raw deflate');
  });

  it('reports a body that claims gzip but is not', async () => {
    const error = await failure(httpGet.handler({ url: `${main.origin}/bad-gzip` }, ctx()));
    expect(error.errorName).toBe('REQUEST_FAILED');
  });

  it('reaches an allowlisted stub by name, with the Host header naming it', async () => {
    const result = await httpGet.handler({ url: `http://stub.test:${main.port}/echo` }, ctx());
    expect((result.json as { headers: Record<string, string> }).headers.host).toBe(`stub.test:${main.port}`);
    expectUntouched();
  });
});

describe('http_get: caps', () => {
  it('cuts a long body at max_bytes and marks it truncated', async () => {
    const result = await httpGet.handler({ url: `${main.origin}/big`, max_bytes: 1000 }, ctx());
    expect(result).toMatchObject({ truncated: true, bytes: 1000 });
    expect(result.body).toBe('a'.repeat(1000));
  });

  it('stops reading an endless body at the cap', async () => {
    const result = await httpGet.handler({ url: `${main.origin}/endless`, max_bytes: 300_000 }, ctx());
    expect(result).toMatchObject({ truncated: true, bytes: 300_000 });
  });

  it('caps a gzip bomb at max_bytes of decoded output', async () => {
    expect(BOMB.length).toBeLessThan(100_000);
    const before = process.memoryUsage().rss;
    const result = await httpGet.handler({ url: `${main.origin}/bomb`, max_bytes: 65_536 }, ctx());
    expect(result).toMatchObject({ truncated: true, bytes: 65_536, body_encoding: 'base64' });
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });

  it('times out a server that never answers', async () => {
    const t0 = Date.now();
    const error = await failure(httpGet.handler({ url: `${main.origin}/hang`, timeout_ms: 300 }, ctx()));
    expect(error.errorName).toBe('RESPONSE_TIMEOUT');
    expect(error.message).toContain('300 ms');
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('times out a body that stops halfway', async () => {
    const error = await failure(httpGet.handler({ url: `${main.origin}/hang-body`, timeout_ms: 300 }, ctx()));
    expect(error.errorName).toBe('RESPONSE_TIMEOUT');
  });

  it('stops when the caller cancels, with the caller\'s reason', async () => {
    const controller = new AbortController();
    const reason = new Error('caller went away');
    setTimeout(() => controller.abort(reason), 100);
    await expect(httpGet.handler({ url: `${main.origin}/hang`, timeout_ms: 10_000 }, ctx(controller.signal))).rejects.toBe(reason);
  });

  it('reports a refused connection as REQUEST_FAILED', async () => {
    const spare = new Stub('127.0.0.2');
    await spare.listen();
    const port = spare.port;
    await spare.close();
    const error = await failure(httpGet.handler({ url: `http://127.0.0.2:${port}/` }, ctx()));
    expect(error.errorName).toBe('REQUEST_FAILED');
    expect(error.message).toMatch(/refused/);
  });

  it('answers REQUEST_FAILED for a name that does not resolve, without any traffic', async () => {
    const error = await failure(httpGet.handler({ url: 'http://nowhere.test/' }, ctx()));
    expect(error.errorName).toBe('REQUEST_FAILED');
    expect(error.message).toMatch(/resolve/);
  });

  it.each(['Host', 'connection', 'Content-Length', 'Transfer-Encoding', 'Upgrade'])('refuses to let the caller set %s', async (name) => {
    const error = await failure(httpGet.handler({ url: `${main.origin}/echo`, headers: { [name]: 'x' } }, ctx()));
    expect(error.errorName).toBe('INVALID_ARGUMENTS');
    expect(error.message).toContain(name);
    expect(main.seen).toEqual([]);
  });

  it('refuses a header value with a line break (header injection)', async () => {
    const error = await failure(httpGet.handler({ url: `${main.origin}/echo`, headers: { 'X-A': 'a\r\nHost: evil' } }, ctx()));
    expect(error.errorName).toBe('INVALID_ARGUMENTS');
    expect(main.seen).toEqual([]);
  });
});

describe('http_get: redirects', () => {
  it('follows a chain of 5 redirects inside the allowlist', async () => {
    const result = await httpGet.handler({ url: `${main.origin}/hop/5` }, ctx());
    expect(result).toMatchObject({ ok: true, body: 'arrived', final_url: `${main.origin}/hop/0` });
    expect(result.redirects).toHaveLength(5);
  });

  it('refuses the 6th redirect and never requests its target', async () => {
    const error = await failure(httpGet.handler({ url: `${main.origin}/hop/6` }, ctx()));
    expect(error.errorName).toBe('TOO_MANY_REDIRECTS');
    expect(main.seen.map((s) => s.url)).toEqual(['/hop/6', '/hop/5', '/hop/4', '/hop/3', '/hop/2', '/hop/1']);
  });

  it('refuses a redirect to 127.0.0.1, naming the hop, and the target gets nothing', async () => {
    const error = await failure(httpGet.handler({ url: `${main.origin}/to-loopback` }, ctx()));
    expect(error.errorName).toBe('URL_BLOCKED');
    expect(error.details).toMatchObject({ rule: 'url:loopback', redirect: 1 });
    expect(error.message).toContain(`http://127.0.0.1:${forbidden.port}/secret`);
    expect(error.message).toContain('redirect');
    expect(error.message).toContain('http_allow');
    expectUntouched();
  });

  it('refuses a redirect to localhost by name', async () => {
    const error = await failure(httpGet.handler({ url: `${main.origin}/to-loopback-name` }, ctx()));
    expect(error).toMatchObject({ errorName: 'URL_BLOCKED', details: { rule: 'url:loopback' } });
    expectUntouched();
  });

  it('refuses a redirect to 127.0.0.3, which is not in http_allow', async () => {
    const error = await failure(httpGet.handler({ url: `${main.origin}/to-other` }, ctx()));
    expect(error).toMatchObject({ errorName: 'URL_BLOCKED', details: { rule: 'url:loopback' } });
    expectUntouched();
  });

  it('refuses redirects to cloud metadata, to file: and to URLs with credentials', async () => {
    expect((await failure(httpGet.handler({ url: `${main.origin}/to-metadata` }, ctx()))).details).toMatchObject({ rule: 'url:metadata' });
    expect((await failure(httpGet.handler({ url: `${main.origin}/to-file` }, ctx()))).details).toMatchObject({ rule: 'url:scheme' });
    const creds = await failure(httpGet.handler({ url: `${main.origin}/to-creds` }, ctx()));
    expect(creds.details).toMatchObject({ rule: 'url:credentials' });
    expect(JSON.stringify(creds.toBody())).not.toContain('hunter2');
    expect(main.seen.map((s) => s.url)).toEqual(['/to-metadata', '/to-file', '/to-creds']);
  });

  it('drops Authorization and Cookie on a redirect to another origin', async () => {
    const headers = { Authorization: 'Bearer top-secret-token', Cookie: 'sid=abc', 'X-Trace': 'kept' };
    const result = await httpGet.handler({ url: `${main.origin}/to-sibling`, headers }, ctx());
    const seen = (result.json as { headers: Record<string, string> }).headers;
    expect(seen.authorization).toBeUndefined();
    expect(seen.cookie).toBeUndefined();
    expect(seen['x-trace']).toBe('kept');
    expect(sibling.seen).toHaveLength(1);
  });

  it('keeps Authorization on a redirect within the same origin', async () => {
    const result = await httpGet.handler({ url: `${main.origin}/to-same`, headers: { Authorization: 'Bearer same-origin' } }, ctx());
    expect((result.json as { headers: Record<string, string> }).headers.authorization).toBe('Bearer same-origin');
  });
});

describe('NetGuard.fetch: DNS rebinding', () => {
  it('connects to the address it checked even when the name later resolves to 127.0.0.1', async () => {
    const calls: string[] = [];
    const flipping = new NetGuard({
      allow: ['127.0.0.2'],
      resolve: async (host) => {
        calls.push(host);
        return [{ address: calls.length === 1 ? '127.0.0.2' : '127.0.0.1', family: 4 }];
      },
    });
    const result = await createHttpGetTool(flipping).handler({ url: `http://rebind.test:${main.port}/echo` }, ctx());
    expect(result.status).toBe(200);
    expect(calls).toEqual(['rebind.test']);
    expect(main.seen).toHaveLength(1);
    expectUntouched();
  });

  it('checks again at request time: a name that passed the policy but now resolves to 127.0.0.1 is refused', async () => {
    let answer = '127.0.0.2';
    const flipping = new NetGuard({ allow: ['127.0.0.2'], resolve: async () => [{ address: answer, family: 4 }] });
    expect((await flipping.checkUrl(`http://rebind.test:${main.port}/`)).decision.rule).toBe('url:allowlisted');
    answer = '127.0.0.1';
    const error = await failure(createHttpGetTool(flipping).handler({ url: `http://rebind.test:${main.port}/echo` }, ctx()));
    expect(error).toMatchObject({ errorName: 'URL_BLOCKED', details: { rule: 'url:loopback' } });
    expect(main.seen).toEqual([]);
    expectUntouched();
  });

  it('refuses a public-looking name that resolves to loopback, without connecting', async () => {
    const error = await failure(httpGet.handler({ url: `http://loopback.test:${main.port}/` }, ctx()));
    expect(error.details).toMatchObject({ rule: 'url:loopback', redirect: 0 });
    expectUntouched();
  });
});

describe('http_post', () => {
  it('sends a JSON value as application/json', async () => {
    const result = await httpPost.handler({ url: `${main.origin}/echo`, body: { name: 'pincer', n: [1, 2] } }, ctx());
    const seen = result.json as { method: string; headers: Record<string, string>; body: string };
    expect(seen.method).toBe('POST');
    expect(seen.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen.body)).toEqual({ name: 'pincer', n: [1, 2] });
  });

  it('sends a string as text, or with the given content type', async () => {
    let seen = (await httpPost.handler({ url: `${main.origin}/echo`, body: 'a=1&b=2' }, ctx())).json as { headers: Record<string, string>; body: string };
    expect(seen).toMatchObject({ body: 'a=1&b=2', headers: { 'content-type': 'text/plain; charset=utf-8', 'content-length': '7' } });
    seen = (await httpPost.handler({ url: `${main.origin}/echo`, body: 'a=1', content_type: 'application/x-www-form-urlencoded' }, ctx()))
      .json as typeof seen;
    expect(seen.headers['content-type']).toBe('application/x-www-form-urlencoded');
  });

  it('sends an empty body when none is given', async () => {
    const seen = (await httpPost.handler({ url: `${main.origin}/echo` }, ctx())).json as { headers: Record<string, string>; body: string };
    expect(seen).toMatchObject({ body: '', headers: { 'content-length': '0' } });
  });

  it('turns into a GET without the body after 303 and 302', async () => {
    for (const path of ['/post-303', '/post-302']) {
      const seen = (await httpPost.handler({ url: `${main.origin}${path}`, body: { secret: 'x' } }, ctx())).json as { method: string; body: string };
      expect(seen).toMatchObject({ method: 'GET', body: '' });
    }
  });

  it('repeats the POST with its body after 307 and 308', async () => {
    let seen = (await httpPost.handler({ url: `${main.origin}/post-307`, body: 'again' }, ctx())).json as { method: string; body: string };
    expect(seen).toMatchObject({ method: 'POST', body: 'again' });
    seen = (await httpPost.handler({ url: `${main.origin}/post-308`, body: 'across' }, ctx())).json as typeof seen;
    expect(seen).toMatchObject({ method: 'POST', body: 'across' });
  });

  it('refuses to post to 127.0.0.1', async () => {
    const error = await failure(httpPost.handler({ url: `http://127.0.0.1:${forbidden.port}/`, body: 'x' }, ctx()));
    expect(error).toMatchObject({ errorName: 'URL_BLOCKED', details: { rule: 'url:loopback' } });
    expectUntouched();
  });
});

describe('web_search', () => {
  it('answers WEB_SEARCH_NOT_CONFIGURED with how to configure it', async () => {
    const error = await failure(Promise.resolve().then(() => createWebSearchTool(net, undefined).handler({ query: 'pincer' }, ctx())));
    expect(error.errorName).toBe('WEB_SEARCH_NOT_CONFIGURED');
    expect(error.message).toContain('"web_search": {"provider": "searxng", "base_url":');
    expect(error.message).toContain('http_allow');
  });

  it('returns results from a SearXNG provider on an allowlisted stub', async () => {
    const search = createWebSearchTool(net, { provider: 'searxng', baseUrl: main.origin });
    const result = await search.handler({ query: 'tool gateway', max_results: 3 }, ctx());
    expect(result.results).toEqual([
      { title: 'Result 0 for tool gateway', url: 'https://example.com/0', snippet: 'Snippet number 0' },
      { title: 'Result 1 for tool gateway', url: 'https://example.com/1', snippet: 'Snippet number 1' },
      { title: 'Result 2 for tool gateway', url: 'https://example.com/2', snippet: 'Snippet number 2' },
    ]);
    expect(main.seen[0]!.url).toBe('/search?q=tool+gateway&format=json');
  });

  it('defaults to 5 results', async () => {
    const search = createWebSearchTool(net, { provider: 'searxng', baseUrl: main.origin });
    expect((await search.handler({ query: 'x' }, ctx())).results).toHaveLength(5);
  });

  it('refuses a provider on loopback that is not in http_allow, saying how to open it', async () => {
    const search = createWebSearchTool(net, { provider: 'searxng', baseUrl: `http://127.0.0.1:${forbidden.port}` });
    const error = await failure(search.handler({ query: 'x' }, ctx()));
    expect(error.errorName).toBe('URL_BLOCKED');
    expect(error.message).toContain('http_allow');
    expectUntouched();
  });
});

describe('httpAnalyzers: decisions without any traffic', () => {
  const analyzers = httpAnalyzers(net, undefined);
  const configured = httpAnalyzers(net, { provider: 'searxng', baseUrl: 'http://127.0.0.2:8888' });

  it.each([
    ['http_get', 'http://public.test/', 'allow', 'url:public'],
    ['http_get', 'http://127.0.0.2:9/', 'allow', 'url:allowlisted'],
    ['http_get', 'http://127.0.0.1:9/', 'deny', 'url:loopback'],
    ['http_get', 'http://169.254.169.254/', 'deny', 'url:metadata'],
    ['http_get', 'http://unknown.test/', 'allow', 'url:unresolved'],
    ['http_get', 'file:///etc/passwd', 'deny', 'url:scheme'],
    ['http_post', 'http://public.test/upload', 'ask', 'url:post'],
    ['http_post', 'http://unknown.test/upload', 'ask', 'url:post'],
    ['http_post', 'http://127.0.0.2:9/hook', 'allow', 'url:allowlisted'],
    ['http_post', 'http://127.0.0.1:9/hook', 'deny', 'url:loopback'],
    ['http_post', 'http://[::ffff:169.254.169.254]/', 'deny', 'url:metadata'],
    ['http_post', 'gopher://127.0.0.1/', 'deny', 'url:scheme'],
  ])('%s %s → %s (%s)', async (tool, url, decision, rule) => {
    const verdict = await analyzers[tool]!({ url });
    expect(verdict).toMatchObject({ decision, rule });
    expect(verdict.reason.length).toBeGreaterThan(20);
    expect(main.seen).toEqual([]);
    expectUntouched();
  });

  it('lets web_search through whether or not a provider is configured', async () => {
    expect(await analyzers.web_search!({ query: 'x' })).toMatchObject({ decision: 'allow', rule: 'web-search:not-configured' });
    expect(await configured.web_search!({ query: 'x' })).toMatchObject({ decision: 'allow', rule: 'web-search:query' });
  });
});

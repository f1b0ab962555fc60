/**
 * Every request gets an answer, whatever the spelling of its path: each route the gateway's router declares, with
 * each method it declares, and its variants (trailing slash, upper case, doubled slash, encoded slash), sent with a
 * JSON body so the body parsers run. A request that gets no answer within the bound fails the test; the status does
 * not matter (a 404 for `//chat` is an answer).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson, startGateway, type TestGateway } from '../../helpers/gateway.js';

/** Long enough for any refusal on a loaded machine; a request the gateway never answers hits it. */
const ANSWER_BOUND_MS = 15_000;
const SAMPLE_PARAMS: Record<string, string> = { name: 'calculate', id: '1' };
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

let tg: TestGateway;

beforeAll(async () => {
  // Nothing listens on port 9: the LLM routes fail at once instead of waiting for a model.
  tg = await startGateway({ llm: { baseUrl: 'http://127.0.0.1:9', model: undefined, api: 'ollama' } }, { loadPlugins: false, llm: { upstream: { retries: 0 } } });
});
afterAll(async () => {
  await tg?.close();
});

function concrete(path: string): string {
  return path.replace(/:(\w+)/g, (_, name: string) => SAMPLE_PARAMS[name] ?? 'x').replace(/\{\*\w+\}/g, 'x');
}

/** The path as written, and as the same route is reached (or missed) by other spellings. */
function variants(path: string): string[] {
  const trimmed = path.length > 1 ? path.replace(/\/$/, '') : path;
  const all = [trimmed, `${trimmed}/`, trimmed.toUpperCase(), `/${trimmed}`, trimmed.replace(/\/(?=[^/]*$)/, '//')];
  const inner = trimmed.lastIndexOf('/');
  if (inner > 0) all.push(`${trimmed.slice(0, inner)}%2F${trimmed.slice(inner + 1)}`);
  return [...new Set(all)];
}

async function answered(method: string, path: string): Promise<number> {
  const body = BODY_METHODS.has(method) ? '{}' : undefined;
  const response = await fetch(`${tg.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${tg.token}`, ...(body && { 'content-type': 'application/json' }) },
    body,
    signal: AbortSignal.timeout(ANSWER_BOUND_MS),
  }).catch((error: Error) => {
    throw new Error(`${method} ${path} got no answer within ${ANSWER_BOUND_MS} ms (${error.name}: ${error.message})`);
  });
  await response.body?.cancel(); // a stream (GET /events) has answered once its head arrived
  return response.status;
}

describe('every route answers, whatever the spelling of its path', () => {
  it('walks a router that declares the routes the body parsers treat apart', () => {
    const routes = tg.gateway.routes().map((r) => `${r.method} ${r.path}`);
    for (const route of ['POST /chat', 'POST /v1/chat/completions', 'POST /api/chat', 'POST /api/show', 'POST /memory/import', 'POST /mcp', 'POST /tools/:name/execute']) {
      expect(routes).toContain(route);
    }
  });

  it('answers every declared route and method, with a trailing slash, in upper case, with a doubled or an encoded slash', async () => {
    const seen = new Set<string>();
    const requests: [string, string][] = [];
    for (const route of tg.gateway.routes()) {
      const methods = route.method === 'ALL' ? ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] : [route.method];
      for (const method of methods) {
        for (const path of variants(concrete(route.path))) {
          const key = `${method} ${path}`;
          if (seen.has(key) || path === '/auth/logout' || path.toLowerCase() === '/auth/logout/') continue;
          seen.add(key);
          requests.push([method, path]);
        }
      }
    }
    expect(requests.length).toBeGreaterThan(300);
    // A few at a time: the bound is per request, and a hang shows as that request's failure.
    const statuses: number[] = [];
    for (let i = 0; i < requests.length; i += 8) {
      statuses.push(...(await Promise.all(requests.slice(i, i + 8).map(([method, path]) => answered(method, path)))));
    }
    expect(statuses.every((s) => s >= 200 && s < 600)).toBe(true);
  }, 300_000);

  it('answers POST /chat/, /CHAT and //chat (the attack that held a connection for ever)', async () => {
    for (const path of ['/chat/', '/CHAT', '/Chat/', '//chat', '/v1/chat/completions/', '/API/CHAT', '/api/show/']) {
      const status = await answered('POST', path);
      expect(status, path).toBeGreaterThanOrEqual(400);
    }
    // The trailing-slash spelling reaches the chat route itself, with its own parser: a bad body is its 400.
    const response = await tg.api('/chat/', { method: 'POST', json: { nope: 1 }, signal: AbortSignal.timeout(ANSWER_BOUND_MS) });
    expect(response.status).toBe(400);
    expect((await readJson(response)).error.message).toMatch(/Unknown field "nope"/);
  });

  it('reads a chat body larger than the default limit on /chat/ too (the chat limit applies, not the default one)', async () => {
    const message = 'x'.repeat(tg.gateway.config.bodyLimitBytes + 10);
    const response = await tg.api('/Chat/', { method: 'POST', json: { message, nope: 1 }, signal: AbortSignal.timeout(ANSWER_BOUND_MS) });
    expect(response.status).toBe(400);
    expect((await readJson(response)).error.message).toMatch(/Unknown field "nope"/);
  });
});

describe("the routes' body limits", () => {
  it('reads at most the default limit for /api/show ({"model"} only), and the chat limit for /api/chat', async () => {
    const big = JSON.stringify({ model: 'm', padding: 'x'.repeat(2 * 2 ** 20) });
    const post = (path: string) => fetch(`${tg.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${tg.token}`, 'content-type': 'text/plain' }, body: big });
    const show = await post('/api/show');
    expect(show.status).toBe(413);
    expect((await readJson(show)).error).toMatchObject({ name: 'PAYLOAD_TOO_LARGE' });
    // The same body is within what a chat may send: it is read (and answered by the chat route, not the size check).
    expect((await post('/api/chat')).status).not.toBe(413);
  });
});

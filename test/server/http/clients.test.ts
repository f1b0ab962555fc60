import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EventStream } from '../../helpers/events.js';
import { startGateway, tempDir, type TestGateway } from '../../helpers/gateway.js';

/** Real client software reading what the gateway publishes, and the owner issuing and revoking client tokens. */

const REDOCLY = resolve(import.meta.dirname, '../../../node_modules/.bin/redocly');

interface StubChat {
  server: Server;
  baseURL: string;
  requests: { tools?: unknown; messages: ChatCompletionMessageParam[] }[];
}

/** An OpenAI-compatible chat endpoint on loopback: the first turn asks for two tools, the second answers. */
async function startStubChat(): Promise<StubChat> {
  const requests: StubChat['requests'] = [];
  const readBody = async (req: IncomingMessage) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    return JSON.parse(text) as StubChat['requests'][number];
  };
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    requests.push(body);
    const firstTurn = requests.length === 1;
    const message = firstTurn
      ? {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'calculate', arguments: '{"expression":"(2+3)*4"}' } },
            { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{"timezone":"Asia/Tokyo"}' } },
          ],
        }
      : { role: 'assistant', content: '20, and it is evening in Tokyo.' };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: 'stub',
        choices: [{ index: 0, message, finish_reason: firstTurn ? 'tool_calls' : 'stop', logprobs: null }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { server, baseURL: `http://127.0.0.1:${port}/v1`, requests };
}

describe('real clients', () => {
  let gw: TestGateway;
  let stub: StubChat;

  beforeAll(async () => {
    gw = await startGateway();
    stub = await startStubChat();
  });
  afterAll(async () => {
    await gw.close();
    await new Promise((r) => stub.server.close(r));
  });

  it('the openai SDK sends /tools/openai as tools, and /tool_calls answers make the next turn', async () => {
    const { tools } = (await (await gw.api('/tools/openai')).json()) as { tools: ChatCompletionTool[] };
    const openai = new OpenAI({ baseURL: stub.baseURL, apiKey: 'not-used', maxRetries: 0 });
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is (2+3)*4, and the time in Tokyo?' }];

    const first = await openai.chat.completions.create({ model: 'stub', messages, tools });
    expect(stub.requests[0]!.tools).toEqual(tools);
    const assistant = first.choices[0]!.message;
    expect(assistant.tool_calls).toHaveLength(2);

    const answered = (await (await gw.api('/tool_calls', { method: 'POST', json: { tool_calls: assistant.tool_calls } })).json()) as {
      messages: ChatCompletionMessageParam[];
    };
    messages.push(assistant, ...answered.messages);
    const second = await openai.chat.completions.create({ model: 'stub', messages, tools });
    expect(second.choices[0]!.message.content).toContain('20');

    const sent = stub.requests[1]!.messages;
    expect(sent.slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 'call_a', content: expect.any(String) },
      { role: 'tool', tool_call_id: 'call_b', content: expect.any(String) },
    ]);
    const [calc, time] = sent.slice(-2).map((m) => JSON.parse(m.content as string) as { success: boolean; result: Record<string, unknown> });
    expect(calc).toMatchObject({ success: true, result: { result: 20 } });
    expect(time).toMatchObject({ success: true, result: { timezone: 'Asia/Tokyo', utc_offset: '+09:00' } });
  });

  it('/openapi.json passes @redocly/cli lint with no errors', async () => {
    const dir = tempDir();
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, await (await gw.api('/openapi.json')).text());
      const { stdout } = await promisify(execFile)(REDOCLY, ['lint', file, '--format', 'json'], {
        env: { ...process.env, HOME: dir, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        timeout: 60_000,
      });
      const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
        totals: { errors: number };
        problems: { ruleId: string; severity: string; message: string }[];
      };
      expect(report.problems.filter((p) => p.severity === 'error')).toEqual([]);
      expect(report.totals.errors).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('/openapi.json has one literal path and operationId per enabled tool', async () => {
    const doc = (await (await gw.api('/openapi.json')).json()) as { openapi: string; paths: Record<string, { post: { operationId: string } }> };
    const { tools } = (await (await gw.api('/tools/openai')).json()) as { tools: { function: { name: string } }[] };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.fromEntries(Object.entries(doc.paths).map(([path, item]) => [path, item.post.operationId]))).toEqual(
      Object.fromEntries(tools.map((t) => [`/tools/${t.function.name}/execute`, t.function.name])),
    );
  });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const json = (res: Response): Promise<Json> => res.json();

describe('client tokens over HTTP (owner only)', () => {
  let gw: TestGateway;
  let events: EventStream;
  /** The owner's stream: a client's creation and revocation are announced to the owner (and that client) only. */
  let ownerEvents: EventStream;

  beforeAll(async () => {
    gw = await startGateway();
    events = await EventStream.open(gw);
    ownerEvents = await EventStream.openAsOwner(gw);
  });
  afterAll(async () => {
    await events.close();
    await ownerEvents.close();
    await gw.close();
  });

  /** As the signed-in owner: session cookie plus the gateway's own Origin. */
  const owner = (path: string, init?: { method?: string; json?: unknown }) => gw.asOwner(path, init);
  const create = (name: unknown) => owner('/clients', { json: { name } });
  const revoke = (name: string) => owner(`/clients/${encodeURIComponent(name)}`, { method: 'DELETE' });
  const calculateAs = (token: string) =>
    fetch(`${gw.url}/tools/calculate/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ expression: '6*7' }),
    });

  it('create → the token calls a tool as that client → revoke → the same token gets 401 at once', async () => {
    const created = await create('cursor');
    expect(created.status).toBe(201);
    const body = await json(created);
    expect(Object.keys(body).sort()).toEqual(['created_at', 'name', 'token']);
    expect(body.name).toBe('cursor');
    expect(body.token).toMatch(/^\S{32,}$/);
    expect(Date.parse(body.created_at)).not.toBeNaN();

    const ok = await calculateAs(body.token);
    expect(ok.status).toBe(200);
    const envelope = await json(ok);
    expect(envelope).toMatchObject({ success: true, result: { result: 42 } });
    expect(await json(await gw.api(`/calls/${envelope.call_id}`))).toMatchObject({ client: 'cursor' });

    const revoked = await revoke('cursor');
    expect(revoked.status).toBe(200);
    expect(await json(revoked)).toEqual({ name: 'cursor', revoked: true });
    const refused = await calculateAs(body.token);
    expect(refused.status).toBe(401);
    expect((await json(refused)).error.name).toBe('AUTH_FAILED');
    // Through the X-API-Key header too.
    const viaKey = await fetch(`${gw.url}/tools`, { headers: { 'x-api-key': body.token } });
    expect(viaKey.status).toBe(401);
  });

  it("revoking a client ends its open event stream at once, while other streams stay open", async () => {
    const { token } = await json(await create('watcher'));
    const stream = await fetch(`${gw.url}/events`, { headers: { authorization: `Bearer ${token}` } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('event: hello');
    expect((await revoke('watcher')).status).toBe(200);
    // Anything still buffered, then the end of the stream.
    for (;;) if ((await reader.read()).done) break;
    // The default client's stream (opened in beforeAll) still receives events.
    await calculateAs(gw.token);
    await events.next((e) => e.event === 'call' && e.data.call.client === 'default');
  });

  it('lists the new client without its token, only a hint', async () => {
    const { token } = await json(await create('listed'));
    const { clients } = await json(await owner('/clients'));
    const listed = (clients as Json[]).find((c) => c.name === 'listed');
    expect(listed.token).toMatchObject({ name: 'listed', token_hint: token.slice(-4), revoked_at: null });
    expect(JSON.stringify(clients)).not.toContain(token);
    await revoke('listed');
    const after = (await json(await owner('/clients'))).clients as Json[];
    expect(after.map((c) => c.name)).not.toContain('listed');
  });

  it('keeps only a hash: the token is nowhere in the data directory', async () => {
    const { token } = await json(await create('hashed'));
    gw.gateway.store.calls.flush();
    // Every file, in every folder (plugins/, run/…), not only the top level.
    for (const file of readdirSync(gw.dataDir, { recursive: true, encoding: 'utf8' })) {
      if (file === 'token' || file === 'owner-secret' || !statSync(join(gw.dataDir, file)).isFile()) continue;
      const bytes = readFileSync(join(gw.dataDir, file));
      expect(bytes.includes(token), file).toBe(false);
    }
    await revoke('hashed');
  });

  it('puts nothing secret in events or logs', async () => {
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((level) => vi.spyOn(console, level));
    try {
      const { token } = await json(await create('quiet'));
      await ownerEvents.next((e) => e.event === 'tools' && e.data.reason === 'client:quiet');
      await revoke('quiet');
      await vi.waitFor(() => expect(ownerEvents.events.filter((e) => e.data?.reason === 'client:quiet')).toHaveLength(2));
      expect(JSON.stringify(ownerEvents.events)).not.toContain(token);
      expect(JSON.stringify(events.events)).not.toContain(token);
      for (const spy of spies) expect(JSON.stringify(spy.mock.calls)).not.toContain(token);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });

  it('a name held by an active client is 409; once revoked it can be issued again with a new token', async () => {
    const first = await json(await create('twice'));
    const again = await create('twice');
    expect(again.status).toBe(409);
    expect((await json(again)).error).toMatchObject({ name: 'CLIENT_EXISTS', message: expect.stringContaining('"twice" already exists') });
    expect((await calculateAs(first.token)).status).toBe(200);

    await revoke('twice');
    const reissued = await create('twice');
    expect(reissued.status).toBe(201);
    const second = await json(reissued);
    expect(second.token).not.toBe(first.token);
    expect((await calculateAs(second.token)).status).toBe(200);
    expect((await calculateAs(first.token)).status).toBe(401);
    await revoke('twice');
  });

  it('a name issued by `pincer token create` (the same code path) is taken for HTTP too', async () => {
    gw.gateway.credentials.createClient('from-cli');
    expect((await create('from-cli')).status).toBe(409);
    expect((await revoke('from-cli')).status).toBe(200);
  });

  it.each([
    ['', 'Client names are 1–64 letters'],
    ['has space', 'Client names are 1–64 letters'],
    ['-leading-dash', 'starting with a letter or digit'],
    ['.hidden', 'starting with a letter or digit'],
    ['../etc', 'Client names are 1–64 letters'],
    ['x'.repeat(65), 'Client names are 1–64 letters'],
    ['ünïcode', 'Client names are 1–64 letters'],
    ['line\nbreak', 'Client names are 1–64 letters'],
  ])('refuses the bad name %j with 400 naming the rule', async (name, rule) => {
    const res = await create(name);
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({ name: 'INVALID_ARGUMENTS', message: expect.stringContaining(rule) });
  });

  it.each(['default', 'owner'])('refuses the reserved name %s with 400', async (name) => {
    const res = await create(name);
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toContain(`"${name}" is reserved`);
  });

  it.each([
    ['no name', {}],
    ['a number', { name: 42 }],
    ['an extra field', { name: 'ok-name', token: 'chosen-by-me-0123456789' }],
    ['a list', ['ok-name']],
  ])('refuses a body with %s with 400', async (_what, body) => {
    const res = await owner('/clients', { json: body });
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toContain('{"name": "<client name>"}');
  });

  it('DELETE of an unknown or already revoked client is 404', async () => {
    expect((await revoke('nobody-here')).status).toBe(404);
    await create('gone');
    expect((await revoke('gone')).status).toBe(200);
    const again = await revoke('gone');
    expect(again.status).toBe(404);
    expect((await json(again)).error.name).toBe('NOT_FOUND');
  });

  it('DELETE /clients/default is 400 saying where the default token lives, and it keeps working', async () => {
    const res = await revoke('default');
    expect(res.status).toBe(400);
    const message = (await json(res)).error.message;
    expect(message).toContain(join(gw.dataDir, 'token'));
    expect(message).toContain('PINCER_TOKEN');
    expect((await gw.api('/tools')).status).toBe(200);
  });

  it('GET /clients/default/token gives the owner the default token (the token file)', async () => {
    const res = await owner('/clients/default/token');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await json(res)).toEqual({ token: gw.token });
    expect(readFileSync(join(gw.dataDir, 'token'), 'utf8').trim()).toBe(gw.token);
  });

  it('a client token gets 403 on every token route, and nothing is issued or revoked', async () => {
    const named = (await json(await create('bystander'))).token as string;
    for (const token of [gw.token, named]) {
      const as = (path: string, method: string, json?: unknown) =>
        fetch(`${gw.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(json !== undefined && { 'content-type': 'application/json' }) },
          ...(json !== undefined && { body: JSON.stringify(json) }),
        });
      const attempts = [
        await as('/clients', 'POST', { name: 'sneaky' }),
        await as('/clients/bystander', 'DELETE'),
        await as('/clients/default/token', 'GET'),
      ];
      for (const res of attempts) {
        expect(res.status).toBe(403);
        expect(JSON.stringify(await json(res))).not.toContain(gw.token);
      }
    }
    const { clients } = await json(await owner('/clients'));
    expect((clients as Json[]).map((c) => c.name)).not.toContain('sneaky');
    expect((await calculateAs(named)).status).toBe(200);
    await revoke('bystander');
  });

  it('the owner cookie without Origin is refused on POST and DELETE (CSRF)', async () => {
    await create('csrf-target');
    const { cookie } = await gw.ownerHeaders();
    const post = await fetch(`${gw.url}/clients`, {
      method: 'POST',
      headers: { cookie: cookie!, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'csrf-made' }),
    });
    expect(post.status).toBe(403);
    expect((await json(post)).error.name).toBe('ORIGIN_NOT_ALLOWED');
    const del = await fetch(`${gw.url}/clients/csrf-target`, { method: 'DELETE', headers: { cookie: cookie! } });
    expect(del.status).toBe(403);
    const names = ((await json(await owner('/clients'))).clients as Json[]).map((c) => c.name);
    expect(names).toContain('csrf-target');
    expect(names).not.toContain('csrf-made');
    await revoke('csrf-target');
  });

  it('a page on another origin cannot read the default token with the owner cookie', async () => {
    const { cookie } = await gw.ownerHeaders();
    const res = await fetch(`${gw.url}/clients/default/token`, { headers: { cookie: cookie!, origin: 'http://evil.example' } });
    expect(res.status).toBe(403);
    expect(await res.text()).not.toContain(gw.token);
  });
});

describe('GET /clients/default/token with PINCER_TOKEN', () => {
  it('answers the token from the environment, and DELETE names PINCER_TOKEN as its source', async () => {
    const token = 'env-token-0123456789abcdef';
    const gw = await startGateway({ token });
    try {
      const headers = await gw.ownerHeaders();
      expect(await json(await fetch(`${gw.url}/clients/default/token`, { headers }))).toEqual({ token });
      const res = await fetch(`${gw.url}/clients/default`, { method: 'DELETE', headers });
      expect(res.status).toBe(400);
      expect((await json(res)).error.message).toMatch(/takes it from PINCER_TOKEN/);
    } finally {
      await gw.close();
    }
  });
});

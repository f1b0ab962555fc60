import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Ollama } from 'ollama';
import { afterEach, describe, expect, it } from 'vitest';
import { readJson, startGateway, type TestGateway } from '../../helpers/gateway.js';
import { last, startWithStub, type LlmSetup } from './gateway-with-llm.js';
import { startStubLlm, type StubLlm, type StubRequest } from './stub-llm.js';

/**
 * The Ollama-compatible proxy with the official `ollama` SDK as its client: an app that speaks Ollama's API, pointed
 * at Pincer, gets Pincer's tools run server-side, its own tool calls back as objects, NDJSON streaming.
 */

let setup: LlmSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

function sdk(s: { url: string; token: string }, token: string | null = s.token): Ollama {
  return new Ollama({ host: s.url, ...(token !== null && { headers: { Authorization: `Bearer ${token}` } }) });
}

function calculateThenAnswer(request: StubRequest) {
  if (last(request.messages).role === 'user') return { tool_calls: [{ name: 'calculate', arguments: { expression: '6*7' } }] };
  const tool = request.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(String(m.content)));
  return { content: `The answer is ${tool[0]?.result?.result}.` };
}

const WEATHER_TOOL = {
  type: 'function',
  function: { name: 'get_weather', description: 'The app answers this one.', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

describe.each(['ollama', 'openai'] as const)('POST /api/chat to an %s upstream', (api) => {
  it("runs Pincer's tools and answers, streamed as NDJSON and whole", async () => {
    setup = await startWithStub(api, calculateThenAnswer);
    const client = sdk(setup.tg);
    const whole = await client.chat({ model: 'stub-model', messages: [{ role: 'user', content: 'What is 6*7?' }], stream: false });
    expect(whole.message).toMatchObject({ role: 'assistant', content: 'The answer is 42.' });
    expect(whole.done).toBe(true);
    expect(whole.done_reason).toBe('stop');

    const stream = await client.chat({ model: 'stub-model', messages: [{ role: 'user', content: 'What is 6*7?' }], stream: true });
    let text = '';
    let done = false;
    for await (const part of stream) {
      text += part.message.content;
      if (part.done) done = true;
    }
    expect(text).toBe('The answer is 42.');
    expect(done).toBe(true);
    const calls = await readJson(await setup.tg.api('/calls?tool=calculate'));
    expect(calls.calls[0]).toMatchObject({ client: 'default', via: 'ollama-proxy:stub-model', status: 'succeeded' });
  });

  it("hands the app's own tool calls back as objects, and takes their results by tool_name", async () => {
    setup = await startWithStub(api, (request) =>
      last(request.messages).role === 'user' ? { tool_calls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] } : { content: `Weather: ${String(last(request.messages).content)}` },
    );
    const client = sdk(setup.tg);
    const first = await client.chat({ model: 'stub-model', messages: [{ role: 'user', content: 'Weather?' }], tools: [WEATHER_TOOL], stream: false });
    expect(first.message.tool_calls).toHaveLength(1);
    expect(first.message.tool_calls![0]!.function).toEqual({ name: 'get_weather', arguments: { city: 'Oslo' } });
    const next = await client.chat({
      model: 'stub-model',
      tools: [WEATHER_TOOL],
      stream: false,
      messages: [{ role: 'user', content: 'Weather?' }, first.message, { role: 'tool', content: 'sunny', tool_name: 'get_weather' } as Json],
    });
    expect(next.message.content).toBe('Weather: sunny');
  });

  it('lists the upstream models as Ollama tags and says a version', async () => {
    setup = await startWithStub(api, () => ({ content: 'ok' }));
    const client = sdk(setup.tg);
    const tags = await client.list();
    expect(tags.models.map((m) => m.name)).toEqual(['stub-model', 'llama3.1:8b']);
    const shown = await client.show({ model: 'stub-model' });
    expect(shown.capabilities).toContain('tools');
    const missing = await client.show({ model: 'nope:1b' }).catch((e: unknown) => e);
    expect((missing as Json).status_code).toBe(404);
    const version = await readJson(await setup.tg.api('/api/version'));
    expect(version.version).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('Ollama-compatible proxy: bodies and token-less mode', () => {
  it('reads a JSON body whatever its content type says', async () => {
    setup = await startWithStub('ollama', () => ({ content: 'ok' }));
    const res = await fetch(`${setup.tg.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${setup.tg.token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: JSON.stringify({ model: 'stub-model', stream: false, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    expect((await readJson(res)).message.content).toBe('ok');
  });

  it('accepts a long history up to the chat body limit, beyond the 1 MiB of other routes', async () => {
    setup = await startWithStub('ollama', () => ({ content: 'ok' }));
    const long = 'x'.repeat(3 * 2 ** 20);
    const res = await setup.tg.api('/api/chat', { method: 'POST', json: { model: 'stub-model', stream: false, messages: [{ role: 'user', content: long }] } });
    expect(res.status).toBe(200);
    const other = await setup.tg.api('/execute', { method: 'POST', json: { name: 'calculate', arguments: { expression: long } } });
    expect(other.status).toBe(413);
  });

  it('needs a token unless the owner switched token-less mode on', async () => {
    setup = await startWithStub('ollama', () => ({ content: 'ok' }));
    const refused = await sdk(setup.tg, null).chat({ model: 'stub-model', messages: [{ role: 'user', content: 'hi' }], stream: false }).catch((e: unknown) => e);
    expect((refused as Json).status_code).toBe(401);
  });

  describe('token-less mode', () => {
    let stub: StubLlm;
    let tg: TestGateway;
    afterEach(async () => {
      await tg.close();
      await stub.close();
    });

    it('acts as its own client, offered only safe tools by default, and opens no other route', async () => {
      stub = await startStubLlm((request) =>
        last(request.messages).role === 'user' ? { tool_calls: [{ name: 'file_write', arguments: { path: 'x.txt', content: 'x' } }] } : { content: String(last(request.messages).content) },
      );
      tg = await startGateway({ llm: { baseUrl: stub.url, model: 'stub-model', api: 'ollama' }, ollamaProxy: { tokenless: true, client: 'ollama-app' } });
      const answer = await sdk(tg, null).chat({ model: 'stub-model', messages: [{ role: 'user', content: 'write' }], stream: false });
      const offered = stub.requests[0]!.tools.map((t) => t.function.name);
      expect(offered).toContain('calculate');
      expect(offered).not.toContain('file_write');
      expect(offered).not.toContain('run_shell');
      // The model called a tool it was not offered: refused by the pipeline, reported to the model.
      expect(answer.message.content).toContain('TOOL_DISABLED');
      const calls = await readJson(await tg.api('/calls?tool=file_write'));
      expect(calls.calls[0]).toMatchObject({ client: 'ollama-app', status: 'failed' });

      expect((await fetch(`${tg.url}/tools`)).status).toBe(401);
      expect((await fetch(`${tg.url}/v1/models`)).status).toBe(401);
      // The Host check still applies.
      // The owner's own choice for that client, "every tool" included, is kept from then on.
      expect((await tg.asOwner('/clients/ollama-app/tools', { method: 'PUT', json: { tools: null } })).status).toBe(200);
      await sdk(tg, null).chat({ model: 'stub-model', messages: [{ role: 'user', content: 'write' }], stream: false });
      expect(stub.requests.at(-2)!.tools.map((t) => t.function.name)).toContain('file_write');

      const rebound = await new Promise<number>((resolve, reject) => {
        request({ host: '127.0.0.1', port: tg.port, path: '/api/tags', headers: { host: 'attacker.example' } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        })
          .on('error', reject)
          .end();
      });
      expect(rebound).toBe(403);
    });

    it("reads only the memories and calls it made itself, never a named client's", async () => {
      stub = await startStubLlm((request) => {
        const said = last(request.messages);
        if (said.role !== 'user') return { content: String(said.content) };
        return String(said.content).startsWith('note')
          ? { tool_calls: [{ name: 'remember', arguments: { content: 'tokenless: the bike lock is 7730' } }] }
          : { tool_calls: [{ name: 'recall', arguments: { query: 'lock', method: 'fuzzy' } }] };
      });
      tg = await startGateway({ llm: { baseUrl: stub.url, model: 'stub-model', api: 'ollama' }, ollamaProxy: { tokenless: true, client: 'ollama-app' } });
      const alice = tg.gateway.credentials.createClient('alice');
      const stored = await tg.api('/tools/remember/execute', { method: 'POST', json: { content: 'alice: the locker lock is 6203' }, headers: { authorization: `Bearer ${alice}` } });
      expect(stored.status).toBe(200);
      const chat = (content: string) => sdk(tg, null).chat({ model: 'stub-model', messages: [{ role: 'user', content }], stream: false });

      expect((await chat('note this')).message.content).toContain('"success":true');
      const recalled = (await chat('what lock codes do you know?')).message.content;
      expect(recalled).toContain('7730');
      expect(recalled).not.toContain('6203');
      expect(tg.gateway.store.clients.scopes('ollama-app')).toEqual({ memories: 'own', history: 'own' });
      // The default client and the owner still read everything.
      expect(tg.gateway.store.clients.scopes('default')).toEqual({ memories: 'all', history: 'all' });
      expect(tg.gateway.store.clients.scopes('owner')).toEqual({ memories: 'all', history: 'all' });
    });

    it('is turned on, moved to another client and off from PATCH /settings, each in force for the next request', async () => {
      stub = await startStubLlm(() => ({ content: 'ok' }));
      tg = await startGateway({ llm: { baseUrl: stub.url, model: 'stub-model', api: 'ollama' } });
      const ask = () => sdk(tg, null).chat({ model: 'stub-model', messages: [{ role: 'user', content: 'hi' }], stream: false });
      const settings = (json: unknown) => tg.asOwner('/settings', { method: 'PATCH', json });
      const configJson = () => JSON.parse(readFileSync(join(tg.dataDir, 'config.json'), 'utf8'));

      expect(((await ask().catch((e: unknown) => e)) as Json).status_code).toBe(401);
      expect((await settings({ ollama_proxy: { tokenless: true } })).status).toBe(200);
      expect(configJson()).toEqual({ ollama_proxy: { tokenless: true } });
      expect((await ask()).message.content).toBe('ok');
      expect(stub.requests.at(-1)!.tools.map((t) => t.function.name)).not.toContain('run_shell');

      // Another client the owner made: requests now get its tool set.
      tg.gateway.credentials.createClient('lm-desk');
      expect((await tg.asOwner('/clients/lm-desk/tools', { method: 'PUT', json: { tools: ['calculate'] } })).status).toBe(200);
      expect((await settings({ ollama_proxy: { client: 'lm-desk' } })).status).toBe(200);
      expect(configJson()).toEqual({ ollama_proxy: { tokenless: true, client: 'lm-desk' } });
      await ask();
      expect(stub.requests.at(-1)!.tools.map((t) => t.function.name)).toEqual(['calculate']);

      expect((await settings({ ollama_proxy: { tokenless: false } })).status).toBe(200);
      expect(((await ask().catch((e: unknown) => e)) as Json).status_code).toBe(401);
      expect((await fetch(`${tg.url}/api/tags`)).status).toBe(401);
      expect(configJson()).toEqual({ ollama_proxy: { tokenless: false, client: 'lm-desk' } });
      // A token still works, as the client it belongs to.
      expect((await sdk(tg).chat({ model: 'stub-model', messages: [{ role: 'user', content: 'hi' }], stream: false })).message.content).toBe('ok');
    });
  });
});

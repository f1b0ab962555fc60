import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { defineTool, type AnyTool } from '../../../server/index.js';
import type { LlmApi } from '../../../server/config/config.js';
import { readJson, startGateway, type TestGateway } from '../../helpers/gateway.js';
import { last } from './gateway-with-llm.js';
import { startStubLlm, type Script, type StubLlm, type StubRequest } from './stub-llm.js';

/**
 * Ollama's context window: with many tools the request outgrows Ollama's default 4096-token window, which would cut
 * the front of the prompt (the tools) silently. Every request that needs more asks for it (`options.num_ctx`),
 * within the model's own context length (/api/show) and `llm.max_context`; when even that cannot hold them, the
 * least relevant tools are left out and said so (`context.tools_left_out`). A client's own larger num_ctx is kept.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const DEFAULT_WINDOW = 4096;

/** Sixty tools whose long descriptions alone outgrow the default window. */
function manyTools(n = 60): AnyTool[] {
  return Array.from({ length: n }, (_, i) => {
    const name = `archive_shelf_${String(i).padStart(2, '0')}`;
    return defineTool<{ query: string; limit?: number }, { shelf: number; query: string }>({
      name,
      description:
        `Test tool ${i}: searches archive shelf number ${i} for records whose catalogue entry matches the query. ` +
        'The catalogue holds titles, authors, accession numbers, shelf marks and free-text notes written by the ' +
        'archivists over many decades, so the query is matched loosely: word order does not matter, accents are ' +
        'ignored, and common abbreviations such as "vol." and "ed." are expanded before matching. Results come back ' +
        'newest accession first, at most `limit` of them, each with its shelf mark and a short excerpt of the notes. ' +
        'Use a different shelf tool for every shelf: records are never duplicated between shelves.',
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'Words to look for in titles, authors and notes of this shelf.' },
          limit: { type: 'integer', description: 'How many records to return at most (1 to 50).', minimum: 1, maximum: 50 },
        },
        required: ['query'],
        additionalProperties: false,
      },
      category: 'test',
      risk: 'safe',
      annotations: { readOnlyHint: true },
      handler: (args) => ({ shelf: i, query: args.query }),
    });
  });
}

/** The request's size as the test counts it: one token per four characters of its messages and tools as JSON. */
function tokens(request: StubRequest): number {
  return Math.ceil(JSON.stringify(request.body.messages ?? []).length / 4) + (request.body.tools ? Math.ceil(JSON.stringify(request.body.tools).length / 4) : 0);
}

function numCtx(request: StubRequest): number | undefined {
  return (request.body.options as { num_ctx?: number } | undefined)?.num_ctx;
}

interface Setup {
  tg: TestGateway;
  stub: StubLlm;
  close(): Promise<void>;
}

let setup: Setup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

async function start(api: LlmApi, script: Script, tools = manyTools()): Promise<Setup> {
  const stub = await startStubLlm(script);
  const tg = await startGateway({ llm: { baseUrl: stub.url, model: 'stub-model', api } }, { extraTools: tools, llm: { upstream: { retries: 0, backoffMs: 5, idleTimeoutMs: 30_000 } } });
  return {
    tg,
    stub,
    async close() {
      await tg.close();
      await stub.close();
    },
  };
}

/** Calls calculate on the user's message, then answers. */
function calculateThenAnswer(request: StubRequest) {
  if (last(request.messages).role === 'user') return { tool_calls: [{ name: 'calculate', arguments: { expression: '6 * 7' } }] };
  return { content: 'It is 42.' };
}

/** Every request too big for the default window asks for a window that holds it. */
function expectWindows(requests: StubRequest[]) {
  for (const request of requests) {
    const size = tokens(request);
    if (size > DEFAULT_WINDOW) {
      expect(numCtx(request), `a request of ${size} tokens`).toBeGreaterThanOrEqual(size);
      expect(Math.log2(numCtx(request)!) % 1, 'a power of two').toBe(0);
    }
  }
}

describe('num_ctx for an Ollama request that outgrows the default window', () => {
  it('asks for a window holding the tools and messages on every request of the turn, and reports it', async () => {
    setup = await start('ollama', calculateThenAnswer);
    const body = await readJson(await setup.tg.api('/chat', { method: 'POST', json: { message: 'What is 6 * 7?' } }));
    expect(body.answer).toBe('It is 42.');
    expect(setup.stub.requests).toHaveLength(2);
    for (const request of setup.stub.requests) expect(tokens(request)).toBeGreaterThan(DEFAULT_WINDOW);
    expectWindows(setup.stub.requests);
    // Nothing was left out: the default limit (32768) holds all the tools.
    const offered = setup.stub.requests[0]!.tools.map((t) => t.function.name);
    expect(offered).toContain('archive_shelf_59');
    expect(offered).toContain('calculate');
    expect(body.context).toMatchObject({ num_ctx: numCtx(setup.stub.requests[1]!), tools_left_out: [] });
    expect(body.context.estimated_tokens).toBeGreaterThanOrEqual(tokens(setup.stub.requests[1]!) - 64);
    expect(body.context.limit).toBe(32768);
  });

  it('grows the window with a long conversation, and streams with it too', async () => {
    setup = await start('ollama', () => ({ content: 'Noted.' }));
    const long = 'The minutes of the meeting, read aloud. '.repeat(1500); // ~60k characters, ~15k tokens
    const res = await setup.tg.api('/chat', { method: 'POST', json: { message: long }, headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(200);
    await res.text();
    const request = setup.stub.requests[0]!;
    expect(tokens(request)).toBeGreaterThan(16384);
    expectWindows([request]);
    expect(numCtx(request)).toBe(32768);
  });

  it('sends no num_ctx when the default window holds the request', async () => {
    setup = await start('ollama', () => ({ content: 'Hi.' }));
    const created = await readJson(await setup.tg.asOwner('/clients', { json: { name: 'narrow' } }));
    await setup.tg.asOwner('/clients/narrow/tools', { method: 'PUT', json: { tools: ['calculate'] } });
    await setup.tg.api('/chat', { method: 'POST', json: { message: 'hi' }, headers: { authorization: `Bearer ${created.token}` } });
    const request = setup.stub.requests[0]!;
    expect(tokens(request)).toBeLessThan(DEFAULT_WINDOW);
    expect(numCtx(request)).toBeUndefined();
  });

  it('never sets num_ctx on an OpenAI-compatible upstream', async () => {
    setup = await start('openai', calculateThenAnswer);
    await readJson(await setup.tg.api('/chat', { method: 'POST', json: { message: 'What is 6 * 7?' } }));
    for (const request of setup.stub.requests) expect(request.body.options).toBeUndefined();
  });
});

describe("a model whose context length is small (/api/show's <arch>.context_length)", () => {
  it('leaves the least relevant tools out, says which, and still fits the window', async () => {
    setup = await start('ollama', calculateThenAnswer);
    setup.stub.setShow('small-ctx:3b', { contextLength: 8192, architecture: 'qwen2' });
    // Every tool offered each turn (else a small window is offered only a few: see tool-selection.test.ts).
    await setup.tg.asOwner('/settings', { method: 'PATCH', json: { llm: { max_tools: 1000 } } });
    const body = await readJson(await setup.tg.api('/chat', { method: 'POST', json: { message: 'Please calculate 6 * 7.', model: 'small-ctx:3b' } }));
    expect(body.answer).toBe('It is 42.');
    const left: string[] = body.context.tools_left_out;
    expect(left.length).toBeGreaterThan(0);
    expect(body.context.limit).toBe(8192);
    // `context` is the last request's: what it left out was not sent then (a later round, with the tool's result in
    // the messages, may have room for fewer tools than the first).
    const lastSent = setup.stub.requests.at(-1)!.tools.map((t) => t.function.name);
    for (const name of left) expect(lastSent).not.toContain(name);
    for (const request of setup.stub.requests) {
      const sent = request.tools.map((t) => t.function.name);
      // The tool the user asked for, and the one already used, stay.
      expect(sent).toContain('calculate');
      expect(numCtx(request)).toBeLessThanOrEqual(8192);
      expect(tokens(request)).toBeLessThanOrEqual(numCtx(request) ?? DEFAULT_WINDOW);
    }
    expectWindows(setup.stub.requests);
    // What was left out and what was sent are together every tool offered.
    const all = (await readJson(await setup.tg.api('/tools'))).tools.map((t: Json) => t.name);
    expect([...lastSent, ...left].sort()).toEqual([...all].sort());
  });

  it('reports the tools left out through the proxies too (pincer.context)', async () => {
    setup = await start('ollama', () => ({ content: 'ok' }));
    setup.stub.setShow('small-ctx:3b', { contextLength: 8192 });
    await setup.tg.asOwner('/settings', { method: 'PATCH', json: { llm: { max_tools: 1000 } } });
    const openai = new OpenAI({ apiKey: setup.tg.token, baseURL: `${setup.tg.url}/v1`, maxRetries: 0 });
    const completion = (await openai.chat.completions.create({ model: 'small-ctx:3b', messages: [{ role: 'user', content: 'hi' }] })) as Json;
    expect(completion.pincer.context.tools_left_out.length).toBeGreaterThan(0);
    const ollama = new Ollama({ host: setup.tg.url, headers: { Authorization: `Bearer ${setup.tg.token}` } });
    const answer = (await ollama.chat({ model: 'small-ctx:3b', messages: [{ role: 'user', content: 'hi' }], stream: false })) as Json;
    expect(answer.pincer.context.tools_left_out.length).toBeGreaterThan(0);
    expect(numCtx(setup.stub.requests.at(-1)!)).toBeLessThanOrEqual(8192);
  });
});

describe('llm.max_context (PATCH /settings)', () => {
  it('bounds the window asked for; tools are left out to fit it, and all come back when it is lifted', async () => {
    setup = await start('ollama', calculateThenAnswer);
    setup.stub.setShow('stub-model', { contextLength: 131072 });
    const patched = await setup.tg.asOwner('/settings', { method: 'PATCH', json: { llm: { max_context: 8192 } } });
    expect(patched.status).toBe(200);
    const bounded = await readJson(await setup.tg.api('/chat', { method: 'POST', json: { message: 'Calculate 6 * 7.' } }));
    expect(bounded.context.limit).toBe(8192);
    expect(bounded.context.tools_left_out.length).toBeGreaterThan(0);
    for (const request of setup.stub.requests) {
      expect(numCtx(request)).toBeLessThanOrEqual(8192);
      expect(tokens(request)).toBeLessThanOrEqual(8192);
    }
    expectWindows(setup.stub.requests);

    expect((await setup.tg.asOwner('/settings', { method: 'PATCH', json: { llm: { max_context: null } } })).status).toBe(200);
    const from = setup.stub.requests.length;
    const lifted = await readJson(await setup.tg.api('/chat', { method: 'POST', json: { message: 'Calculate 6 * 7.' } }));
    expect(lifted.context.tools_left_out).toEqual([]);
    expect(lifted.context.limit).toBe(32768);
    expectWindows(setup.stub.requests.slice(from));
  });
});

describe("the Ollama proxy and a client's own num_ctx", () => {
  it('keeps a larger num_ctx the client asked for, and its other options', async () => {
    setup = await start('ollama', () => ({ content: 'ok' }));
    const ollama = new Ollama({ host: setup.tg.url, headers: { Authorization: `Bearer ${setup.tg.token}` } });
    await ollama.chat({ model: 'stub-model', messages: [{ role: 'user', content: 'hi' }], stream: false, options: { num_ctx: 65536, temperature: 0.2 } });
    const request = setup.stub.requests[0]!;
    expect(request.body.options).toMatchObject({ num_ctx: 65536, temperature: 0.2 });
  });

  it('raises a smaller num_ctx the client asked for when the tools would not fit in it', async () => {
    setup = await start('ollama', () => ({ content: 'ok' }));
    const ollama = new Ollama({ host: setup.tg.url, headers: { Authorization: `Bearer ${setup.tg.token}` } });
    await ollama.chat({ model: 'stub-model', messages: [{ role: 'user', content: 'hi' }], stream: true, options: { num_ctx: 2048 } }).then(async (s) => {
      for await (const _ of s) void _;
    });
    const request = setup.stub.requests[0]!;
    expect(tokens(request)).toBeGreaterThan(2048);
    expectWindows([request]);
  });
});

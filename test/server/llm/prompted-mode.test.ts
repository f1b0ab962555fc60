import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { readJson } from '../../helpers/gateway.js';
import { readSse, type SseEvent } from '../../helpers/sse.js';
import { last, startWithStub, type LlmSetup } from './gateway-with-llm.js';
import { LOOKUP_ORDER, markupIn } from './family-replies.js';
import type { StubRequest } from './stub-llm.js';

/**
 * Prompted tool calling: a model whose template has no tool support (Ollama's /api/show lists no `tools`
 * capability), or a server that refuses `tools` (Ollama's 400 "does not support tools", llama.cpp's "tools param
 * requires --jinja flag"), gets its tools described in the system prompt; its <tool_call> text is read back as
 * calls, results go back as user messages. Through /chat and both proxies.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

let setup: LlmSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

const CALL = '<tool_call>\n{"name": "calculate", "arguments": {"expression": "6 * 7"}}\n</tool_call>';

/** A model answering in the declared prompted format: a call on the user's question, then the result in words. */
function promptedModel(request: StubRequest) {
  const content = String(last(request.messages).content ?? '');
  if (content.startsWith('<tool_response>')) {
    const result = /"result\\?":\s*(\d+)/.exec(content)?.[1];
    return { content: `It is ${result}.` };
  }
  return { content: CALL };
}

/** Every upstream request of prompted mode: no `tools`, the tools in the system prompt, no tool roles or fields. */
function expectPrompted(request: StubRequest, toolNames: string[]) {
  expect(request.body.tools).toBeUndefined();
  expect(request.body.tool_choice).toBeUndefined();
  const system = request.messages[0]!;
  expect(system.role).toBe('system');
  for (const name of toolNames) expect(String(system.content)).toContain(name);
  expect(String(system.content)).toContain('<tool_call>');
  expect(request.messages.some((m) => m.role === 'tool')).toBe(false);
  expect(request.messages.some((m) => m.tool_calls !== undefined)).toBe(false);
}

async function events(res: Response): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const e of readSse(res)) if ('event' in e) out.push(e);
  return out;
}

describe('a model without the tools capability (Ollama /api/show)', () => {
  it('is prompted from its first turn: tools in the system prompt, results as user messages, tool_mode "prompted"', async () => {
    setup = await startWithStub('ollama', promptedModel, { model: 'tiny-chat:1b' });
    setup.stub.setShow('tiny-chat:1b', { capabilities: ['completion'], architecture: 'gemma' });
    const res = await setup.tg.api('/chat', { method: 'POST', json: { message: 'What is 6 * 7?' } });
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(setup.stub.hits.get('/api/show')).toBeGreaterThanOrEqual(1);
    expect(body.tool_mode).toBe('prompted');
    expect(body.tool_mode_reason).toMatch(/tool support/);
    expect(body.answer).toBe('It is 42.');
    expect(body.steps).toHaveLength(1);
    expect(body.steps[0]).toMatchObject({ tool: 'calculate', status: 'succeeded', result: { result: 42 }, recovered: true });
    const record = await readJson(await setup.tg.asOwner(`/calls/${body.steps[0].call_id}`));
    expect(record).toMatchObject({ tool: 'calculate', recovered: true, status: 'succeeded' });

    expect(setup.stub.requests).toHaveLength(2);
    for (const request of setup.stub.requests) expectPrompted(request, ['calculate', 'get_time', 'text_process']);
    const second = setup.stub.requests[1]!.messages;
    // The call written back as the model wrote it; its result as the user's words.
    const assistant = second.find((m) => m.role === 'assistant')!;
    expect(String(assistant.content)).toContain('<tool_call>');
    expect(String(assistant.content)).toContain('"calculate"');
    const result = last(second);
    expect(result.role).toBe('user');
    expect(String(result.content)).toMatch(/^<tool_response>[\s\S]*<\/tool_response>$/);
    expect(String(result.content)).toContain('42');

    // The next turn of the conversation: still prompted, the earlier exchange written back as text.
    setup.stub.setScript(() => ({ content: 'Still 42.' }));
    const next = await readJson(await setup.tg.api('/chat', { method: 'POST', json: { message: 'Sure?', conversation_id: body.conversation_id } }));
    expect(next).toMatchObject({ answer: 'Still 42.', tool_mode: 'prompted' });
    const third = setup.stub.requests[2]!;
    expectPrompted(third, ['calculate']);
    expect(third.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
  });

  it('says so on the SSE stream (event "mode") and streams the answer without the markup', async () => {
    setup = await startWithStub('ollama', promptedModel, { model: 'tiny-chat:1b' });
    setup.stub.setShow('tiny-chat:1b', { capabilities: ['completion', 'vision'] });
    const res = await setup.tg.api('/chat', { method: 'POST', json: { message: 'What is 6 * 7?' }, headers: { accept: 'text/event-stream' } });
    const all = await events(res);
    const mode = all.find((e) => e.event === 'mode');
    expect(mode).toBeDefined();
    expect(JSON.parse(mode!.data)).toMatchObject({ mode: 'prompted' });
    expect(all.findIndex((e) => e.event === 'mode')).toBeLessThan(all.findIndex((e) => e.event === 'delta'));
    const deltas = all.filter((e) => e.event === 'delta').map((e) => JSON.parse(e.data).text).join('');
    expect(markupIn(deltas)).toEqual([]);
    expect(deltas).toBe('It is 42.');
    const done = JSON.parse(all.at(-1)!.data);
    expect(all.at(-1)!.event).toBe('done');
    expect(done.tool_mode).toBe('prompted');
  });

  it('keeps native tools for a model that has the capability', async () => {
    setup = await startWithStub('ollama', () => ({ content: 'Hi.' }));
    const body = await readJson(await setup.tg.api('/chat', { method: 'POST', json: { message: 'hi' } }));
    expect(body.tool_mode).toBe('native');
    expect(setup.stub.requests[0]!.tools.length).toBeGreaterThan(0);
  });
});

describe.each([
  ['ollama', 'does not support tools'],
  ['openai', 'tools param requires --jinja flag'],
] as const)('a server that refuses tools (%s: "%s")', (api, refusal) => {
  it('answers the same turn in prompted mode with no error, and the next turn goes prompted at once', async () => {
    setup = await startWithStub(api, promptedModel);
    setup.stub.refuseTools = true;
    const res = await setup.tg.api('/chat', { method: 'POST', json: { message: 'What is 6 * 7?' } });
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(setup.stub.refusals).toHaveLength(1);
    expect(setup.stub.refusals[0]!.tools.length).toBeGreaterThan(0);
    expect(body.answer).toBe('It is 42.');
    expect(body.tool_mode).toBe('prompted');
    expect(body.tool_mode_reason).toContain(refusal);
    expect(body.steps[0]).toMatchObject({ tool: 'calculate', status: 'succeeded', result: { result: 42 } });
    for (const request of setup.stub.requests) expectPrompted(request, ['calculate', 'get_time']);

    // Remembered: the next turn, streamed, asks without tools from the start; no second refusal, no error event.
    const streamed = await events(await setup.tg.api('/chat', { method: 'POST', json: { message: 'And again?' }, headers: { accept: 'text/event-stream' } }));
    expect(streamed.map((e) => e.event)).not.toContain('error');
    expect(setup.stub.refusals).toHaveLength(1);
    const done = JSON.parse(streamed.at(-1)!.data);
    expect(done).toMatchObject({ answer: 'It is 42.', tool_mode: 'prompted' });
    for (const request of setup.stub.requests) expectPrompted(request, ['calculate']);
  });

  it('answers a streamed first turn in prompted mode too, the switch told as a "mode" event', async () => {
    setup = await startWithStub(api, promptedModel);
    setup.stub.refuseTools = ['stub-model'];
    const all = await events(await setup.tg.api('/chat', { method: 'POST', json: { message: 'What is 6 * 7?' }, headers: { accept: 'text/event-stream' } }));
    expect(all.map((e) => e.event)).not.toContain('error');
    const mode = all.find((e) => e.event === 'mode');
    expect(JSON.parse(mode!.data)).toMatchObject({ mode: 'prompted' });
    expect(JSON.parse(mode!.data).reason).toContain(refusal);
    const done = JSON.parse(all.at(-1)!.data);
    expect(done).toMatchObject({ answer: 'It is 42.', tool_mode: 'prompted' });
    expect(all.filter((e) => e.event === 'delta').map((e) => JSON.parse(e.data).text).join('')).toBe('It is 42.');
  });
});

describe('prompted mode through the proxies', () => {
  it("OpenAI proxy: a model without tool support calls the client's tool in text; the client gets a real call and its result goes back as text", async () => {
    setup = await startWithStub('ollama', (request) => {
      const content = String(last(request.messages).content ?? '');
      if (content.startsWith('<tool_response>')) return { content: content.includes('shipped') ? 'Your order has shipped.' : 'No idea.' };
      return { content: 'Let me look.\n<tool_call>\n{"name": "lookup_order", "arguments": {"order_id": "A-1001"}}\n</tool_call>' };
    }, { model: 'tiny-chat:1b' });
    setup.stub.setShow('tiny-chat:1b', { capabilities: ['completion'] });
    const client = new OpenAI({ apiKey: setup.tg.token, baseURL: `${setup.tg.url}/v1`, maxRetries: 0 });
    const messages: Json[] = [
      { role: 'system', content: 'You are the shop assistant.' },
      { role: 'user', content: 'Where is order A-1001?' },
    ];
    const first = await client.chat.completions.create({ model: 'tiny-chat:1b', messages, tools: [LOOKUP_ORDER] });
    const message = first.choices[0]!.message as Json;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(message.tool_calls).toHaveLength(1);
    expect(message.tool_calls[0].function.name).toBe('lookup_order');
    expect(JSON.parse(message.tool_calls[0].function.arguments)).toEqual({ order_id: 'A-1001' });
    expect(message.content).toBe('Let me look.');
    expect((first as Json).pincer).toMatchObject({ tool_mode: 'prompted' });
    const upstream = setup.stub.requests[0]!;
    expectPrompted(upstream, ['lookup_order', 'calculate']);
    // The client's own system prompt is kept, the tools added to it.
    expect(String(upstream.messages[0]!.content)).toContain('You are the shop assistant.');

    const next = await client.chat.completions.create({
      model: 'tiny-chat:1b',
      tools: [LOOKUP_ORDER],
      messages: [...messages, message, { role: 'tool', tool_call_id: message.tool_calls[0].id, content: 'shipped' }],
    });
    expect(next.choices[0]!.message.content).toBe('Your order has shipped.');
    const followUp = setup.stub.requests[1]!;
    expectPrompted(followUp, ['lookup_order']);
    expect(String(last(followUp.messages).content)).toMatch(/^<tool_response>[\s\S]*shipped[\s\S]*<\/tool_response>$/);
    expect(followUp.messages.some((m) => m.role === 'assistant' && String(m.content).includes('"lookup_order"'))).toBe(true);
  });

  it("Ollama proxy: an Ollama server refusing tools; Pincer's call runs and the answer streams, and the next request goes prompted at once", async () => {
    setup = await startWithStub('ollama', promptedModel);
    setup.stub.refuseTools = true;
    const client = new Ollama({ host: setup.tg.url, headers: { Authorization: `Bearer ${setup.tg.token}` } });
    const whole = await client.chat({ model: 'stub-model', messages: [{ role: 'user', content: 'What is 6 * 7?' }], stream: false });
    expect(whole.message.content).toBe('It is 42.');
    expect((whole as Json).pincer).toMatchObject({ tool_mode: 'prompted', steps: [{ tool: 'calculate', status: 'succeeded' }] });
    expect((whole as Json).pincer.tool_mode_reason).toContain('does not support tools');
    expect(setup.stub.refusals).toHaveLength(1);

    let text = '';
    let meta: Json;
    for await (const part of await client.chat({ model: 'stub-model', messages: [{ role: 'user', content: 'What is 6 * 7?' }], stream: true })) {
      text += part.message.content;
      if (part.done) meta = (part as Json).pincer;
    }
    expect(text).toBe('It is 42.');
    expect(meta.tool_mode).toBe('prompted');
    expect(setup.stub.refusals).toHaveLength(1);
    for (const request of setup.stub.requests) expectPrompted(request, ['calculate']);
  });

  it('OpenAI proxy: a llama.cpp server without --jinja; the streamed turn succeeds with no error, tool options left out', async () => {
    setup = await startWithStub('openai', promptedModel);
    setup.stub.refuseTools = true;
    const client = new OpenAI({ apiKey: setup.tg.token, baseURL: `${setup.tg.url}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'stub-model',
      messages: [{ role: 'user', content: 'What is 6 * 7?' }],
      tools: [LOOKUP_ORDER],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      stream: true,
    });
    let text = '';
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish ??= chunk.choices[0]?.finish_reason;
    }
    expect(text).toBe('It is 42.');
    expect(finish).toBe('stop');
    expect(setup.stub.refusals).toHaveLength(1);
    expect(setup.stub.refusals[0]!.body.tool_choice).toBe('auto');
    for (const request of setup.stub.requests) {
      expectPrompted(request, ['calculate', 'lookup_order']);
      expect(request.body.parallel_tool_calls).toBeUndefined();
    }
    const again = await client.chat.completions.create({ model: 'stub-model', messages: [{ role: 'user', content: 'What is 6 * 7?' }] });
    expect(again.choices[0]!.message.content).toBe('It is 42.');
    expect((again as Json).pincer.tool_mode).toBe('prompted');
    expect(setup.stub.refusals).toHaveLength(1);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { readJson } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';
import { last, startWithStub, type LlmSetup } from './gateway-with-llm.js';
import { readSse, type SseEvent } from '../../helpers/sse.js';
import type { StubRequest } from './stub-llm.js';

/**
 * POST /chat through a real gateway against the stub LLM, in both wire formats: the tool loop, the pipeline behind
 * every call, approvals in the middle of a turn, conversations kept, retries and the errors a person can act on.
 */

let setup: LlmSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** A model that calls `calls` on the user's message, then answers with what the tools said. */
function callThenAnswer(calls: { name: string; arguments?: Record<string, unknown>; rawArguments?: string }[]) {
  return (request: StubRequest) => {
    if (last(request.messages).role === 'user') return { content: 'Let me check. ', tool_calls: calls };
    const results = request.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    return { content: `Done: ${results.join(' | ')}` };
  };
}

async function chat(s: LlmSetup, body: Json, headers: Record<string, string> = {}): Promise<Response> {
  return s.tg.api('/chat', { method: 'POST', json: body, headers });
}

async function collect(res: Response): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const e of readSse(res)) if ('event' in e) events.push(e);
  return events;
}

describe.each(['ollama', 'openai'] as const)('POST /chat with an %s server', (api) => {
  it('runs parallel tool calls concurrently through the pipeline, feeds the results back and answers', async () => {
    setup = await startWithStub(
      api,
      callThenAnswer([
        { name: 'rendezvous', arguments: { party: 'a' } },
        { name: 'rendezvous', arguments: { party: 'b' } },
        { name: 'calculate', arguments: { expression: '6*7' } },
      ]),
    );
    const res = await chat(setup, { message: 'Meet twice and compute 6*7.' });
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body.conversation_id).toMatch(/^cv_/);
    expect(body.model).toBe('stub-model');
    expect(body.steps.map((s: Json) => s.tool).sort()).toEqual(['calculate', 'rendezvous', 'rendezvous']);
    expect(body.steps.every((s: Json) => s.status === 'succeeded')).toBe(true);
    expect(body.steps.find((s: Json) => s.tool === 'calculate').result).toEqual({ expression: '6*7', result: 42 });
    // Each round's text is a paragraph of its own.
    expect(body.answer).toMatch(/Let me check\.\s*\n\nDone:/);
    expect(body.answer).toContain('"result":42');
    expect(body.answer).toContain('"met":true');
    expect(body.timings.model_calls).toBe(2);

    // The second request carried the results in this API's own shape.
    const second = setup.stub.requests[1]!;
    const assistant = second.messages.find((m) => m.role === 'assistant')! as Json;
    const tools = second.messages.filter((m) => m.role === 'tool');
    expect(tools).toHaveLength(3);
    if (api === 'ollama') {
      expect(typeof assistant.tool_calls[0].function.arguments).toBe('object');
      expect(tools.map((t) => t.tool_name).sort()).toEqual(['calculate', 'rendezvous', 'rendezvous']);
    } else {
      expect(typeof assistant.tool_calls[0].function.arguments).toBe('string');
      expect(tools.map((t) => t.tool_call_id)).toEqual(assistant.tool_calls.map((c: Json) => c.id));
    }
    // Pincer's tools were offered, and every call is in the history as the token's client, via the bridge.
    expect(setup.stub.requests[0]!.tools.map((t) => t.function.name)).toEqual(expect.arrayContaining(['calculate', 'rendezvous', 'file_read']));
    const calls = await readJson(await setup.tg.api('/calls?tool=calculate'));
    expect(calls.calls[0]).toMatchObject({ tool: 'calculate', client: 'default', via: 'llm:stub-model', status: 'succeeded' });
  });

  it('streams start, delta, step and done events, and keeps the conversation for the next turn', async () => {
    setup = await startWithStub(api, callThenAnswer([{ name: 'calculate', arguments: { expression: '2+3' } }]));
    const res = await chat(setup, { message: 'What is 2+3?' }, { accept: 'text/event-stream' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = await collect(res);
    const names = events.map((e) => e.event);
    expect(names[0]).toBe('start');
    expect(names.at(-1)).toBe('done');
    expect(names).toContain('delta');
    expect(names).toContain('step');
    const deltas = events.filter((e) => e.event === 'delta').map((e) => JSON.parse(e.data).text).join('');
    const done = JSON.parse(events.at(-1)!.data);
    expect(deltas).toBe(done.answer);
    // Each step carries the arguments line its call's live row shows, in the event, the answer and the kept turn.
    expect(JSON.parse(events.find((e) => e.event === 'step')!.data)).toMatchObject({ tool: 'calculate', preview: '2+3', status: 'succeeded', result: { result: 5 } });
    expect(done.steps[0]).toMatchObject({ tool: 'calculate', preview: '2+3' });

    // The next turn continues the conversation: the model sees the whole exchange so far.
    setup.stub.setScript(() => ({ content: 'Still 5.' }));
    const next = await readJson(await chat(setup, { message: 'And again?', conversation_id: done.conversation_id }));
    expect(next.answer).toBe('Still 5.');
    const seen = setup.stub.requests.at(-1)!.messages.map((m) => m.role);
    expect(seen).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);

    const list = await readJson(await setup.tg.api('/chat/conversations'));
    expect(list.conversations).toHaveLength(1);
    expect(list.conversations[0]).toMatchObject({ id: done.conversation_id, title: 'What is 2+3?', model: 'stub-model', client: 'default', messages: 6 });
    const one = await readJson(await setup.tg.api(`/chat/conversations/${done.conversation_id}`));
    expect(one.messages.map((m: Json) => m.message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
    expect(one.messages[3].meta.steps[0]).toMatchObject({ tool: 'calculate', preview: '2+3', status: 'succeeded' });
    expect((await setup.tg.api(`/chat/conversations/${done.conversation_id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await setup.tg.api(`/chat/conversations/${done.conversation_id}`)).status).toBe(404);
  });

  it('sends a malformed or invalid call back to the model as its result, and the loop still ends with an answer', async () => {
    setup = await startWithStub(
      api,
      callThenAnswer(
        api === 'openai'
          ? // Beyond repair: arguments that are a list, not an object (a cut-off object would be mended).
            [{ name: 'calculate', rawArguments: '["1+1"]' }]
          : [{ name: 'calculate', arguments: { expression: 12 } }],
      ),
    );
    const body = await readJson(await chat(setup, { message: 'Compute.' }));
    expect(body.steps).toHaveLength(1);
    expect(body.steps[0]).toMatchObject({ tool: 'calculate', status: 'failed', error: { name: 'INVALID_ARGUMENTS' } });
    expect(body.answer).toContain('INVALID_ARGUMENTS');
    // What the model got back was accepted by the server (no 400 for the shape of the exchange).
    expect(setup.stub.requests).toHaveLength(2);
  });
});

describe('POST /chat: approvals, limits and errors', () => {
  it('pauses on a dangerous call until the owner allows it, then runs it and goes on', async () => {
    setup = await startWithStub('ollama', callThenAnswer([{ name: 'launch', arguments: { target: 'moon' } }]));
    const res = await chat(setup, { message: 'Launch.' }, { accept: 'text/event-stream' });
    const events: SseEvent[] = [];
    for await (const e of readSse(res)) {
      if (!('event' in e)) continue;
      events.push(e);
      if (e.event === 'waiting') {
        const waiting = JSON.parse(e.data);
        expect(waiting).toMatchObject({ tool: 'launch' });
        expect(setup.launches.count).toBe(0);
        const decided = await setup.tg.asOwner(`/approvals/${waiting.approval_id}`, { json: { decision: 'allow_once' } });
        expect(decided.status).toBe(200);
      }
    }
    expect(events.map((e) => e.event)).toContain('waiting');
    const done = JSON.parse(events.at(-1)!.data);
    expect(events.at(-1)!.event).toBe('done');
    expect(setup.launches.count).toBe(1);
    expect(done.steps[0]).toMatchObject({ tool: 'launch', status: 'succeeded', result: { launched: 'moon' } });
  });

  it("reports a denial to the model with the owner's message, and the loop ends with an answer", async () => {
    setup = await startWithStub('openai', callThenAnswer([{ name: 'launch', arguments: { target: 'mars' } }]));
    const pending = chat(setup, { message: 'Launch to mars.' });
    const approval = await until(async () => (await readJson(await setup!.tg.asOwner('/approvals'))).approvals[0], 'the approval');
    await setup.tg.asOwner(`/approvals/${approval.id}`, { json: { decision: 'deny', message: 'not today' } });
    const body = await readJson(await pending);
    expect(setup.launches.count).toBe(0);
    expect(body.steps[0]).toMatchObject({ tool: 'launch', status: 'denied', error: { name: 'APPROVAL_DENIED' } });
    expect(body.steps[0].error.message).toContain('not today');
    expect(body.answer).toContain('not today');
  });

  it.each(['sameIndex', 'noIndex'] as const)('puts parallel calls back together when a server streams them with %s', async (quirk) => {
    setup = await startWithStub(
      'openai',
      callThenAnswer([
        { name: 'calculate', arguments: { expression: '1+2' } },
        { name: 'calculate', arguments: { expression: '3+4' } },
      ]),
    );
    setup.stub[quirk] = true;
    const body = await readJson(await chat(setup, { message: 'Two sums.' }, { accept: 'text/event-stream' }).then(async (res) => {
      const events: SseEvent[] = [];
      for await (const e of readSse(res)) if ('event' in e) events.push(e);
      return new Response(events.at(-1)!.data);
    }));
    expect(body.steps.map((s: Json) => s.result?.result).sort()).toEqual([3, 7]);
  });

  it('stops at the step limit when the model keeps calling tools', async () => {
    setup = await startWithStub('ollama', () => ({ tool_calls: [{ name: 'calculate', arguments: { expression: '1+1' } }] }), { maxSteps: 3 });
    const body = await readJson(await chat(setup, { message: 'Loop.' }));
    expect(body.stopped_at_step_limit).toBe(true);
    expect(body.steps).toHaveLength(3);
    expect(setup.stub.requests).toHaveLength(4);
  });

  it('retries 5xx and 429 with backoff, but never a 4xx', async () => {
    setup = await startWithStub('ollama', () => ({ content: 'ok' }));
    setup.stub.failNext(2, 503);
    expect((await readJson(await chat(setup, { message: 'hi' }))).answer).toBe('ok');
    expect(setup.stub.hits.get('/api/chat')).toBe(3);

    setup.stub.failNext(1, 429);
    expect((await readJson(await chat(setup, { message: 'hi' }))).answer).toBe('ok');
    expect(setup.stub.hits.get('/api/chat')).toBe(5);

    setup.stub.failNext(1, 400);
    const refused = await chat(setup, { message: 'hi' });
    expect(refused.status).toBe(400);
    expect((await readJson(refused)).error).toMatchObject({ name: 'LLM_ERROR' });
    expect(setup.stub.hits.get('/api/chat')).toBe(6);
  });

  it('says how to fix a missing model or a server that is not running', async () => {
    setup = await startWithStub('ollama', () => ({ content: 'ok' }));
    const missing = await chat(setup, { message: 'hi', model: 'qwen9:1b' });
    expect(missing.status).toBe(404);
    const body = await readJson(missing);
    expect(body.error.name).toBe('LLM_MODEL_NOT_FOUND');
    expect(body.error.message).toContain('ollama pull qwen9:1b');

    await setup.stub.close();
    const down = await chat(setup, { message: 'hi' });
    expect(down.status).toBe(502);
    const error = (await readJson(down)).error;
    expect(error.name).toBe('LLM_UNAVAILABLE');
    expect(error.message).toContain('ollama serve');
    setup.stub.close = async () => {};
  });

  it('uses the first model the server lists when none is set', async () => {
    setup = await startWithStub('openai', () => ({ content: 'ok' }), { model: null });
    const body = await readJson(await chat(setup, { message: 'hi' }));
    expect(body.model).toBe('stub-model');
    const models = await readJson(await setup.tg.api('/chat/models'));
    expect(models.models.map((m: Json) => m.id)).toEqual(['stub-model', 'llama3.1:8b']);
  });

  it("offers a named client only its own tools, and keeps each client's conversations to itself", async () => {
    setup = await startWithStub('ollama', () => ({ content: 'ok' }));
    const created = await readJson(await setup.tg.asOwner('/clients', { json: { name: 'narrow' } }));
    await setup.tg.asOwner('/clients/narrow/tools', { method: 'PUT', json: { tools: ['calculate'] } });
    const headers = { authorization: `Bearer ${created.token}` };
    const mine = await readJson(await setup.tg.api('/chat', { method: 'POST', json: { message: 'hi' }, headers }));
    expect(setup.stub.requests.at(-1)!.tools.map((t) => t.function.name)).toEqual(['calculate']);
    const other = await readJson(await chat(setup, { message: 'hello' }));
    expect((await setup.tg.api(`/chat/conversations/${other.conversation_id}`, { headers })).status).toBe(404);
    const own = await readJson(await setup.tg.api('/chat/conversations', { headers }));
    expect(own.conversations.map((c: Json) => c.id)).toEqual([mine.conversation_id]);
  });

  it('refuses a request without a message', async () => {
    setup = await startWithStub('ollama');
    const res = await chat(setup, { text: 'hi' });
    expect(res.status).toBe(400);
    expect(setup.stub.requests).toHaveLength(0);
  });
});

import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { readJson } from '../../helpers/gateway.js';
import { last, startWithStub, type LlmSetup } from './gateway-with-llm.js';
import { LOOKUP_ORDER } from './family-replies.js';
import type { StubCall, StubReply, StubRequest } from './stub-llm.js';

/**
 * Call ids across mixed turns: an answer calling Pincer's tool and the client's own in one go is split (Pincer's
 * call runs here, the client's comes back to it) and put back together on the client's next request. An upstream
 * that sends no ids (Ollama's native API), or numbers them by position, must never make one turn's or one
 * conversation's part land in another: every follow-up request is rebuilt with its own call and its own result.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

let setup: LlmSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** What the model does on each user message: a mixed answer, Pincer's calculate beside the client's lookup_order. */
const PLAN: Record<string, { expression: string; order: string }> = {
  'Turn 1': { expression: '1+1', order: 'A-1' },
  'Turn 2': { expression: '100+100', order: 'B-2' },
  'Other 1': { expression: '3+3', order: 'C-3' },
  'Other 2': { expression: '40+2', order: 'D-4' },
};
const RESULT: Record<string, number> = { '1+1': 2, '100+100': 200, '3+3': 6, '40+2': 42 };

/**
 * The stub model: a mixed answer to a planned user message (ids as `ids` says: none, or numbered by position like
 * some servers do), and once the client's result is in, a plain answer.
 */
function mixedModel(ids: 'none' | 'by-position', asText = false) {
  return (request: StubRequest): StubReply => {
    const lastMessage = last(request.messages);
    if (lastMessage.role === 'user') {
      const plan = PLAN[String(lastMessage.content)];
      if (!plan) return { content: 'ok' };
      if (asText) {
        return {
          content:
            `<tool_call>\n{"name": "calculate", "arguments": {"expression": "${plan.expression}"}}\n</tool_call>\n` +
            `<tool_call>\n{"name": "lookup_order", "arguments": {"order_id": "${plan.order}"}}\n</tool_call>`,
        };
      }
      const calls: StubCall[] = [
        { name: 'calculate', arguments: { expression: plan.expression } },
        { name: 'lookup_order', arguments: { order_id: plan.order } },
      ];
      return { tool_calls: ids === 'none' ? calls : calls.map((c, i) => ({ ...c, id: `call_${i}` })) };
    }
    return { content: 'Noted.' };
  };
}

/**
 * Checks a request as the upstream got it: every call has exactly one result right after its assistant message,
 * ids are unique, each calculate's result is its own expression's, each lookup_order's result names its order.
 * Returns the calculate expressions in order.
 */
function checkRebuilt(request: StubRequest): string[] {
  const messages = request.messages as Json[];
  const ids = new Set<string>();
  const expressions: string[] = [];
  messages.forEach((message, i) => {
    if (message.role !== 'assistant' || !message.tool_calls?.length) return;
    const results: Json[] = [];
    for (let j = i + 1; j < messages.length && messages[j].role === 'tool'; j++) results.push(messages[j]);
    expect(results, 'one result per call, right after the calls').toHaveLength(message.tool_calls.length);
    for (const call of message.tool_calls) {
      const name = call.function.name;
      const args = typeof call.function.arguments === 'string' ? JSON.parse(call.function.arguments) : call.function.arguments;
      expect(call.id, 'every call has an id').toBeTruthy();
      expect(ids.has(call.id), `id ${call.id} used twice`).toBe(false);
      ids.add(call.id);
      const result = results.filter((r) => r.tool_call_id === call.id);
      expect(result, `the result of ${name} ${JSON.stringify(args)}`).toHaveLength(1);
      if (name === 'calculate') {
        const envelope = JSON.parse(result[0].content);
        expect(envelope.result).toEqual({ expression: args.expression, result: RESULT[args.expression] });
        expressions.push(args.expression);
      } else {
        expect(result[0].content).toBe(`order ${args.order_id}: shipped`);
      }
    }
  });
  return expressions;
}

function client(s: LlmSetup): OpenAI {
  return new OpenAI({ apiKey: s.tg.token, baseURL: `${s.tg.url}/v1`, maxRetries: 0 });
}

/** One mixed turn of the OpenAI proxy: the client's own call comes back; answers the assistant message and its call. */
async function mixedTurn(c: OpenAI, history: Json[], userText: string, stream: boolean): Promise<{ message: Json; call: Json }> {
  const params = { model: 'stub-model', tools: [LOOKUP_ORDER], messages: [...history, { role: 'user', content: userText }] };
  const message: Json = stream ? (await c.chat.completions.stream(params).finalChatCompletion()).choices[0]!.message : (await c.chat.completions.create(params)).choices[0]!.message;
  expect(message.tool_calls, 'only the client call comes back').toHaveLength(1);
  const call = message.tool_calls[0];
  expect(call.function.name).toBe('lookup_order');
  expect(JSON.parse(call.function.arguments)).toEqual({ order_id: PLAN[userText]!.order });
  return { message, call };
}

function resultFor(call: Json): Json {
  return { role: 'tool', tool_call_id: call.id, content: `order ${JSON.parse(call.function.arguments).order_id}: shipped` };
}

describe.each([
  ['an Ollama upstream (no ids)', 'ollama', 'none', false],
  ['an Ollama upstream, the calls written as text', 'ollama', 'none', true],
  ['an OpenAI upstream numbering ids by position', 'openai', 'by-position', false],
] as const)('mixed turns of the OpenAI proxy with %s', (_title, api, ids, asText) => {
  it.each([false, true])('two turns of one conversation and two conversations never restore the wrong call (stream: %s)', async (stream) => {
    setup = await startWithStub(api, mixedModel(ids, asText));
    const s = setup;
    const c = client(s);

    // Conversation X, turn 1; conversation Y, turn 1, interleaved before either follow-up.
    const x1 = await mixedTurn(c, [], 'Turn 1', stream);
    const y1 = await mixedTurn(c, [], 'Other 1', stream);
    expect(x1.call.id).not.toBe(y1.call.id);
    const xHistory: Json[] = [{ role: 'user', content: 'Turn 1' }, x1.message, resultFor(x1.call)];
    const yHistory: Json[] = [{ role: 'user', content: 'Other 1' }, y1.message, resultFor(y1.call)];

    // Y's follow-up first: rebuilt with Y's own calculate and result, nothing of X.
    await c.chat.completions.create({ model: 'stub-model', tools: [LOOKUP_ORDER], messages: yHistory });
    expect(checkRebuilt(s.stub.requests.at(-1)!)).toEqual(['3+3']);

    await c.chat.completions.create({ model: 'stub-model', tools: [LOOKUP_ORDER], messages: xHistory });
    expect(checkRebuilt(s.stub.requests.at(-1)!)).toEqual(['1+1']);
    xHistory.push({ role: 'assistant', content: 'Noted.' });
    yHistory.push({ role: 'assistant', content: 'Noted.' });

    // Turn 2 of each: the model sees turn 1 whole; then the follow-ups hold both turns, each with its own part.
    const x2 = await mixedTurn(c, xHistory, 'Turn 2', stream);
    expect(checkRebuilt(s.stub.requests.at(-1)!)).toEqual(['1+1']);
    const y2 = await mixedTurn(c, yHistory, 'Other 2', stream);
    expect(checkRebuilt(s.stub.requests.at(-1)!)).toEqual(['3+3']);
    expect(new Set([x1.call.id, x2.call.id, y1.call.id, y2.call.id]).size).toBe(4);

    await c.chat.completions.create({ model: 'stub-model', tools: [LOOKUP_ORDER], messages: [...xHistory, { role: 'user', content: 'Turn 2' }, x2.message, resultFor(x2.call)] });
    expect(checkRebuilt(s.stub.requests.at(-1)!)).toEqual(['1+1', '100+100']);
    await c.chat.completions.create({ model: 'stub-model', tools: [LOOKUP_ORDER], messages: [...yHistory, { role: 'user', content: 'Other 2' }, y2.message, resultFor(y2.call)] });
    expect(checkRebuilt(s.stub.requests.at(-1)!)).toEqual(['3+3', '40+2']);

    // Pincer's calls ran once each, never again on a follow-up.
    const calls = await readJson(await s.tg.api('/calls?tool=calculate'));
    expect(calls.calls.map((x: Json) => x.arguments.expression).sort()).toEqual(['1+1', '100+100', '3+3', '40+2']);
  });

  it("keeps two clients' mixed turns apart even when the client call ids they send back are the same", async () => {
    setup = await startWithStub(api, mixedModel(ids, asText));
    const s = setup;
    const other = await readJson(await s.tg.asOwner('/clients', { json: { name: 'second-app' } }));
    const a = client(s);
    const b = new OpenAI({ apiKey: other.token, baseURL: `${s.tg.url}/v1`, maxRetries: 0 });
    const ax = await mixedTurn(a, [], 'Turn 1', false);
    const bx = await mixedTurn(b, [], 'Other 1', false);
    // Client B replays its turn under client A's call id (a client that renumbers ids itself would do this).
    const forged = { ...bx.message, tool_calls: [{ ...bx.call, id: ax.call.id }] };
    await b.chat.completions.create({ model: 'stub-model', tools: [LOOKUP_ORDER], messages: [{ role: 'user', content: 'Other 1' }, forged, resultFor({ ...bx.call, id: ax.call.id })] });
    const rebuilt = checkRebuilt(s.stub.requests.at(-1)!);
    expect(rebuilt).not.toContain('1+1');
  });
});

describe('results named only by tool_name (the Ollama proxy)', () => {
  it('gives each of two results of the same client tool to its own call, in order', async () => {
    setup = await startWithStub('openai', (request) => {
      if (last(request.messages).role === 'user') {
        return { tool_calls: [{ name: 'lookup_order', arguments: { order_id: 'A-1' } }, { name: 'lookup_order', arguments: { order_id: 'B-2' } }] };
      }
      return { content: 'Both found.' };
    });
    const ollama = new Ollama({ host: setup.tg.url, headers: { Authorization: `Bearer ${setup.tg.token}` } });
    const first = await ollama.chat({ model: 'stub-model', tools: [LOOKUP_ORDER], stream: false, messages: [{ role: 'user', content: 'Find A-1 and B-2.' }] });
    expect(first.message.tool_calls!.map((t) => t.function.arguments)).toEqual([{ order_id: 'A-1' }, { order_id: 'B-2' }]);
    // As Ollama's docs show it: the results follow the calls in order, named by tool_name only.
    const next = await ollama
      .chat({
        model: 'stub-model',
        tools: [LOOKUP_ORDER],
        stream: false,
        messages: [
          { role: 'user', content: 'Find A-1 and B-2.' },
          first.message,
          { role: 'tool', tool_name: 'lookup_order', content: 'order A-1: shipped' },
          { role: 'tool', tool_name: 'lookup_order', content: 'order B-2: shipped' },
        ] as Json,
      })
      .catch((e: Error) => e);
    expect(next instanceof Error ? `${(next as Json).status_code}: ${JSON.stringify((next as Json).error)}` : '').toBe('');
    expect((next as Json).message.content).toBe('Both found.');
    checkRebuilt(setup.stub.requests.at(-1)!);
  });

  it('keeps an Ollama client\'s conversation valid when the client drops the call ids it was given', async () => {
    setup = await startWithStub('openai', mixedModel('by-position'));
    const ollama = new Ollama({ host: setup.tg.url, headers: { Authorization: `Bearer ${setup.tg.token}` } });
    const first = await ollama.chat({ model: 'stub-model', tools: [LOOKUP_ORDER], stream: false, messages: [{ role: 'user', content: 'Turn 1' }] });
    expect(first.message.tool_calls!.map((t) => t.function.name)).toEqual(['lookup_order']);
    const withoutIds = { ...first.message, tool_calls: first.message.tool_calls!.map((t) => ({ function: t.function })) };
    const next = await ollama
      .chat({
        model: 'stub-model',
        tools: [LOOKUP_ORDER],
        stream: false,
        messages: [{ role: 'user', content: 'Turn 1' }, withoutIds, { role: 'tool', tool_name: 'lookup_order', content: 'order A-1: shipped' }] as Json,
      })
      .catch((e: Error) => e);
    expect(next instanceof Error ? `${(next as Json).status_code}: ${JSON.stringify((next as Json).error)}` : '').toBe('');
    // Whatever was restored is this turn's own.
    expect(checkRebuilt(setup.stub.requests.at(-1)!).every((e) => e === '1+1')).toBe(true);
  });
});

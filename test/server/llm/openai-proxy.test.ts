import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { readJson } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';
import { last, startWithStub, type LlmSetup } from './gateway-with-llm.js';
import { readSse } from '../../helpers/sse.js';
import type { StubRequest } from './stub-llm.js';

/**
 * The OpenAI-compatible proxy with the official `openai` SDK as its client, against the stub model speaking either
 * API upstream: Pincer's tools run server-side, the client's own calls come back to it, and the SDK accepts every
 * answer, streamed or not.
 */

let setup: LlmSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

function sdk(s: LlmSetup, apiKey = s.tg.token): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${s.tg.url}/v1`, maxRetries: 0 });
}

const WEATHER_TOOL = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'The client app answers this one.', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

/** Calls calculate on the user's message, then answers with the tool's result. */
function calculateThenAnswer(request: StubRequest) {
  if (last(request.messages).role === 'user') return { tool_calls: [{ name: 'calculate', arguments: { expression: '6*7' } }] };
  const tool = request.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(String(m.content)));
  return { content: `The answer is ${tool[0]?.result?.result}.` };
}

describe.each(['openai', 'ollama'] as const)('POST /v1/chat/completions to an %s upstream', (api) => {
  it('answers a plain turn in the shape the SDK parses, streamed and not', async () => {
    setup = await startWithStub(api, () => ({ content: 'Hello there.' }));
    const client = sdk(setup);
    const completion = await client.chat.completions.create({ model: 'stub-model', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]!.message).toMatchObject({ role: 'assistant', content: 'Hello there.' });
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);

    const stream = await client.chat.completions.create({ model: 'stub-model', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let finish: string | null | undefined;
    let usage: Json;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish ??= chunk.choices[0]?.finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Hello there.');
    expect(finish).toBe('stop');
    expect(usage.total_tokens).toBeGreaterThan(0);

    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['stub-model', 'llama3.1:8b']);
  });

  it("runs Pincer's tools server-side and returns the final answer", async () => {
    setup = await startWithStub(api, calculateThenAnswer);
    const client = sdk(setup);
    const completion = await client.chat.completions.create({ model: 'stub-model', messages: [{ role: 'user', content: 'What is 6*7?' }] });
    expect(completion.choices[0]!.message.content).toBe('The answer is 42.');
    expect(completion.choices[0]!.message.tool_calls).toBeUndefined();
    const calls = await readJson(await setup.tg.api('/calls?tool=calculate'));
    expect(calls.calls[0]).toMatchObject({ client: 'default', via: 'openai-proxy:stub-model', status: 'succeeded' });

    // The SDK's own stream helper puts the streamed answer together too.
    const runner = client.chat.completions.stream({ model: 'stub-model', messages: [{ role: 'user', content: 'What is 6*7?' }] });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe('The answer is 42.');
  });

  it('forces a tool only for the first answer when the client sets tool_choice', async () => {
    setup = await startWithStub(api, (request) =>
      request.body.tool_choice ? { tool_calls: [{ name: 'calculate', arguments: { expression: '2*21' } }] } : { content: 'Forty-two.' },
    );
    const completion = await sdk(setup).chat.completions.create({
      model: 'stub-model',
      messages: [{ role: 'user', content: 'Compute.' }],
      tool_choice: { type: 'function', function: { name: 'calculate' } },
    });
    expect(completion.choices[0]!.message.content).toBe('Forty-two.');
    // Ollama's API has no tool_choice: it is not passed there at all.
    expect(setup.stub.requests).toHaveLength(api === 'openai' ? 2 : 1);
  });

  it("hands the client's own tool calls back to it, with Pincer's tools offered beside them", async () => {
    setup = await startWithStub(api, (request) =>
      last(request.messages).role === 'user' ? { tool_calls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] } : { content: `Weather: ${String(last(request.messages).content)}` },
    );
    const client = sdk(setup);
    for (const stream of [false, true]) {
      const params = { model: 'stub-model', messages: [{ role: 'user' as const, content: 'Weather in Oslo?' }], tools: [WEATHER_TOOL] };
      const message = stream
        ? (await client.chat.completions.stream(params).finalChatCompletion()).choices[0]!.message
        : (await client.chat.completions.create(params)).choices[0]!.message;
      expect(message.tool_calls).toHaveLength(1);
      const call = message.tool_calls![0]! as Json;
      expect(call.function.name).toBe('get_weather');
      expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Oslo' });
      const offered = setup.stub.requests.at(-1)!.tools.map((t) => t.function.name);
      expect(offered).toEqual(expect.arrayContaining(['get_weather', 'calculate']));

      const next = await client.chat.completions.create({
        model: 'stub-model',
        tools: [WEATHER_TOOL],
        messages: [...params.messages, message as Json, { role: 'tool', tool_call_id: call.id, content: 'sunny' }],
      });
      expect(next.choices[0]!.message.content).toBe('Weather: sunny');
    }
  });

  it("keeps a mixed turn (Pincer's call and the client's) a valid conversation on the next request", async () => {
    setup = await startWithStub(api, (request) => {
      if (last(request.messages).role === 'user') {
        return {
          content: 'Both. ',
          tool_calls: [
            { name: 'calculate', arguments: { expression: '1+1' } },
            { name: 'get_weather', arguments: { city: 'Rome' } },
          ],
        };
      }
      const results = request.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
      return { content: `Seen ${results.length} results: ${results.join(' / ')}` };
    });
    const client = sdk(setup);
    const first = await client.chat.completions.create({ model: 'stub-model', tools: [WEATHER_TOOL], messages: [{ role: 'user', content: 'Go.' }] });
    const message = first.choices[0]!.message;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    // Only the client's own call comes back; Pincer's already ran.
    expect(message.tool_calls!.map((c: Json) => c.function.name)).toEqual(['get_weather']);
    expect((await readJson(await setup.tg.api('/calls?tool=calculate'))).calls).toHaveLength(1);

    const next = await client.chat.completions.create({
      model: 'stub-model',
      tools: [WEATHER_TOOL],
      messages: [{ role: 'user', content: 'Go.' }, message as Json, { role: 'tool', tool_call_id: message.tool_calls![0]!.id, content: 'rainy' }],
    });
    // Upstream saw the whole turn again: Pincer's call and result put back beside the client's.
    expect(next.choices[0]!.message.content).toContain('Seen 2 results');
    expect(next.choices[0]!.message.content).toContain('rainy');
    expect(next.choices[0]!.message.content).toContain('"result":2');
    const upstream = setup.stub.requests.at(-1)!.messages;
    expect(upstream.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
  });
});

describe('OpenAI-compatible proxy: approvals, hang-ups and auth', () => {
  it('keeps a streamed answer alive with comment lines while the owner decides, and nothing of it reaches the text', async () => {
    setup = await startWithStub('openai', (request) =>
      last(request.messages).role === 'user' ? { tool_calls: [{ name: 'launch', arguments: { target: 'moon' } }] } : { content: 'Launched.' },
    );
    const res = await setup.tg.api('/v1/chat/completions', { method: 'POST', json: { model: 'stub-model', stream: true, messages: [{ role: 'user', content: 'go' }] } });
    let text = '';
    const comments: string[] = [];
    let sawDone = false;
    for await (const e of readSse(res)) {
      if ('comment' in e) {
        comments.push(e.comment);
        if (e.comment.includes('approval')) {
          const approval = await until(async () => (await readJson(await setup!.tg.asOwner('/approvals'))).approvals[0], 'the approval');
          await setup.tg.asOwner(`/approvals/${approval.id}`, { json: { decision: 'allow_once' } });
        }
        continue;
      }
      if (e.data === '[DONE]') {
        sawDone = true;
        continue;
      }
      text += JSON.parse(e.data).choices[0]?.delta?.content ?? '';
    }
    expect(comments.some((c) => c.includes('waits for the owner'))).toBe(true);
    expect(sawDone).toBe(true);
    expect(text).toBe('Launched.');
    expect(setup.launches.count).toBe(1);
  });

  it('withdraws the approvals of a turn whose client hung up', async () => {
    setup = await startWithStub('openai', (request) =>
      last(request.messages).role === 'user' ? { tool_calls: [{ name: 'launch', arguments: { target: 'moon' } }] } : { content: 'Launched.' },
    );
    const controller = new AbortController();
    const client = new OpenAI({ apiKey: setup.tg.token, baseURL: `${setup.tg.url}/v1`, maxRetries: 0 });
    const pending = client.chat.completions.create({ model: 'stub-model', messages: [{ role: 'user', content: 'go' }] }, { signal: controller.signal }).catch((e: unknown) => e);
    await until(async () => (await readJson(await setup!.tg.asOwner('/approvals'))).approvals.length === 1, 'the approval');
    controller.abort();
    await pending;
    await until(async () => (await readJson(await setup!.tg.asOwner('/approvals'))).approvals.length === 0, 'the approval to be withdrawn');
    const calls = await until(async () => (await readJson(await setup!.tg.api('/calls?tool=launch'))).calls.find((c: Json) => c.status === 'cancelled'), 'the cancelled call');
    expect(calls.error.name).toBe('CALL_CANCELLED');
    expect(setup.launches.count).toBe(0);
  });

  it('stops the upstream request when the client hangs up', async () => {
    let release!: () => void;
    setup = await startWithStub('openai', () => ({ content: 'late', hold: new Promise<void>((resolve) => (release = resolve)) }));
    const controller = new AbortController();
    const pending = sdk(setup).chat.completions.create({ model: 'stub-model', messages: [{ role: 'user', content: 'hi' }] }, { signal: controller.signal }).catch((e: unknown) => e);
    await until(() => setup!.stub.requests.length === 1, 'the upstream request');
    controller.abort();
    await pending;
    // The gateway aborted its request upstream: the stub sees its client gone when it answers.
    await until(() => setup!.stub.abandoned === 1, 'the upstream request to be abandoned');
    release();
  });

  it('refuses a request without a token, and the SDK reports it', async () => {
    setup = await startWithStub('openai');
    const error = (await sdk(setup, 'wrong-token-wrong-token').chat.completions.create({ model: 'stub-model', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)) as Json;
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(setup.stub.requests).toHaveLength(0);
  });

  it('reports an upstream failure as an error the SDK raises, streamed or not', async () => {
    setup = await startWithStub('openai', () => ({ error: { status: 400, message: 'context length exceeded' } }));
    const client = sdk(setup);
    const plain = (await client.chat.completions.create({ model: 'stub-model', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)) as Json;
    expect(plain).toBeInstanceOf(OpenAI.BadRequestError);
    expect(plain.message).toContain('context length exceeded');
    const streamed = await (async () => {
      const stream = await client.chat.completions.create({ model: 'stub-model', messages: [{ role: 'user', content: 'hi' }], stream: true });
      for await (const _ of stream) void _;
    })().catch((e: unknown) => e);
    expect(streamed).toBeInstanceOf(OpenAI.APIError);
    expect((streamed as Error).message).toContain('context length exceeded');
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { readJson } from '../../helpers/gateway.js';
import { last, startWithStub, type LlmSetup } from './gateway-with-llm.js';
import type { StubReply, StubRequest } from './stub-llm.js';

/**
 * A small model stuck in a loop calls the same tool with the same arguments again and again: in one turn the same
 * call runs at most three times; a later identical call is answered with the first result again and a note, and
 * does not run.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

let setup: LlmSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** The tool results the model has been sent so far in this turn, parsed. */
function results(request: StubRequest): Json[] {
  return request.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(String(m.content)));
}

async function chat(s: LlmSetup, message: string): Promise<Json> {
  const res = await s.tg.api('/chat', { method: 'POST', json: { message } });
  expect(res.status).toBe(200);
  return readJson(res);
}

/** Checks the five results the model got for the same call: three runs, then the first result twice with the note. */
function expectBroken(seen: Json[]) {
  expect(seen).toHaveLength(5);
  for (const result of seen) expect(result).toMatchObject({ success: true, result: { expression: '1 + 1', result: 2 } });
  expect(seen.slice(0, 3).every((r) => r.note === undefined)).toBe(true);
  expect(new Set(seen.slice(0, 3).map((r) => r.call_id)).size).toBe(3);
  for (const later of seen.slice(3)) {
    expect(later.note).toMatch(/already ran 3 times/);
    // The first result again, whole.
    const { note: _note, ...rest } = later;
    expect(rest).toEqual(seen[0]);
  }
}

describe.each(['ollama', 'openai'] as const)('the loop breaker (%s)', (api) => {
  it('runs the same native call 3 times in a turn; the 4th and 5th get the first result with a note', async () => {
    setup = await startWithStub(api, (request): StubReply => {
      if (results(request).length < 5) return { tool_calls: [{ name: 'calculate', arguments: { expression: '1 + 1' } }] };
      return { content: 'Two.' };
    });
    const body = await chat(setup, 'Add one and one, carefully.');
    expect(body.answer).toBe('Two.');
    expect(body.stopped_at_step_limit).toBe(false);
    expect(setup.stub.requests).toHaveLength(6);
    expectBroken(results(setup.stub.requests[5]!));
    const calls = await readJson(await setup.tg.api('/calls?tool=calculate'));
    expect(calls.calls).toHaveLength(3);
    expect(body.steps).toHaveLength(3);
  });

  it('counts the same call written as text, with its keys in another order, as the same call', async () => {
    setup = await startWithStub(api, (request): StubReply => {
      if (results(request).length >= 5) return { content: 'Two.' };
      // Same call, spelt differently each round (extra spaces, key order of a wrapper, another family's markup).
      const texts = [
        '<tool_call>\n{"name": "calculate", "arguments": {"expression": "1 + 1"}}\n</tool_call>',
        '<tool_call>\n{"arguments": {"expression": "1 + 1"}, "name": "calculate"}\n</tool_call>',
        '[calculate(expression="1 + 1")]',
        '<function=calculate>{"expression": "1 + 1"}</function>',
        '{"name": "calculate", "parameters": {"expression": "1 + 1"}}',
      ];
      return { content: texts[results(request).length]! };
    });
    const body = await chat(setup, 'Add one and one, carefully.');
    expect(body.answer).toBe('Two.');
    expectBroken(results(setup.stub.requests.at(-1)!));
    expect((await readJson(await setup.tg.api('/calls?tool=calculate'))).calls).toHaveLength(3);
  });

  it('runs 5 identical calls of one answer 3 times, and other arguments as often as asked', async () => {
    setup = await startWithStub(api, (request): StubReply => {
      if (last(request.messages).role === 'user') {
        return {
          tool_calls: [
            ...Array.from({ length: 5 }, () => ({ name: 'calculate', arguments: { expression: '1 + 1' } })),
            { name: 'calculate', arguments: { expression: '2 + 2' } },
            { name: 'calculate', arguments: { expression: '3 + 3' } },
          ],
        };
      }
      return { content: 'Done.' };
    });
    const body = await chat(setup, 'Many sums.');
    const seen = results(setup.stub.requests[1]!);
    expect(seen).toHaveLength(7);
    expectBroken(seen.filter((r) => r.result?.expression === '1 + 1'));
    expect(seen.filter((r) => r.result?.expression !== '1 + 1').map((r) => r.result.result).sort()).toEqual([4, 6]);
    expect((await readJson(await setup.tg.api('/calls?tool=calculate'))).calls).toHaveLength(5);
    expect(body.steps).toHaveLength(5);
  });

  it('starts counting again in the next turn', async () => {
    setup = await startWithStub(api, (request): StubReply => {
      if (last(request.messages).role === 'user') return { tool_calls: [{ name: 'calculate', arguments: { expression: '1 + 1' } }] };
      return { content: 'Two.' };
    });
    const first = await chat(setup, 'Once.');
    for (let i = 0; i < 4; i++) await chat(setup, 'Again.');
    expect(first.steps).toHaveLength(1);
    expect((await readJson(await setup.tg.api('/calls?tool=calculate'))).calls).toHaveLength(5);
  });
});

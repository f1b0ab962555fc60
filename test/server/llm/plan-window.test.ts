import { describe, expect, it } from 'vitest';
import { estimateTokens, planWindow } from '../../../server/llm/context-window.js';
import type { ChatMessage, ToolSpec } from '../../../server/llm/types.js';

const tool = (name: string, words = 40): ToolSpec => ({
  type: 'function',
  function: { name, description: `${name} ${'does a thing '.repeat(words)}`, parameters: { type: 'object', properties: { x: { type: 'string' } } } },
});
const ask = (content: string): ChatMessage[] => [{ role: 'user', content }];
const keepAsGiven = (tools: readonly ToolSpec[]) => [...tools];

describe('estimateTokens', () => {
  it('counts at least one token per four characters of messages and tools as JSON', () => {
    const messages = ask('x'.repeat(4000));
    const tools = [tool('a')];
    const chars = JSON.stringify(messages).length + JSON.stringify(tools).length;
    expect(estimateTokens(messages, tools)).toBeGreaterThanOrEqual(Math.ceil(chars / 4));
  });

  it('counts a character outside ASCII as a token of its own', () => {
    expect(estimateTokens(ask('中'.repeat(1000)), [])).toBeGreaterThanOrEqual(1000);
  });
});

describe('planWindow', () => {
  it('asks for nothing when the default window holds the request', () => {
    const plan = planWindow({ messages: ask('hi'), tools: [tool('a')], maxContext: 32768, keepOrder: keepAsGiven });
    expect(plan.numCtx).toBeUndefined();
    expect(plan.tools).toHaveLength(1);
    expect(plan.report.tools_left_out).toEqual([]);
  });

  it('asks for a power of two that holds a request over 4,096 tokens, tools kept', () => {
    const tools = Array.from({ length: 40 }, (_, i) => tool(`t${i}`));
    const plan = planWindow({ messages: ask('hi'), tools, maxContext: 32768, keepOrder: keepAsGiven });
    const estimate = estimateTokens(ask('hi'), tools);
    expect(estimate).toBeGreaterThan(4096);
    expect(plan.numCtx).toBeGreaterThanOrEqual(estimate);
    expect(Math.log2(plan.numCtx!) % 1).toBe(0);
    expect(plan.tools).toHaveLength(40);
  });

  it('stays within the model context length and leaves the least relevant tools out, in the order given', () => {
    const tools = Array.from({ length: 40 }, (_, i) => tool(`t${i}`));
    const plan = planWindow({ messages: ask('hi'), tools, contextLength: 4096, maxContext: 32768, keepOrder: (t) => [...t].reverse() });
    expect(plan.numCtx ?? 4096).toBeLessThanOrEqual(4096);
    expect(plan.report.tools_left_out.length).toBeGreaterThan(0);
    expect(plan.tools.map((t) => t.function.name)).toContain('t39');
    expect(plan.report.tools_left_out).toContain('t0');
    expect(estimateTokens(ask('hi'), plan.tools) + 1024).toBeLessThanOrEqual(4096);
    expect(plan.report.tools_offered).toBe(plan.tools.length);
  });

  it('stays within llm.max_context too, and never lowers a window the caller asked for', () => {
    const tools = Array.from({ length: 80 }, (_, i) => tool(`t${i}`));
    const capped = planWindow({ messages: ask('hi'), tools, maxContext: 8192, keepOrder: keepAsGiven });
    expect(capped.numCtx).toBeLessThanOrEqual(8192);
    expect(capped.report.limit).toBe(8192);
    const theirs = planWindow({ messages: ask('hi'), tools: [], maxContext: 8192, requested: 16384, keepOrder: keepAsGiven });
    expect(theirs.numCtx).toBe(16384);
  });

  it('leaves room for the answer the caller asked for', () => {
    const tools = Array.from({ length: 10 }, (_, i) => tool(`t${i}`));
    const estimate = estimateTokens(ask('hi'), tools);
    const plan = planWindow({ messages: ask('hi'), tools, maxContext: 65536, answerTokens: 8000, keepOrder: keepAsGiven });
    expect(plan.numCtx).toBeGreaterThanOrEqual(estimate + 8000);
  });
});

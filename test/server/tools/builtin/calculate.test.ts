import { describe, expect, it } from 'vitest';
import { calculateTool } from '../../../../server/tools/builtin/calculate.js';
import { ToolRegistry } from '../../../../server/tools/registry.js';

/** The calculate tool around the expression evaluator (its grammar and refusals: test/server/tools/calc/expression.test.ts). */

describe('calculate tool', () => {
  const ctx = { signal: new AbortController().signal, callId: 'c_test', client: 'test' };

  it('returns the expression and its result', async () => {
    expect(await calculateTool.handler({ expression: '1+2' }, ctx)).toEqual({ expression: '1+2', result: 3 });
  });

  it('fails with INVALID_EXPRESSION for a bad expression', async () => {
    await expect(Promise.resolve().then(() => calculateTool.handler({ expression: '1/0' }, ctx))).rejects.toMatchObject({
      name: 'ToolError',
      errorName: 'INVALID_EXPRESSION',
      details: { position: 1 },
    });
  });

  it('declares itself safe, read-only, idempotent and closed-world', () => {
    expect(calculateTool).toMatchObject({
      name: 'calculate',
      category: 'math',
      risk: 'safe',
      timeoutMs: 1000,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    });
    expect(calculateTool.annotations.title).toBeTruthy();
  });

  it('caps the expression at 10,000 characters in its schema and allows nothing else', () => {
    expect(calculateTool.parameters).toEqual({
      type: 'object',
      properties: { expression: { type: 'string', description: expect.any(String), maxLength: 10_000 } },
      required: ['expression'],
      additionalProperties: false,
    });
  });

  it('registers in the tool registry', () => {
    expect(() => new ToolRegistry().register(calculateTool)).not.toThrow();
  });
});

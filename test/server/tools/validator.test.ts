import { describe, expect, it } from 'vitest';
import { compileValidator } from '../../../server/tools/validator.js';

describe('validator', () => {
  const schema = {
    type: 'object' as const,
    properties: {
      mode: { type: 'string', enum: ['fast', 'slow'], default: 'fast' },
      count: { type: 'integer', default: 3 },
      nested: {
        type: 'object',
        properties: { flag: { type: 'boolean', default: false }, name: { type: 'string' } },
        required: ['name'],
      },
      query: { type: 'string' },
    },
    required: ['query'],
    additionalProperties: false,
  };

  it('fills in defaults, including inside nested objects', () => {
    const args: Record<string, unknown> = { query: 'q', nested: { name: 'n' } };
    expect(compileValidator(schema)(args)).toEqual({ ok: true });
    expect(args).toEqual({ query: 'q', mode: 'fast', count: 3, nested: { name: 'n', flag: false } });
  });

  it('does not coerce types: "3" is not an integer', () => {
    expect(compileValidator(schema)({ query: 'q', count: '3' })).toEqual({
      ok: false,
      problems: [{ path: '/count', message: '"count" must be integer' }],
    });
  });

  it('lists every problem, each with a JSON Pointer path', () => {
    const result = compileValidator(schema)({ mode: 'medium', count: 1.5, nested: { flag: 'yes' }, extra: true });
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: '', message: 'missing required property "query"' },
        { path: '', message: 'unknown property "extra" in arguments' },
        { path: '/mode', message: '"mode" must be one of "fast", "slow"' },
        { path: '/count', message: '"count" must be integer' },
        { path: '/nested', message: 'missing required property "name"' },
        { path: '/nested/flag', message: '"nested.flag" must be boolean' },
      ]),
    );
    expect(problems).toHaveLength(6);
  });

  it('refuses arguments that are not an object', () => {
    for (const args of [null, [], 'text', 1]) {
      expect(compileValidator(schema)(args)).toEqual({ ok: false, problems: [{ path: '', message: 'arguments must be object' }] });
    }
  });

  it('checks formats', () => {
    const validate = compileValidator({ type: 'object', properties: { at: { type: 'string', format: 'date-time' } } });
    expect(validate({ at: '2026-01-01T00:00:00Z' })).toEqual({ ok: true });
    expect(validate({ at: 'yesterday' })).toEqual({ ok: false, problems: [{ path: '/at', message: '"at" must match format "date-time"' }] });
  });
});

import { describe, expect, it } from 'vitest';
import { expectedArguments } from '../../../../server/llm/recovery/schema-summary.js';

/** The one-line expectation a model reads after sending bad arguments. */

describe('expectedArguments', () => {
  it('required, optional, enums and bounds', () => {
    const schema = {
      type: 'object',
      required: ['timezone'],
      properties: {
        timezone: { type: 'string' },
        format: { type: 'string', enum: ['iso', 'unix'] },
        limit: { type: 'integer', minimum: 1 },
      },
    };
    expect(expectedArguments(schema)).toBe('{"timezone": string (required), "format"?: "iso" | "unix", "limit"?: integer ≥ 1}');
  });

  it('arrays, type lists, const and both bounds', () => {
    const schema = {
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string' } },
        any: { type: 'array' },
        note: { type: ['string', 'null'] },
        kind: { const: 'x' },
        pct: { type: 'number', minimum: 0, exclusiveMaximum: 100 },
      },
    };
    expect(expectedArguments(schema)).toBe('{"tags"?: array of string, "any"?: array, "note"?: string | null, "kind"?: "x", "pct"?: number ≥ 0 and < 100}');
  });

  it('nested objects one level deep, then object', () => {
    const schema = {
      type: 'object',
      required: ['filter'],
      properties: {
        filter: { type: 'object', required: ['field'], properties: { field: { type: 'string' }, inner: { type: 'object', properties: { a: { type: 'string' } } } } },
        rows: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' } } } },
      },
    };
    expect(expectedArguments(schema)).toBe('{"filter": {"field": string (required), "inner"?: object} (required), "rows"?: array of {"id"?: integer}}');
  });

  it('enums of more than 6 values end with …', () => {
    const schema = { type: 'object', properties: { d: { enum: [1, 2, 3, 4, 5, 6, 7, 8] } } };
    expect(expectedArguments(schema)).toBe('{"d"?: 1 | 2 | 3 | 4 | 5 | 6 | …}');
  });

  it('follows $ref and reads Optional (anyOf with null)', () => {
    const schema = {
      $ref: '#/$defs/Args',
      $defs: {
        Args: { type: 'object', properties: { when: { anyOf: [{ $ref: '#/$defs/Unit' }, { type: 'null' }] }, v: { oneOf: [{ type: 'integer' }, { type: 'string' }] } } },
        Unit: { enum: ['s', 'ms'] },
      },
    };
    expect(expectedArguments(schema)).toBe('{"when"?: "s" | "ms" | null, "v"?: integer | string}');
  });

  it('stays within about 300 characters, ending in … at a property', () => {
    const properties = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`property_${i}`, { type: 'string' }]));
    const line = expectedArguments({ type: 'object', properties });
    expect(line.length).toBeLessThanOrEqual(300);
    expect(line).toMatch(/^\{"property_0"\?: string, .*, …\}$/);
    const huge = expectedArguments({ type: 'object', properties: { a: { enum: ['x'.repeat(500)] } } });
    expect(huge.length).toBeLessThanOrEqual(300);
    expect(huge.endsWith('…}')).toBe(true);
  });

  it('a schema with no properties or none at all', () => {
    expect(expectedArguments({ type: 'object', properties: {} })).toBe('{}');
    expect(expectedArguments({ type: 'object' })).toBe('a JSON object');
    expect(expectedArguments(undefined)).toBe('a JSON object');
  });

  it('is one line', () => {
    const schema = { type: 'object', properties: { 'a\nb': { enum: ['x\ny'] } } };
    expect(expectedArguments(schema)).not.toMatch(/\n/);
  });
});

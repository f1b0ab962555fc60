import { describe, expect, it } from 'vitest';
import { repairArguments } from '../../../../server/llm/recovery/repair.js';

/** Argument repair: text mended into an object, wrappers taken off, strings coerced where the schema says. */

const DEPTH = 32;

const schema = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    limit: { type: 'integer' },
    exact: { type: 'boolean' },
    note: { type: ['string', 'null'] },
  },
};

function repair(raw: unknown, s: unknown = schema) {
  return repairArguments(raw, s, DEPTH);
}

describe('repairArguments: already valid', () => {
  it('a valid JSON object text comes back parsed, with no repairs', () => {
    expect(repair('{"city": "Oslo", "limit": 5}')).toEqual({ value: { city: 'Oslo', limit: 5 }, repairs: [] });
  });

  it('an object is kept as it is, the same reference when nothing changes', () => {
    const raw = { city: 'Oslo', limit: 5, exact: true };
    const result = repair(raw);
    expect(result).toEqual({ value: raw, repairs: [] });
    expect(result.value).toBe(raw);
  });

  it('no arguments at all are an empty object', () => {
    for (const raw of [undefined, null, '']) expect(repair(raw)).toEqual({ value: {}, repairs: [] });
  });
});

describe('repairArguments: broken JSON text', () => {
  it('a trailing comma', () => {
    expect(repair('{"city": "Oslo",}')).toEqual({ value: { city: 'Oslo' }, repairs: ['json'] });
  });

  it('single quotes', () => {
    expect(repair("{'city': 'Oslo'}")).toEqual({ value: { city: 'Oslo' }, repairs: ['json'] });
  });

  it('unquoted keys', () => {
    expect(repair('{city: "Oslo"}')).toEqual({ value: { city: 'Oslo' }, repairs: ['json'] });
  });

  it('Python True, False and None', () => {
    const s = { type: 'object', properties: { a: { type: 'boolean' }, b: { type: 'boolean' }, c: { type: 'null' } } };
    expect(repair('{"a": True, "b": False, "c": None}', s)).toEqual({ value: { a: true, b: false, c: null }, repairs: ['json'] });
  });

  it('a missing closing brace', () => {
    expect(repair('{"city": "Oslo", "limit": 5')).toEqual({ value: { city: 'Oslo', limit: 5 }, repairs: ['json'] });
  });

  it('a double-encoded JSON string holding an object', () => {
    expect(repair(JSON.stringify('{"city": "Oslo"}'))).toEqual({ value: { city: 'Oslo' }, repairs: ['double-encoded'] });
  });

  it('a Markdown fence around the object, with or without a language', () => {
    expect(repair('```json\n{"city": "Oslo"}\n```')).toEqual({ value: { city: 'Oslo' }, repairs: ['fence'] });
    expect(repair('```\n{"city": "Oslo"}\n```')).toEqual({ value: { city: 'Oslo' }, repairs: ['fence'] });
  });

  it('prose around exactly one object, braces and apostrophes in its strings honoured', () => {
    expect(repair('Sure, here it is: {"city": "Oslo"} Let me know!')).toEqual({ value: { city: 'Oslo' }, repairs: ['prose'] });
    expect(repair(`Here's the call: {"city": "it's } here"} done`)).toEqual({ value: { city: "it's } here" }, repairs: ['prose'] });
  });

  it('repairs in order, each named: fence, then prose, then json, then coercion', () => {
    expect(repair("```json\nCalling it now: {'city': 'Oslo', 'limit': '3',}\n```")).toEqual({
      value: { city: 'Oslo', limit: 3 },
      repairs: ['fence', 'prose', 'json', 'coerced limit'],
    });
  });

  it('two objects in prose are refused, not one picked', () => {
    const raw = 'First {"city": "Oslo"} then {"city": "Bergen"}';
    const result = repair(raw);
    expect(result.value).toBe(raw);
    expect(result.repairs).toEqual([]);
    expect(result.error).toMatch(/^The arguments are not a JSON object: .*2 JSON objects.* Send arguments as a JSON object\.$/);
  });

  it('text that is not JSON is refused with the text kept as value and a message for the model', () => {
    const result = repair('get the weather in Oslo');
    expect(result).toEqual({ value: 'get the weather in Oslo', repairs: [], error: expect.stringMatching(/^The arguments are not a JSON object: .*not valid JSON/) });
    expect(result.error).toMatch(/Send arguments as a JSON object\.$/);
  });

  it('JSON that is not an object is refused', () => {
    expect(repair('[1, 2]').error).toBe('The arguments are not a JSON object: they are an array. Send arguments as a JSON object.');
    expect(repair('42').error).toMatch(/they are a number/);
    expect(repair(JSON.stringify('just words')).error).toMatch(/they are a string/);
    expect(repair(['x']).error).toMatch(/they are an array/);
  });

  it('a prototype key stays refused after repair', () => {
    const result = repair('{"__proto__": {"polluted": true},}');
    expect(result.error).toMatch(/__proto__/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('text nested deeper than allowed is refused before any repair', () => {
    const deep = `${'{"a":'.repeat(40)}1`;
    const result = repairArguments(deep, {}, 10);
    expect(result.error).toMatch(/nested .* levels deep/);
    expect(result.repairs).toEqual([]);
    const deepInside = repairArguments(JSON.stringify(`${'{"a":'.repeat(40)}1`), {}, 10);
    expect(deepInside.error).toMatch(/they are a string/);
  });
});

describe('repairArguments: wrappers', () => {
  for (const key of ['arguments', 'parameters', 'input', 'args']) {
    it(`{"${key}": {…}} is unwrapped when the schema has no "${key}" property`, () => {
      expect(repair({ [key]: { city: 'Oslo' } })).toEqual({ value: { city: 'Oslo' }, repairs: ['unwrapped'] });
    });

    it(`{"${key}": {…}} is kept when the schema has a "${key}" property`, () => {
      const s = { type: 'object', properties: { [key]: { type: 'object' } } };
      expect(repair({ [key]: { city: 'Oslo' } }, s)).toEqual({ value: { [key]: { city: 'Oslo' } }, repairs: [] });
    });
  }

  it('a repeated call {"name", "arguments"} is unwrapped, then coerced', () => {
    expect(repair('{"name": "weather", "arguments": {"city": "Oslo", "limit": "2"}}')).toEqual({
      value: { city: 'Oslo', limit: 2 },
      repairs: ['unwrapped', 'coerced limit'],
    });
  });

  it('a repeated call is kept when the schema has a "name" or an "arguments" property', () => {
    const withName = { type: 'object', properties: { name: { type: 'string' }, arguments: { type: 'object' } } };
    expect(repair({ name: 'x', arguments: { a: 1 } }, withName).repairs).toEqual([]);
    const withArguments = { type: 'object', properties: { arguments: { type: 'object' } } };
    expect(repair({ name: 'x', arguments: { a: 1 } }, withArguments).repairs).toEqual([]);
  });

  it('a wrapper beside other keys, or around a non-object, is kept', () => {
    expect(repair({ arguments: { city: 'Oslo' }, limit: 1 }).repairs).toEqual([]);
    expect(repair({ arguments: 'Oslo' }).repairs).toEqual([]);
  });

  it('nothing is unwrapped against a free-form schema, which may mean the key itself', () => {
    expect(repair({ input: { a: 1 } }, { type: 'object' }).repairs).toEqual([]);
    expect(repairArguments({ input: { a: 1 } }, undefined, DEPTH).repairs).toEqual([]);
  });
});

describe('repairArguments: coercion by the schema', () => {
  it('"50" becomes 50 for an integer', () => {
    expect(repair({ limit: '50' })).toEqual({ value: { limit: 50 }, repairs: ['coerced limit'] });
    expect(repair({ limit: '-3' }).value).toEqual({ limit: -3 });
  });

  it('"50.5", "50 apples", "" and " 50" stay strings for an integer (the validator refuses them)', () => {
    for (const text of ['50.5', '50 apples', '', ' 50', '1e3', '007']) {
      expect(repair({ limit: text })).toEqual({ value: { limit: text }, repairs: [] });
    }
  });

  it('"-2.5" becomes -2.5 for a number', () => {
    const s = { type: 'object', properties: { x: { type: 'number' } } };
    expect(repair({ x: '-2.5' }, s)).toEqual({ value: { x: -2.5 }, repairs: ['coerced x'] });
  });

  it('"50" stays a string where the schema allows a string', () => {
    expect(repair({ city: '50' })).toEqual({ value: { city: '50' }, repairs: [] });
    expect(repair({ note: 'null' })).toEqual({ value: { note: 'null' }, repairs: [] });
    const either = { type: 'object', properties: { x: { type: ['integer', 'string'] } } };
    expect(repair({ x: '50' }, either).repairs).toEqual([]);
  });

  it('"true" / "FALSE" become booleans for a boolean', () => {
    expect(repair({ exact: 'true' })).toEqual({ value: { exact: true }, repairs: ['coerced exact'] });
    expect(repair({ exact: 'FALSE' }).value).toEqual({ exact: false });
    expect(repair({ exact: 'yes' }).value).toEqual({ exact: 'yes' });
  });

  it('"null" and "None" become null for a null', () => {
    const s = { type: 'object', properties: { x: { type: ['integer', 'null'] } } };
    expect(repair({ x: 'None' }, s)).toEqual({ value: { x: null }, repairs: ['coerced x'] });
    expect(repair({ x: 'null' }, s).value).toEqual({ x: null });
    expect(repair({ x: '7' }, s).value).toEqual({ x: 7 });
  });

  it('a string holding a JSON array or object becomes one, then its contents are coerced', () => {
    const s = {
      type: 'object',
      properties: {
        ids: { type: 'array', items: { type: 'integer' } },
        filter: { type: 'object', properties: { max: { type: 'integer' } } },
      },
    };
    expect(repair({ ids: '["1", 2]', filter: '{"max": "9"}' }, s)).toEqual({
      value: { ids: [1, 2], filter: { max: 9 } },
      repairs: ['coerced ids', 'coerced ids[0]', 'coerced filter', 'coerced filter.max'],
    });
    expect(repair({ ids: 'not [json' }, s).repairs).toEqual([]);
  });

  it('nested paths: objects and array items', () => {
    const s = {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          items: { type: 'object', properties: { count: { type: 'integer' }, meta: { type: 'object', properties: { on: { type: 'boolean' } } } } },
        },
      },
    };
    const raw = { items: [{ count: '1' }, { count: 2, meta: { on: 'true' } }] };
    expect(repair(raw, s)).toEqual({
      value: { items: [{ count: 1 }, { count: 2, meta: { on: true } }] },
      repairs: ['coerced items[0].count', 'coerced items[1].meta.on'],
    });
    expect(raw.items[0]!.count).toBe('1'); // the caller's object is not changed
  });

  it('follows $ref to $defs and definitions', () => {
    const defs = { type: 'object', properties: { p: { $ref: '#/$defs/Page' } }, $defs: { Page: { type: 'object', properties: { n: { $ref: '#/$defs/N' } } }, N: { type: 'integer' } } };
    expect(repair({ p: { n: '4' } }, defs)).toEqual({ value: { p: { n: 4 } }, repairs: ['coerced p.n'] });
    const definitions = { $ref: '#/definitions/Args', definitions: { Args: { type: 'object', properties: { on: { type: 'boolean' } } } } };
    expect(repair({ on: 'false' }, definitions)).toEqual({ value: { on: false }, repairs: ['coerced on'] });
  });

  it('a $ref that leads nowhere or in a circle coerces nothing', () => {
    expect(repair({ a: '1' }, { type: 'object', properties: { a: { $ref: '#/$defs/Missing' } } }).repairs).toEqual([]);
    const loop = { type: 'object', properties: { a: { $ref: '#/$defs/A' } }, $defs: { A: { $ref: '#/$defs/B' }, B: { $ref: '#/$defs/A' } } };
    expect(repair({ a: '1' }, loop).repairs).toEqual([]);
  });

  it('anyOf / oneOf coerce only when every branch agrees on the type', () => {
    const agree = { type: 'object', properties: { x: { oneOf: [{ type: 'integer', minimum: 10 }, { type: 'integer', maximum: 0 }] } } };
    expect(repair({ x: '12' }, agree).value).toEqual({ x: 12 });
    const disagree = { type: 'object', properties: { x: { anyOf: [{ type: 'integer' }, { type: 'string' }] } } };
    expect(repair({ x: '12' }, disagree)).toEqual({ value: { x: '12' }, repairs: [] });
    const numberOrBoolean = { type: 'object', properties: { x: { anyOf: [{ type: 'integer' }, { type: 'boolean' }] } } };
    expect(repair({ x: 'true' }, numberOrBoolean).repairs).toEqual([]);
  });

  it("a null branch (Pydantic's Optional) does not count as a disagreement", () => {
    const optional = { type: 'object', properties: { x: { anyOf: [{ type: 'integer' }, { type: 'null' }] } } };
    expect(repair({ x: '12' }, optional).value).toEqual({ x: 12 });
    expect(repair({ x: 'None' }, optional).value).toEqual({ x: null });
    const optionalObject = { type: 'object', properties: { o: { anyOf: [{ $ref: '#/$defs/O' }, { type: 'null' }] } }, $defs: { O: { type: 'object', properties: { n: { type: 'number' } } } } };
    expect(repair({ o: { n: '1.5' } }, optionalObject)).toEqual({ value: { o: { n: 1.5 } }, repairs: ['coerced o.n'] });
  });

  it('tuples (prefixItems) and additionalProperties schemas are followed', () => {
    const s = { type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] }, counts: { type: 'object', additionalProperties: { type: 'integer' } } } };
    expect(repair({ pair: ['1', '2'], counts: { a: '3' } }, s)).toEqual({
      value: { pair: ['1', 2], counts: { a: 3 } },
      repairs: ['coerced pair[1]', 'coerced counts.a'],
    });
  });

  it('never drops or invents properties, and leaves unknown ones alone', () => {
    expect(repair({ limit: '1', other: '2', city: 'x' })).toEqual({ value: { limit: 1, other: '2', city: 'x' }, repairs: ['coerced limit'] });
  });

  it('a schema without a type, or no schema, coerces nothing', () => {
    expect(repair({ a: '1' }, { type: 'object', properties: { a: { enum: [1, 2] } } }).repairs).toEqual([]);
    expect(repairArguments({ a: '1' }, undefined, DEPTH)).toEqual({ value: { a: '1' }, repairs: [] });
  });

  it('a string parsed for an array or object must still fit in the depth limit', () => {
    const s = { type: 'object', properties: { a: { type: 'array' } } };
    expect(repairArguments({ a: '[[[1]]]' }, s, 3).repairs).toEqual([]);
    expect(repairArguments({ a: '[[1]]' }, s, 3).value).toEqual({ a: [[1]] });
  });
});

import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../server/errors.js';
import { nestingDepth, parseUntrustedJson } from '../../../server/util/json.js';

describe('nestingDepth', () => {
  it.each([
    ['a scalar', '42', 0],
    ['an empty object', '{}', 1],
    ['objects and arrays', '{"a":[1,{"b":[2]}]}', 4],
    ['brackets inside a string', '{"a":"[[[{{{"}', 1],
    ['an escaped quote inside a string', '{"a":"x\\"[[[["}', 1],
    ['an escaped backslash before the closing quote', '["\\\\",[1]]', 2],
    ['siblings that are not nested', '[[1],[2],[3]]', 2],
  ])('counts %s', (_what, text, depth) => {
    expect(nestingDepth(text)).toBe(depth);
  });
});

describe('parseUntrustedJson', () => {
  function refusal(text: string, maxDepth = 64): GatewayError {
    let error: unknown;
    try {
      parseUntrustedJson(text, maxDepth);
    } catch (caught) {
      error = caught;
    }
    expect(error, `${text} was accepted`).toBeInstanceOf(GatewayError);
    const gatewayError = error as GatewayError;
    expect(gatewayError.errorName).toBe('INVALID_JSON');
    expect(gatewayError.status).toBe(400);
    return gatewayError;
  }

  it('parses plain valid JSON', () => {
    expect(parseUntrustedJson('{"a":[1,"two",{"b":null}],"c":"__proto__ as a value is fine"}', 64)).toEqual({
      a: [1, 'two', { b: null }],
      c: '__proto__ as a value is fine',
    });
  });

  it('accepts a document exactly at the depth limit and refuses one level more', () => {
    expect(parseUntrustedJson('[[[1]]]', 3)).toEqual([[[1]]]);
    expect(refusal('[[[1]]]', 2).message).toBe('The request body is nested 3 levels deep; at most 2 are accepted.');
  });

  it('refuses a 100 000-deep document before parsing it', () => {
    expect(refusal(`${'['.repeat(100_000)}${']'.repeat(100_000)}`).message).toContain('100000 levels deep');
  });

  it('does not count brackets inside strings towards the depth', () => {
    expect(parseUntrustedJson('{"a":"[[[[[[[[[["}', 2)).toEqual({ a: '[[[[[[[[[[' });
  });

  it.each([
    ['a top-level __proto__', '{"__proto__": {"polluted": true}}'],
    ['a nested __proto__', '{"a": {"b": [{"__proto__": {"polluted": true}}]}}'],
    ['an escaped \\u005f_proto__', '{"\\u005f_proto__": {"polluted": true}}'],
    ['a fully escaped __proto__', '{"\\u005f\\u005fproto\\u005f\\u005f": {"polluted": true}}'],
    ['constructor.prototype', '{"constructor": {"prototype": {"polluted": true}}}'],
  ])('refuses %s', (_what, text) => {
    expect(refusal(text).message).toContain('"__proto__" or "constructor.prototype"');
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('accepts a "constructor" key without a prototype', () => {
    expect(parseUntrustedJson('{"constructor": {"name": "x"}}', 64)).toEqual({ constructor: { name: 'x' } });
  });

  it('says what is wrong with invalid JSON', () => {
    expect(refusal('{"a": }').message).toMatch(/^The request body is not valid JSON: /);
    expect(refusal('', 64).message).toMatch(/not valid JSON/);
  });

  it('reports invalid JSON that merely mentions "prototype" as invalid JSON, not as a prototype key', () => {
    expect(refusal('{"prototype": }').message).toMatch(/not valid JSON/);
    expect(refusal('prototype').message).toMatch(/not valid JSON/);
  });

  it('does not quote the offending text back (it may hold a secret)', () => {
    expect(refusal('{"password": hunter2}').message).not.toContain('hunter2');
  });
});

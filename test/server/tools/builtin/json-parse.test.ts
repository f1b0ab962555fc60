import { describe, it, expect } from 'vitest';
import { ToolError } from '../../../../server/errors.js';
import { jsonParseTool } from '../../../../server/tools/builtin/json-parse.js';

const ctx = () => ({ signal: new AbortController().signal, callId: 'c_test', client: 'test' });

async function parse(text: string, path?: string) {
  return jsonParseTool.handler(path === undefined ? { text } : { text, path }, ctx());
}

async function failure(text: string, path?: string): Promise<ToolError> {
  try {
    await parse(text, path);
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return error as ToolError;
  }
  throw new Error('expected a ToolError');
}

const doc = JSON.stringify({
  users: [{ name: 'Ann' }, { name: 'Bo' }],
  a: { b: { 'key with space': 1, 'say "hi"': 2, 'x.y': 3 } },
  items: [10, 20, 30],
  flags: { on: true, off: false, none: null, pi: 3.14, text: 'hello' },
  empty: { object: {}, array: [], string: '' },
  cjk: { 名前: '太郎' },
});

describe('json_parse: declaration', () => {
  it('is a safe, read-only, idempotent, closed-world tool with a closed schema', () => {
    expect(jsonParseTool.name).toBe('json_parse');
    expect(jsonParseTool.risk).toBe('safe');
    expect(jsonParseTool.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(jsonParseTool.parameters).toMatchObject({ required: ['text'], additionalProperties: false });
    expect((jsonParseTool.parameters.properties!.text as { maxLength: number }).maxLength).toBe(1_000_000);
  });
});

describe('json_parse: parsing', () => {
  it('returns the whole document and its type without a path', async () => {
    expect(await parse('{"a":[1,2]}')).toEqual({ value: { a: [1, 2] }, type: 'object' });
  });

  it.each([
    ['[1]', 'array'],
    ['"s"', 'string'],
    ['-1.5e3', 'number'],
    ['true', 'boolean'],
    ['null', 'null'],
  ])('reports %s as a JSON %s', async (text, type) => {
    expect((await parse(text)).type).toBe(type);
  });

  it('accepts a leading byte-order mark', async () => {
    expect((await parse('\uFEFF{"a":1}')).value).toEqual({ a: 1 });
  });

  it('refuses empty and whitespace-only text', async () => {
    expect((await failure('')).errorName).toBe('INVALID_JSON_TEXT');
    expect((await failure(' \n ')).errorName).toBe('INVALID_JSON_TEXT');
  });

  it('locates a missing value on a later line, with line and column', async () => {
    const error = await failure('{\n  "a": 1,\n  "b": [1, 2,,]\n}');
    expect(error.errorName).toBe('INVALID_JSON_TEXT');
    expect(error.message).toMatch(/line 3, column 14/);
    expect(error.details).toMatchObject({ line: 3, column: 14 });
  });

  it.each([
    ['{"a":1,}', 1, 8, /trailing comma/],
    ['[1,]', 1, 4, /trailing comma/],
    ["{'a':1}", 1, 2, /double quotes/],
    ['{"a":1', 1, 7, /end of text/],
    ['{"a" 1}', 1, 6, /":"/],
    ['[1 2]', 1, 4, /","/],
    ['01', 1, 2, /number/],
    ['"abc', 1, 1, /never closed/],
    ['"a\tb"', 1, 3, /control characters/],
    ['"\\x"', 1, 2, /escape/],
    ['// note\n1', 1, 1, /comments/],
    ['{"a":1} extra', 1, 9, /after the end/],
    ['undefined', 1, 1, /expected a value/],
  ])('explains %j at line %i, column %i', async (text, line, column, reason) => {
    const error = await failure(text);
    expect(error.errorName).toBe('INVALID_JSON_TEXT');
    expect(error.details).toMatchObject({ line, column });
    expect(error.message).toMatch(reason);
  });

  it('locates an error at the end of very deeply nested text without overflowing the stack', async () => {
    const error = await failure('['.repeat(100_000) + ']'.repeat(99_999));
    expect(error.errorName).toBe('INVALID_JSON_TEXT');
    expect(error.details).toMatchObject({ line: 1, column: 200_000 });
  });

  it('refuses to return a value nested too deeply for the gateway to serialize', async () => {
    const deep = '['.repeat(5_000) + ']'.repeat(5_000);
    expect((await failure(deep)).errorName).toBe('JSON_TOO_DEEP');
  });
});

describe('json_parse: paths', () => {
  it.each([
    ['users[0].name', 'Ann'],
    ['users[1].name', 'Bo'],
    ['$.users[0].name', 'Ann'],
    ['users.1.name', 'Bo'],
    ['a.b["key with space"]', 1],
    ["a.b['key with space']", 1],
    ['a.b["say \\"hi\\""]', 2],
    ['a.b["x.y"]', 3],
    ['items[-1]', 30],
    ['items[-3]', 10],
    ['cjk.名前', '太郎'],
    ['flags.none', null],
    ['flags.off', false],
    ['empty.string', ''],
    ['  users[0].name  ', 'Ann'],
  ])('reads %s', async (path, value) => {
    expect((await parse(doc, path)).value).toEqual(value);
  });

  it('treats "$" and an empty path as the root', async () => {
    const root = JSON.parse(doc) as unknown;
    expect((await parse(doc, '$')).value).toEqual(root);
    expect((await parse(doc, '')).value).toEqual(root);
  });

  it('reports the type of the selected value', async () => {
    expect(await parse(doc, 'empty.array')).toEqual({ value: [], type: 'array' });
    expect(await parse(doc, 'flags.pi')).toEqual({ value: 3.14, type: 'number' });
    expect(await parse(doc, 'flags.none')).toEqual({ value: null, type: 'null' });
  });

  it('indexes a top-level array', async () => {
    expect((await parse('[[1,2],[3,4]]', '[1][-1]')).value).toBe(4);
  });

  it('says how many items an array has when an index is out of range', async () => {
    const error = await failure(doc, 'users[3]');
    expect(error.errorName).toBe('PATH_NOT_FOUND');
    expect(error.message).toBe('No value at "users[3]": users has 2 items');
  });

  it('refuses a negative index that reaches past the start', async () => {
    expect((await failure(doc, 'items[-4]')).message).toMatch(/items has 3 items/);
  });

  it('refuses any index into an empty array', async () => {
    expect((await failure(doc, 'empty.array[0]')).message).toMatch(/empty\.array has 0 items/);
  });

  it('lists the keys that exist when a key is missing', async () => {
    const error = await failure(doc, 'a.b.c');
    expect(error.errorName).toBe('PATH_NOT_FOUND');
    expect(error.message).toMatch(/a\.b has no key "c"; its keys are "key with space"/);
  });

  it('explains that an array needs an index, not a key', async () => {
    expect((await failure(doc, 'users.name')).message).toMatch(/users is an array \(2 items\); use an index/);
  });

  it('explains that a string has no properties (no "length" from String.prototype)', async () => {
    expect((await failure(doc, 'flags.text.length')).message).toMatch(/flags\.text is a string/);
  });

  it('does not expose an array\'s "length" property', async () => {
    expect((await failure(doc, 'items.length')).errorName).toBe('PATH_NOT_FOUND');
  });

  it('explains that null has no properties', async () => {
    expect((await failure(doc, 'flags.none.x')).message).toMatch(/flags\.none is null/);
  });

  it.each(['users[0', 'a..b', 'a[x]', 'a.', 'a["b]', 'users[0]name', '[]'])('rejects malformed path %j', async (path) => {
    expect((await failure(doc, path)).errorName).toBe('INVALID_PATH');
  });
});

describe('json_parse: prototype keys read own properties only', () => {
  it.each(['constructor', '__proto__', 'prototype', 'toString', 'hasOwnProperty', 'a.constructor', 'a.__proto__'])(
    'does not reach Object.prototype through %s',
    async (path) => {
      expect((await failure(doc, path)).errorName).toBe('PATH_NOT_FOUND');
    },
  );

  it('does not reach Array.prototype through an array', async () => {
    expect((await failure(doc, 'items.constructor')).errorName).toBe('PATH_NOT_FOUND');
    expect((await failure(doc, 'items["__proto__"]')).errorName).toBe('PATH_NOT_FOUND');
  });

  it('reads an own "__proto__" key as plain data', async () => {
    const result = await parse('{"__proto__": {"polluted": true}}', '__proto__');
    expect(result).toEqual({ value: { polluted: true }, type: 'object' });
  });

  it('reads own "constructor" and "prototype" keys', async () => {
    expect((await parse('{"constructor": 1}', 'constructor')).value).toBe(1);
    expect((await parse('{"a": {"prototype": "p"}}', 'a.prototype')).value).toBe('p');
  });

  it('leaves Object.prototype untouched after parsing a "__proto__" payload', async () => {
    await parse('{"__proto__": {"polluted": true}, "a": {"__proto__": {"polluted": true}}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('json_parse: defensive argument checks', () => {
  it('refuses a non-string text', async () => {
    await expect(async () => jsonParseTool.handler({ text: 42 as unknown as string }, ctx())).rejects.toMatchObject({
      errorName: 'INVALID_JSON_TEXT',
    });
  });

  it('refuses a non-string path', async () => {
    await expect(async () => jsonParseTool.handler({ text: '{}', path: 1 as unknown as string }, ctx())).rejects.toMatchObject({
      errorName: 'INVALID_PATH',
    });
  });
});

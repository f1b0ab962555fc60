import { ToolError } from '../../errors.js';
import { defineTool } from '../types.js';

export const MAX_JSON_TEXT = 1_000_000;
const MAX_PATH = 1_000;
/** Deeper results make JSON.stringify overflow the stack when the gateway serializes the answer. */
const MAX_RESULT_DEPTH = 1_000;

export type JsonType = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

interface JsonParseArgs {
  text: string;
  path?: string;
}

interface JsonParseResult {
  value: unknown;
  type: JsonType;
}

type Segment = { kind: 'key'; key: string } | { kind: 'index'; index: number };

export const jsonParseTool = defineTool<JsonParseArgs, JsonParseResult>({
  name: 'json_parse',
  description:
    'Parse JSON text and optionally pick out one value with a path. Use it to validate JSON, to find where JSON is ' +
    'broken (errors give the line and column), or to extract a field from a large JSON document instead of ' +
    'reading it yourself. Path syntax: dot and bracket notation from the root, e.g. `users[0].name`, ' +
    '`a.b["key with space"]`, `items[-1]` (negative indexes count from the end); `$` or an empty path is the whole ' +
    'document. Returns `{ value, type }`, where type is the JSON type of the value: object, array, string, number, ' +
    'boolean or null.',
  parameters: {
    type: 'object',
    properties: {
      text: { type: 'string', description: 'The JSON text to parse.', maxLength: MAX_JSON_TEXT },
      path: {
        type: 'string',
        description:
          'Optional path to the value to return, e.g. `users[0].name`, `a.b["key with space"]`, `items[-1]`. ' +
          'Omit it, or pass `$`, for the whole document.',
        maxLength: MAX_PATH,
        default: '',
      },
    },
    required: ['text'],
    additionalProperties: false,
  },
  outputSchema: { type: 'object', properties: { value: { anyOf: [{ type: 'object', additionalProperties: true }, { type: 'array' }, { type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] }, type: { enum: ['null', 'array', 'object', 'string', 'number', 'boolean'] } }, required: ['value', 'type'] },
  category: 'data',
  risk: 'safe',
  annotations: {
    title: 'Parse JSON',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  timeoutMs: 10_000,
  handler(args) {
    if (typeof args.text !== 'string') throw new ToolError('INVALID_JSON_TEXT', 'text must be a string of JSON.');
    if (args.path !== undefined && typeof args.path !== 'string') {
      throw new ToolError('INVALID_PATH', 'path must be a string such as "users[0].name".');
    }
    const segments = parsePath(args.path ?? '');
    const value = select(parseJson(args.text), segments, args.path ?? '');
    if (nestsDeeperThan(value, MAX_RESULT_DEPTH)) {
      throw new ToolError(
        'JSON_TOO_DEEP',
        `The selected value nests deeper than ${MAX_RESULT_DEPTH} levels; pass a path to a smaller part of it.`,
        { max_depth: MAX_RESULT_DEPTH },
      );
    }
    return { value, type: jsonType(value) };
  },
});

export function jsonType(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value as 'object' | 'string' | 'number' | 'boolean';
}

function parseJson(raw: string): unknown {
  const text = raw.startsWith('\uFEFF') ? raw.slice(1) : raw;
  if (text.trim() === '') throw new ToolError('INVALID_JSON_TEXT', 'The text is empty; there is no JSON to parse.');
  try {
    // JSON.parse defines "__proto__" as an own property, so parsing cannot pollute any prototype.
    return JSON.parse(text) as unknown;
  } catch (error) {
    const problem = locateSyntaxError(text);
    if (!problem) {
      throw new ToolError('INVALID_JSON_TEXT', `Invalid JSON: ${(error as Error).message}`);
    }
    const before = text.slice(0, problem.offset);
    const line = before.split('\n').length;
    const column = problem.offset - before.lastIndexOf('\n');
    throw new ToolError('INVALID_JSON_TEXT', `Invalid JSON at line ${line}, column ${column}: ${problem.reason}.`, {
      line,
      column,
      offset: problem.offset,
      excerpt: text.slice(Math.max(0, problem.offset - 30), problem.offset + 30),
    });
  }
}

/**
 * Finds the first syntax error in text JSON.parse rejected. V8's messages only sometimes carry a position, and
 * its wording changes between versions, so we scan ourselves. Iterative: deeply nested input must not overflow.
 */
function locateSyntaxError(text: string): { offset: number; reason: string } | undefined {
  type Expect = 'value' | 'first-value' | 'key' | 'first-key' | 'colon' | 'after';
  const closers: string[] = [];
  let expect: Expect = 'value';
  let i = 0;
  for (;;) {
    while (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r') i++;
    const ch = text[i];
    if (ch === undefined) {
      if (expect === 'after' && closers.length === 0) return undefined;
      const missing = closers.length ? `; missing "${[...closers].reverse().join('')}"` : '';
      return { offset: i, reason: `unexpected end of text${missing}` };
    }
    const close = closers.at(-1);
    switch (expect) {
      case 'first-value':
      case 'value': {
        if (ch === ']' && expect === 'first-value') {
          closers.pop();
          expect = 'after';
          i++;
        } else if (ch === '[' || ch === '{') {
          closers.push(ch === '[' ? ']' : '}');
          expect = ch === '[' ? 'first-value' : 'first-key';
          i++;
        } else if (ch === '"') {
          const end = scanString(text, i);
          if (typeof end !== 'number') return end;
          i = end;
          expect = 'after';
        } else if (ch === '-' || (ch >= '0' && ch <= '9')) {
          NUMBER.lastIndex = i;
          if (!NUMBER.test(text)) return { offset: i, reason: 'invalid number' };
          i = NUMBER.lastIndex;
          if (text[i] !== undefined && /[0-9.eE+-]/.test(text[i]!)) {
            return { offset: i, reason: 'invalid number (no leading zeros, digits needed after "." and "e")' };
          }
          expect = 'after';
        } else {
          const literal = ['true', 'false', 'null'].find((word) => text.startsWith(word, i));
          if (!literal) return { offset: i, reason: unexpectedValue(ch) };
          i += literal.length;
          expect = 'after';
        }
        break;
      }
      case 'first-key':
      case 'key': {
        if (ch === '}' && expect === 'first-key') {
          closers.pop();
          expect = 'after';
          i++;
          break;
        }
        if (ch === '}') return { offset: i, reason: 'trailing commas are not allowed in JSON' };
        if (ch !== '"') return { offset: i, reason: `expected a property name in double quotes, found ${show(ch)}` };
        const end = scanString(text, i);
        if (typeof end !== 'number') return end;
        i = end;
        expect = 'colon';
        break;
      }
      case 'colon':
        if (ch !== ':') return { offset: i, reason: `expected ":" after the property name, found ${show(ch)}` };
        i++;
        expect = 'value';
        break;
      case 'after':
        if (close === undefined) return { offset: i, reason: `unexpected ${show(ch)} after the end of the JSON value` };
        if (ch === ',') expect = close === '}' ? 'key' : 'value';
        else if (ch === close) closers.pop();
        else return { offset: i, reason: `expected "," or "${close}", found ${show(ch)}` };
        i++;
        break;
    }
  }
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

function scanString(text: string, start: number): number | { offset: number; reason: string } {
  let i = start + 1;
  for (;;) {
    const ch = text[i];
    if (ch === undefined) return { offset: start, reason: 'this string is never closed' };
    if (ch === '"') return i + 1;
    if (ch < ' ') return { offset: i, reason: 'control characters such as newlines and tabs must be escaped in strings' };
    if (ch === '\\') {
      const next = text[i + 1];
      if (next === 'u') {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
          return { offset: i, reason: '"\\u" must be followed by four hex digits' };
        }
        i += 6;
        continue;
      }
      if (next === undefined || !'"\\/bfnrt'.includes(next)) return { offset: i, reason: 'invalid escape sequence' };
      i += 2;
      continue;
    }
    i++;
  }
}

function unexpectedValue(ch: string): string {
  if (ch === "'") return 'strings must use double quotes, not single quotes';
  if (ch === '/') return 'JSON does not allow comments';
  if (ch === ']') return 'trailing commas are not allowed in JSON';
  return `expected a value, found ${show(ch)}`;
}

function show(ch: string): string {
  return JSON.stringify(ch);
}

/** Parses `$.a.b[0]["key"][-1]` into segments; a syntax error names the position. */
export function parsePath(path: string): Segment[] {
  const source = path.trim();
  const segments: Segment[] = [];
  let i = source.startsWith('$') ? 1 : 0;
  const fail = (reason: string): never => {
    throw new ToolError('INVALID_PATH', `Invalid path "${path}" at character ${i + 1}: ${reason}.`, {
      path,
      position: i + 1,
    });
  };
  while (i < source.length) {
    const ch = source[i];
    if (ch === '[') {
      i++;
      const quote = source[i];
      if (quote === '"' || quote === "'") {
        let key = '';
        i++;
        while (source[i] !== quote) {
          if (i >= source.length) fail(`the quoted key is never closed with ${quote}`);
          if (source[i] === '\\') i++;
          key += source[i] ?? '';
          i++;
        }
        i++;
        segments.push({ kind: 'key', key });
      } else {
        const digits = /^-?\d+/.exec(source.slice(i))?.[0];
        if (!digits) fail('expected an index such as [0] or [-1], or a quoted key such as ["name"]');
        i += digits!.length;
        segments.push({ kind: 'index', index: Number(digits) });
      }
      if (source[i] !== ']') fail('expected "]"');
      i++;
    } else {
      if (ch === '.') i++;
      else if (segments.length > 0 || i > 0) fail('expected "." or "[" between path parts');
      const start = i;
      while (i < source.length && source[i] !== '.' && source[i] !== '[' && source[i] !== ']') i++;
      if (i === start) fail('expected a key name');
      segments.push({ kind: 'key', key: source.slice(start, i) });
    }
  }
  return segments;
}

function select(root: unknown, segments: Segment[], path: string): unknown {
  let value = root;
  // The part of the path walked so far, as messages show it ("users[0].name"; "$" for the root).
  let walked = '';
  for (const segment of segments) {
    const at = walked || '$';
    const missing = (reason: string): never => {
      throw new ToolError('PATH_NOT_FOUND', `No value at "${path}": ${reason}`, { path, at });
    };
    if (Array.isArray(value)) {
      const index = segment.kind === 'index' ? segment.index : /^-?\d+$/.test(segment.key) ? Number(segment.key) : NaN;
      if (Number.isNaN(index)) {
        missing(`${at} is an array (${itemCount(value.length)}); use an index such as ${at}[0]`);
      }
      const position = index < 0 ? value.length + index : index;
      if (position < 0 || position >= value.length) missing(`${at} has ${itemCount(value.length)}`);
      value = value[position];
      walked += `[${index}]`;
    } else if (value !== null && typeof value === 'object') {
      const key = segment.kind === 'key' ? segment.key : String(segment.index);
      // Security: own properties only — "__proto__" or "constructor" must never reach Object.prototype.
      if (!Object.hasOwn(value, key)) {
        const keys = Object.keys(value);
        const hint = keys.length ? `; its keys are ${listKeys(keys)}` : '; it is empty';
        missing(`${at} has no key ${JSON.stringify(key)}${hint}`);
      }
      value = (value as Record<string, unknown>)[key];
      const plain = /^[A-Za-z_$][\w$]*$/.test(key);
      walked += plain ? `${walked ? '.' : ''}${key}` : `[${JSON.stringify(key)}]`;
    } else {
      missing(`${at} is ${jsonType(value) === 'null' ? 'null' : `a ${jsonType(value)}`}, not an object or array`);
    }
  }
  return value;
}

function itemCount(n: number): string {
  return n === 1 ? '1 item' : `${n} items`;
}

function listKeys(keys: string[]): string {
  const shown = keys.slice(0, 20).map((key) => JSON.stringify(key));
  return shown.join(', ') + (keys.length > 20 ? ` and ${keys.length - 20} more` : '');
}

function nestsDeeperThan(root: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[root, 0]];
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return false;
}

import { isPlainObject } from '../../../util/json.js';
import { normalizeArguments, parseArguments, tryParseJson } from './json-args.js';
import { objectArrayItems, scanBalanced, scanString } from './json-scan.js';

/** A call read from a JSON object such as {"name": "get_time", "arguments": {…}}. */
export interface JsonCall {
  name: string;
  arguments: unknown;
  /** The object had an "arguments" or "parameters" key (a bare JSON object needs one to count as a call). */
  hasArguments: boolean;
  /** The object had no keys but name, arguments/parameters, type and id (a fenced object without arguments). */
  onlyCallKeys: boolean;
}

const CALL_KEYS = new Set(['name', 'arguments', 'parameters', 'type', 'id']);

/**
 * Reads a call from the text of one JSON object. When the object does not parse (small models write trailing
 * commas, single quotes), the arguments are kept as written and the name is still read; no name, no call.
 */
export function readJsonCall(text: string): JsonCall | undefined {
  const parsed = tryParseJson(text);
  return parsed ? callFromValue(parsed.value) : callFromBrokenText(text);
}

/** Reads the calls from a JSON object or an array of them; undefined unless every element is a call. */
export function readJsonCalls(text: string): JsonCall[] | undefined {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    const call = readJsonCall(trimmed);
    return call && [call];
  }
  if (!trimmed.startsWith('[')) return undefined;
  const parsed = tryParseJson(trimmed);
  const calls = parsed
    ? Array.isArray(parsed.value)
      ? parsed.value.map(callFromValue)
      : []
    : (() => {
        const array = objectArrayItems(trimmed, 0);
        return array && array.end === trimmed.length ? array.items.map(([s, e]) => readJsonCall(trimmed.slice(s, e))) : [];
      })();
  if (calls.length === 0 || calls.some((c) => c === undefined)) return undefined;
  return calls as JsonCall[];
}

/** A call from a parsed value; also the {"type": "function", "function": {"name", …}} wrapping. */
export function callFromValue(value: unknown): JsonCall | undefined {
  if (!isPlainObject(value)) return undefined;
  const call = typeof value.name !== 'string' && isPlainObject(value.function) ? value.function : value;
  if (typeof call.name !== 'string') return undefined;
  const key = Object.hasOwn(call, 'arguments') ? 'arguments' : Object.hasOwn(call, 'parameters') ? 'parameters' : undefined;
  if (isDeclaration(call, key)) return undefined;
  return {
    name: call.name,
    arguments: normalizeArguments(key && call[key]),
    hasArguments: key !== undefined,
    onlyCallKeys: call === value && Object.keys(value).every((k) => CALL_KEYS.has(k)),
  };
}

/**
 * A tool's declaration, as a user asks to see one or a model quotes its instructions: a description beside the name,
 * or a JSON Schema where the arguments would be. Never a call.
 */
function isDeclaration(call: Record<string, unknown>, key: 'arguments' | 'parameters' | undefined): boolean {
  if (Object.hasOwn(call, 'description')) return true;
  const args = key === undefined ? undefined : call[key];
  return isPlainObject(args) && args.type === 'object' && isPlainObject(args.properties);
}

const ARGUMENTS_KEY = /(["'])(?:arguments|parameters)\1\s*:\s*/;
const NAME_KEY = /(["'])name\1\s*:\s*(["'])((?:\\.|(?!\2)[^\\\n])*)\2/;
const ANY_OTHER_KEY = /(["'])(?!name\1|arguments\1|parameters\1|type\1|id\1)[^"'\n]*\1\s*:/;

/**
 * Broken JSON: the arguments value is cut out first (so a "name" inside the arguments is not taken for the tool's),
 * then the name is looked for in what remains.
 */
function callFromBrokenText(text: string): JsonCall | undefined {
  let rest = text;
  let args: unknown = {};
  const key = ARGUMENTS_KEY.exec(text);
  if (key) {
    const valueStart = key.index + key[0].length;
    const { raw, end } = valueAt(text, valueStart);
    args = raw.startsWith('"') || raw.startsWith("'") ? parseArguments(unquote(raw)) : parseArguments(raw);
    rest = text.slice(0, key.index) + text.slice(end);
  }
  const name = NAME_KEY.exec(rest);
  if (!name) return undefined;
  return { name: name[3]!, arguments: args, hasArguments: key !== null, onlyCallKeys: !ANY_OTHER_KEY.test(rest) };
}

/** The value written at `start`: a balanced object/array or a quoted string, else up to the object's end. */
function valueAt(text: string, start: number): { raw: string; end: number } {
  const end = scanBalanced(text, start) ?? scanString(text, start);
  if (end !== undefined) return { raw: text.slice(start, end), end };
  // Never closes: everything up to the outer object's closing brace.
  const raw = text.slice(start).replace(/\s*\}\s*$/, '');
  return { raw, end: start + raw.length };
}

/** The content of a quoted string, with JSON escapes decoded where they are valid. */
function unquote(quoted: string): string {
  const inner = quoted.slice(1, -1);
  if (quoted.startsWith('"')) {
    try {
      return JSON.parse(quoted) as string;
    } catch {
      return inner;
    }
  }
  return inner;
}

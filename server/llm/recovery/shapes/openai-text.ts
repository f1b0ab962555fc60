// Any model that echoes the OpenAI wire format as text, bare or in a JSON fence:
//   {"tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_time", "arguments": "{\"timezone\": \"UTC\"}"}}]}
// "arguments" is a JSON string there, but an object is also seen; the whole assistant message
// ({"role": "assistant", "content": null, "tool_calls": […]}) too, and flat items without the "function" wrapper:
//   {"tool_calls": [{"name": "get_time", "arguments": {"timezone": "UTC"}}]}
import type { RecoveredCall } from '../types.js';
import { isPlainObject } from '../../../util/json.js';
import { findFences } from './fences.js';
import { JSON_FENCE_TAGS } from './fenced-json.js';
import { tryParseJson } from './json-args.js';
import { callFromValue, readJsonCall, type JsonCall } from './json-call.js';
import { BalancedScanner, objectArrayItems, scanBalanced, skipSpace } from './json-scan.js';
import { allDefined, writtenCall, type ShapeMatch, type ShapeParser } from './shape.js';

const OBJECT_START = /\{\s*"(?:tool_calls|role)"\s*:/g;
const TOOL_CALLS_KEY = /"tool_calls"\s*:\s*/g;
const FUNCTION_KEY = /"function"\s*:\s*/;

export const openaiText: ShapeParser = {
  shape: 'openai-text',
  find(text) {
    if (!text.includes('"tool_calls"')) return [];
    const fences = findFences(text);
    const scanner = new BalancedScanner(text);
    const matches: ShapeMatch[] = [];
    for (const open of text.matchAll(OBJECT_START)) {
      const start = open.index;
      if (start < (matches.at(-1)?.end ?? 0)) continue;
      const end = scanner.end(start);
      const calls = end === undefined ? undefined : readToolCalls(text.slice(start, end));
      if (!calls || end === undefined) continue;
      // The fence it was written in goes with it.
      const fence = fences.find((f) => JSON_FENCE_TAGS.has(f.lang) && f.body.trim() === text.slice(start, end));
      matches.push({ start: fence?.start ?? start, end: fence?.end ?? end, calls });
    }
    return matches;
  },
};

function readToolCalls(objectText: string): RecoveredCall[] | undefined {
  const parsed = tryParseJson(objectText);
  const calls = parsed ? fromValue(parsed.value) : fromBrokenText(objectText);
  if (!calls || calls.length === 0 || !allDefined(calls)) return undefined;
  return calls.map((c) => writtenCall(c.name, c.arguments, 'openai-text'));
}

function fromValue(value: unknown): (JsonCall | undefined)[] | undefined {
  if (!isPlainObject(value) || !Array.isArray(value.tool_calls)) return undefined;
  // callFromValue unwraps {"function": {…}} itself, and reads a flat {"name", "arguments"} item as it is.
  return value.tool_calls.map((item) => callFromValue(item));
}

/** Broken JSON somewhere inside: each tool call's "function" object (or the flat item) is read on its own. */
function fromBrokenText(text: string): (JsonCall | undefined)[] | undefined {
  TOOL_CALLS_KEY.lastIndex = 0;
  const key = TOOL_CALLS_KEY.exec(text);
  const array = key && objectArrayItems(text, skipSpace(text, TOOL_CALLS_KEY.lastIndex));
  return array?.items.map(([s, e]) => {
    const item = text.slice(s, e);
    const fn = FUNCTION_KEY.exec(item);
    if (!fn) return readJsonCall(item);
    const fnStart = fn.index + fn[0].length;
    const fnEnd = scanBalanced(item, fnStart);
    return fnEnd === undefined ? undefined : readJsonCall(item.slice(fnStart, fnEnd));
  });
}

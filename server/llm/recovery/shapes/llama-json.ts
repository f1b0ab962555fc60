// Llama 3.1 / 3.2 / 3.3 JSON tool calling (their chat templates ask for exactly this, as the whole reply):
//   {"name": "get_time", "parameters": {"timezone": "Asia/Tokyo"}}
// "arguments" is also seen, and {"type": "function", "name": …, "parameters": …}; several calls are separated by
// `;` or line breaks, or written as a JSON list [{…}, {…}]. Small models also put the object after prose on the same
// line (`Sure! {"name": …}`). A bare object is ambiguous (a user may ask for JSON), so it counts only with a name that
// resolves, an "arguments"/"parameters" key and no sign of being a tool's declaration (json-call.ts), outside code
// fences. An object nested in another bracket that opens like JSON is never a call of its own. A trailing
// <|eot_id|> / <|eom_id|> left in the text goes with it.
import type { NameResolver } from '../types.js';
import { findFences } from './fences.js';
import { readJsonCall, type JsonCall } from './json-call.js';
import { BalancedScanner, objectArrayItems } from './json-scan.js';
import { writtenCall, type ShapeMatch, type ShapeParser } from './shape.js';
import { pastEndToken, within } from './text-pos.js';

/**
 * Where a JSON call (or a list of them) may start: a `{` whose first key is quoted, or a `[` holding such an object.
 * The stream gate holds exactly these mid-line (stream-gate.ts).
 */
const OBJECT_OPEN = /\{\s*["']/y;
const LIST_OPEN = /\[\s*\{\s*["']/y;
const BRACKET = /[[{]/g;

export const llamaJson: ShapeParser = {
  shape: 'llama-json',
  find(text, resolve) {
    if (!text.includes('"') && !text.includes("'")) return [];
    const fences = findFences(text);
    const scanner = new BalancedScanner(text);
    const matches: ShapeMatch[] = [];
    let after = 0;
    for (const bracket of text.matchAll(BRACKET)) {
      const start = bracket.index;
      if (start < after || !opensJson(text, start) || within(fences, start)) continue;
      const read = text[start] === '{' ? readChain(scanner, start, resolve) : readList(scanner, start, resolve);
      // Objects nested in this one are never calls of their own.
      after = read.end ?? after;
      if (read.calls && read.end !== undefined) {
        matches.push({ start, end: pastEndToken(text, read.end), calls: read.calls.map((c) => writtenCall(c.name, c.arguments, 'llama-json')) });
      }
    }
    return matches;
  },
};

function opensJson(text: string, i: number): boolean {
  const pattern = text[i] === '{' ? OBJECT_OPEN : LIST_OPEN;
  pattern.lastIndex = i;
  return pattern.test(text);
}

/** A call when the object is one: a name that resolves and an arguments key. */
function callIn(text: string, resolve: NameResolver): JsonCall | undefined {
  const call = readJsonCall(text);
  return call && call.hasArguments && resolve(call.name.trim()) !== undefined ? call : undefined;
}

/**
 * Objects joined by `;` from `start`: the calls when every one is a call, and where the chain (or the first
 * balanced object) ends.
 */
function readChain(scanner: BalancedScanner, start: number, resolve: NameResolver): { calls?: JsonCall[]; end?: number } {
  const { text } = scanner;
  const calls: JsonCall[] = [];
  let i = start;
  let end: number | undefined;
  for (;;) {
    const objectEnd = scanner.end(i);
    if (objectEnd === undefined) return { end };
    end = objectEnd;
    const call = callIn(text.slice(i, objectEnd), resolve);
    if (!call) return { end };
    calls.push(call);
    const separator = /^[ \t]*;[ \t]*(\r?\n[ \t]*)?/.exec(text.slice(objectEnd, objectEnd + 64));
    if (!separator || text[objectEnd + separator[0].length] !== '{') {
      // A trailing `;` after the last call belongs to the markup.
      return { calls, end: separator ? objectEnd + separator[0].trimEnd().length : objectEnd };
    }
    i = objectEnd + separator[0].length;
  }
}

/** A JSON list of calls from `start`: the calls when every item is one, and where the list ends. */
function readList(scanner: BalancedScanner, start: number, resolve: NameResolver): { calls?: JsonCall[]; end?: number } {
  const { text } = scanner;
  const end = scanner.end(start);
  if (end === undefined) return {};
  const items = objectArrayItems(text, start);
  if (!items || items.end !== end || items.items.length === 0) return { end };
  const calls: JsonCall[] = [];
  for (const [s, e] of items.items) {
    const call = callIn(text.slice(s, e), resolve);
    if (!call) return { end };
    calls.push(call);
  }
  return { calls, end };
}

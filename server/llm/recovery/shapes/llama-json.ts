// Llama 3.1 / 3.2 / 3.3 JSON tool calling (their chat templates ask for exactly this, as the whole reply):
//   {"name": "get_time", "parameters": {"timezone": "Asia/Tokyo"}}
// "arguments" is also seen, and {"type": "function", "name": …, "parameters": …}; several calls are separated by
// `;` or line breaks. A bare object is ambiguous (a user may ask for JSON), so it counts only with a name that
// resolves and an "arguments"/"parameters" key, on lines of its own, outside code fences. A trailing
// <|eot_id|> / <|eom_id|> left in the text goes with it.
import type { NameResolver } from '../types.js';
import { findFences } from './fences.js';
import { readJsonCall, type JsonCall } from './json-call.js';
import { BalancedScanner } from './json-scan.js';
import { writtenCall, type ShapeMatch, type ShapeParser } from './shape.js';
import { endsLine, lineOpenings, pastEndToken, within } from './text-pos.js';

export const llamaJson: ShapeParser = {
  shape: 'llama-json',
  find(text, resolve) {
    const fences = findFences(text);
    const scanner = new BalancedScanner(text);
    const matches: ShapeMatch[] = [];
    let after = 0;
    for (const start of lineOpenings(text, '{')) {
      if (start < after || within(fences, start)) continue;
      const chain = readChain(scanner, start, resolve);
      // Objects nested in this one are never calls of their own.
      after = chain.end ?? after;
      const end = chain.end === undefined ? undefined : pastEndToken(text, chain.end);
      if (chain.calls && end !== undefined && endsLine(text, end)) {
        matches.push({ start, end, calls: chain.calls.map((c) => writtenCall(c.name, c.arguments, 'llama-json')) });
      }
    }
    return matches;
  },
};

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
    const call = readJsonCall(text.slice(i, objectEnd));
    if (!call || !call.hasArguments || resolve(call.name.trim()) === undefined) return { end };
    calls.push(call);
    const separator = /^[ \t]*;[ \t]*(\r?\n[ \t]*)?/.exec(text.slice(objectEnd, objectEnd + 64));
    if (!separator || text[objectEnd + separator[0].length] !== '{') {
      // A trailing `;` after the last call belongs to the markup.
      return { calls, end: separator ? objectEnd + separator[0].trimEnd().length : objectEnd };
    }
    i = objectEnd + separator[0].length;
  }
}

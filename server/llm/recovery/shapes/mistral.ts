// Mistral, Mixtral, Mistral-Nemo (their chat templates): a JSON list after the [TOOL_CALLS] token,
//   [TOOL_CALLS][{"name": "get_time", "arguments": {"timezone": "UTC"}, "id": "a1b2c3d4e"}]
// and the newer (v11+) template's shape, one token per call: [TOOL_CALLS]get_time[ARGS]{"timezone": "UTC"}
// (some versions put [CALL_ID]id before [ARGS]; some drop [ARGS], the object right after the name:
// [TOOL_CALLS]get_time{"timezone": "UTC"}).
import type { RecoveredCall } from '../types.js';
import { readJsonCalls } from './json-call.js';
import { parseArguments } from './json-args.js';
import { BalancedScanner, skipSpace } from './json-scan.js';
import { writtenCall, type ShapeMatch, type ShapeParser } from './shape.js';

const TAG = '[TOOL_CALLS]';
const NAMED = /\s*([^\s[\]{}"']+)\s*(?:(?:\[CALL_ID\]\s*[^\s[]*\s*)?\[ARGS\]\s*|(?=\{))/y;
/** The end-of-sequence token some servers leave in the text. */
const EOS = /^\s*<\/s>/;

export const mistral: ShapeParser = {
  shape: 'mistral',
  find(text) {
    const matches: ShapeMatch[] = [];
    const scanner = new BalancedScanner(text);
    for (let start = text.indexOf(TAG); start !== -1; start = text.indexOf(TAG, start + 1)) {
      const read = readAfterTag(scanner, start + TAG.length);
      if (!read) continue;
      const eos = EOS.exec(text.slice(read.end));
      matches.push({ start, end: read.end + (eos ? eos[0].length : 0), calls: read.calls });
    }
    return matches;
  },
};

function readAfterTag(scanner: BalancedScanner, i: number): { calls: RecoveredCall[]; end: number } | undefined {
  const { text } = scanner;
  const valueStart = skipSpace(text, i);
  if (text[valueStart] === '[' || text[valueStart] === '{') {
    const end = scanner.end(valueStart);
    const calls = end === undefined ? undefined : readJsonCalls(text.slice(valueStart, end));
    return calls && end !== undefined ? { calls: calls.map((c) => writtenCall(c.name, c.arguments, 'mistral')), end } : undefined;
  }
  NAMED.lastIndex = i;
  const named = NAMED.exec(text);
  if (!named) return undefined;
  const argsStart = NAMED.lastIndex;
  let argsEnd = text[argsStart] === '{' ? scanner.end(argsStart) : undefined;
  if (argsEnd === undefined) {
    // Broken arguments: up to the next call or the end of the reply, kept as written.
    const next = text.indexOf(TAG, argsStart);
    argsEnd = next === -1 ? text.length : next;
    if (text[argsStart] !== '{') return undefined;
  }
  const raw = text.slice(argsStart, argsEnd).replace(/<\/s>\s*$/, '');
  return { calls: [writtenCall(named[1]!, parseArguments(raw), 'mistral')], end: argsEnd };
}

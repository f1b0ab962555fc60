// Hermes 2/3, Qwen 2.5 and Qwen3 (their chat templates):
//   <tool_call>
//   {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}
//   </tool_call>
// One block per call; "parameters" for "arguments" also seen; a reply may end before its last </tool_call>. Some
// models put several calls in one block, as objects one after the other or as a JSON list:
//   <tool_call>
//   [{"name": "get_time", "arguments": {…}}, {"name": "calculate", "arguments": {…}}]
//   </tool_call>
// and the plural wrapper <tool_calls>[…]</tool_calls> is also seen.
import { readJsonCall, readJsonCalls, type JsonCall } from './json-call.js';
import { BalancedScanner, skipSpace } from './json-scan.js';
import { NextMatch } from './next-match.js';
import { writtenCall, type ShapeMatch, type ShapeParser } from './shape.js';
import { TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from './tool-call-tag.js';

const TAGS = [
  { open: TOOL_CALL_OPEN, close: TOOL_CALL_CLOSE },
  { open: '<tool_calls>', close: '</tool_calls>' },
];

export const hermes: ShapeParser = {
  shape: 'hermes',
  find(text) {
    const scanner = new BalancedScanner(text);
    const matches: ShapeMatch[] = [];
    for (const tag of TAGS) {
      const markers = { close: new NextMatch(text, tag.close), open: new NextMatch(text, tag.open), closeTag: tag.close };
      let after = 0;
      for (let start = text.indexOf(tag.open); start !== -1; start = text.indexOf(tag.open, start + 1)) {
        if (start < after) continue;
        const found = readBlock(scanner, markers, skipSpace(text, start + tag.open.length));
        const calls = found && readValues(text, found.values);
        if (!found || !calls) continue;
        matches.push({ start, end: found.end, calls: calls.map((c) => writtenCall(c.name, c.arguments, 'hermes')) });
        after = found.end;
      }
    }
    return matches;
  },
};

/** The calls in the JSON values (objects, or lists of them); undefined unless every value holds only calls. */
function readValues(text: string, values: readonly [number, number][]): JsonCall[] | undefined {
  const calls: JsonCall[] = [];
  for (const [s, e] of values) {
    const value = text.slice(s, e).trimEnd();
    const read = value.startsWith('[') ? readJsonCalls(value) : [readJsonCall(value)];
    if (!read || read.some((c) => c === undefined)) return undefined;
    calls.push(...(read as JsonCall[]));
  }
  return calls.length > 0 ? calls : undefined;
}

/** The JSON values in a block whose body starts at `i`, and where the block ends. */
function readBlock(
  scanner: BalancedScanner,
  markers: { close: NextMatch; open: NextMatch; closeTag: string },
  i: number,
): { values: [number, number][]; end: number } | undefined {
  const { text } = scanner;
  if (text[i] !== '{' && text[i] !== '[') return undefined;
  // Usually one object; some models put several in one block.
  const values: [number, number][] = [];
  let j = i;
  while (text[j] === '{' || text[j] === '[') {
    const end = scanner.end(j);
    if (end === undefined) break;
    values.push([j, end]);
    j = skipSpace(text, end);
  }
  const end = values.length > 0 ? closeAt(text, values.at(-1)![1], markers.closeTag) : undefined;
  if (end !== undefined) return { values, end };
  // Unbalanced brackets (broken JSON): the whole body up to the closing tag, read leniently; never into the next block.
  const closing = markers.close.from(i);
  const bodyEnd = closing?.index ?? text.length;
  if (markers.open.indexFrom(i, text.length) < bodyEnd) return undefined;
  return { values: [[i, bodyEnd]], end: closing ? closing.index + closing.length : text.length };
}

/**
 * Just past the closing tag at `i` (after whitespace); the end of the text when only whitespace is left (a reply
 * may stop before its last closing tag); else undefined.
 */
function closeAt(text: string, i: number, closeTag: string): number | undefined {
  const j = skipSpace(text, i);
  if (j === text.length) return j;
  return text.startsWith(closeTag, j) ? j + closeTag.length : undefined;
}

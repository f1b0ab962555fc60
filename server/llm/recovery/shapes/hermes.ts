// Hermes 2/3, Qwen 2.5 and Qwen3 (their chat templates):
//   <tool_call>
//   {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}
//   </tool_call>
// One block per call; "parameters" for "arguments" also seen; a reply may end before its last </tool_call>.
import { readJsonCall } from './json-call.js';
import { BalancedScanner, skipSpace } from './json-scan.js';
import { NextMatch } from './next-match.js';
import { allDefined, writtenCall, type ShapeMatch, type ShapeParser } from './shape.js';
import { closeAt, TOOL_CALL_CLOSE, TOOL_CALL_OPEN, toolCallOpeners } from './tool-call-tag.js';

export const hermes: ShapeParser = {
  shape: 'hermes',
  find(text) {
    const scanner = new BalancedScanner(text);
    const markers = { close: new NextMatch(text, TOOL_CALL_CLOSE), open: new NextMatch(text, TOOL_CALL_OPEN) };
    const matches: ShapeMatch[] = [];
    let after = 0;
    for (const { start, bodyStart } of toolCallOpeners(text)) {
      if (start < after) continue;
      const found = readBlock(scanner, markers, skipSpace(text, bodyStart));
      if (!found) continue;
      const calls = found.objects.map(([s, e]) => readJsonCall(text.slice(s, e).trimEnd()));
      if (calls.length === 0 || !allDefined(calls)) continue;
      matches.push({ start, end: found.end, calls: calls.map((c) => writtenCall(c.name, c.arguments, 'hermes')) });
      after = found.end;
    }
    return matches;
  },
};

/** The JSON objects in a block whose body starts at `i`, and where the block ends. */
function readBlock(
  scanner: BalancedScanner,
  markers: { close: NextMatch; open: NextMatch },
  i: number,
): { objects: [number, number][]; end: number } | undefined {
  const { text } = scanner;
  if (text[i] !== '{') return undefined;
  // Usually one object; some models put several in one block.
  const objects: [number, number][] = [];
  let j = i;
  while (text[j] === '{') {
    const end = scanner.end(j);
    if (end === undefined) break;
    objects.push([j, end]);
    j = skipSpace(text, end);
  }
  const end = objects.length > 0 ? closeAt(text, objects.at(-1)![1]) : undefined;
  if (end !== undefined) return { objects, end };
  // Unbalanced braces (broken JSON): the whole body up to </tool_call>, read leniently; never into the next block.
  const closing = markers.close.from(i);
  const bodyEnd = closing?.index ?? text.length;
  if (markers.open.indexFrom(i, text.length) < bodyEnd) return undefined;
  return { objects: [[i, bodyEnd]], end: closing ? closing.index + closing.length : text.length };
}

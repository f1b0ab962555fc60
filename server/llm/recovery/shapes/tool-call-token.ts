// Phi-4-mini and Granite 3.x (their chat templates): a JSON list of calls after the <|tool_call|> token,
//   <|tool_call|>[{"name": "get_time", "arguments": {"timezone": "UTC"}}]<|/tool_call|>
// Phi-4-mini closes it with <|/tool_call|>; Granite writes no closing token (the call ends its reply). A single object
// in place of the list is also seen.
import { readJsonCalls } from './json-call.js';
import { BalancedScanner, skipSpace } from './json-scan.js';
import { NextMatch } from './next-match.js';
import { writtenCall, type ShapeMatch, type ShapeParser } from './shape.js';

const OPEN = '<|tool_call|>';
const CLOSE = '<|/tool_call|>';

export const toolCallToken: ShapeParser = {
  shape: 'tool-call-token',
  find(text) {
    if (!text.includes(OPEN)) return [];
    const scanner = new BalancedScanner(text);
    const closes = new NextMatch(text, CLOSE);
    const opens = new NextMatch(text, OPEN);
    const matches: ShapeMatch[] = [];
    for (let start = text.indexOf(OPEN); start !== -1; start = text.indexOf(OPEN, start + 1)) {
      if (start < (matches.at(-1)?.end ?? 0)) continue;
      const bodyStart = skipSpace(text, start + OPEN.length);
      if (text[bodyStart] !== '[' && text[bodyStart] !== '{') continue;
      const valueEnd = scanner.end(bodyStart);
      let bodyEnd: number;
      let end: number;
      if (valueEnd !== undefined) {
        const after = skipSpace(text, valueEnd);
        [bodyEnd, end] = [valueEnd, text.startsWith(CLOSE, after) ? after + CLOSE.length : valueEnd];
      } else {
        // Broken JSON: up to the closing token or the end of the reply, read leniently; never into the next call.
        const close = closes.indexFrom(bodyStart, text.length);
        if (opens.indexFrom(bodyStart, text.length) < close) continue;
        [bodyEnd, end] = [close, close === text.length ? close : close + CLOSE.length];
      }
      const calls = readJsonCalls(text.slice(bodyStart, bodyEnd));
      if (calls) matches.push({ start, end, calls: calls.map((c) => writtenCall(c.name, c.arguments, 'tool-call-token')) });
    }
    return matches;
  },
};

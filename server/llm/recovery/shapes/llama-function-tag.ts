// Llama 3.1 custom tool format (the format its model card asks for in the system prompt):
//   <function=get_time>{"timezone": "UTC"}</function>
import { parseArguments } from './json-args.js';
import { BalancedScanner, skipSpace } from './json-scan.js';
import { NextMatch } from './next-match.js';
import { writtenCall, type ShapeMatch, type ShapeParser } from './shape.js';

const OPEN = /<function=([^>\s]+)>/g;
const CLOSE = '</function>';

export const llamaFunctionTag: ShapeParser = {
  shape: 'llama-function-tag',
  find(text) {
    if (!text.includes('<function=')) return [];
    const scanner = new BalancedScanner(text);
    const closes = new NextMatch(text, CLOSE);
    const matches: ShapeMatch[] = [];
    for (const open of text.matchAll(OPEN)) {
      if (open.index < (matches.at(-1)?.end ?? 0)) continue;
      const bodyStart = skipSpace(text, open.index + open[0].length);
      // A JSON object, or nothing for no arguments; the <parameter=…> body is Qwen3-Coder's shape.
      const balanced = text[bodyStart] === '{' ? scanner.end(bodyStart) : text.startsWith(CLOSE, bodyStart) ? bodyStart : undefined;
      const afterObject = balanced === undefined ? undefined : skipSpace(text, balanced);
      let bodyEnd: number;
      let end: number;
      if (afterObject !== undefined && text.startsWith(CLOSE, afterObject)) {
        [bodyEnd, end] = [afterObject, afterObject + CLOSE.length];
      } else if (afterObject === text.length) {
        // A reply may stop before </function>, with the object complete.
        [bodyEnd, end] = [text.length, text.length];
      } else if (text[bodyStart] === '{' && balanced === undefined) {
        // Broken JSON: up to </function>, kept as written.
        const close = closes.indexFrom(bodyStart, -1);
        if (close === -1 || text.lastIndexOf('<function=', close) !== open.index) continue;
        [bodyEnd, end] = [close, close + CLOSE.length];
      } else continue;
      matches.push({ start: open.index, end, calls: [writtenCall(open[1]!, parseArguments(text.slice(bodyStart, bodyEnd)), 'llama-function-tag')] });
    }
    return matches;
  },
};

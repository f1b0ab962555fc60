// Llama 3.1 (its chat template): a call after the <|python_tag|> token, ending at <|eom_id|> or <|eot_id|>:
//   <|python_tag|>{"name": "get_time", "parameters": {"timezone": "UTC"}}<|eom_id|>
// several JSON calls may be separated by `;`; a pythonic call is also seen: <|python_tag|>get_time(timezone="UTC").
// The whole text after the tag must be calls: code for the interpreter (print("hi")) stays text.
import type { RecoveredCall } from '../types.js';
import { readJsonCall } from './json-call.js';
import { scanBalanced } from './json-scan.js';
import { NextMatch } from './next-match.js';
import { readPythonCallBody } from './python-calls.js';
import { allDefined, writtenCall, type ShapeMatch, type ShapeParser } from './shape.js';

const TAG = '<|python_tag|>';
const END = /<\|eom_id\|>|<\|eot_id\|>/;

export const llamaPythonTag: ShapeParser = {
  shape: 'llama-python-tag',
  find(text) {
    const matches: ShapeMatch[] = [];
    const ends = new NextMatch(text, END);
    for (let start = text.indexOf(TAG); start !== -1; start = text.indexOf(TAG, start + 1)) {
      const bodyStart = start + TAG.length;
      const endToken = ends.from(bodyStart);
      const nextTag = text.indexOf(TAG, bodyStart);
      let bodyEnd = endToken ? endToken.index : text.length;
      if (nextTag !== -1 && nextTag < bodyEnd) bodyEnd = nextTag;
      const calls = readBody(text.slice(bodyStart, bodyEnd));
      if (!calls) continue;
      const end = endToken && endToken.index === bodyEnd ? bodyEnd + endToken.length : bodyEnd;
      matches.push({ start, end, calls });
    }
    return matches;
  },
};

function readBody(body: string): RecoveredCall[] | undefined {
  const trimmed = body.trim();
  if (!trimmed.startsWith('{')) {
    return readPythonCallBody(trimmed, false)?.map((c) => writtenCall(c.name, c.arguments, 'llama-python-tag'));
  }
  // JSON objects separated by `;` (or line breaks).
  const objects: string[] = [];
  let i = 0;
  while (i < trimmed.length) {
    const end = scanBalanced(trimmed, i);
    if (end === undefined) return undefined;
    objects.push(trimmed.slice(i, end));
    i = end + (/^[\s;]*/.exec(trimmed.slice(end))?.[0].length ?? 0);
    if (i < trimmed.length && trimmed[i] !== '{') return undefined;
  }
  const calls = objects.map(readJsonCall);
  return allDefined(calls) ? calls.map((c) => writtenCall(c.name, c.arguments, 'llama-python-tag')) : undefined;
}

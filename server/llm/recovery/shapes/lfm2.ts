// LFM2 (its chat template): a pythonic list between special tokens,
//   <|tool_call_start|>[get_time(timezone="UTC")]<|tool_call_end|>
// LFM2 may also put a JSON list there: <|tool_call_start|>[{"name": "get_time", "arguments": {…}}]<|tool_call_end|>
import type { RecoveredCall } from '../types.js';
import { readJsonCalls } from './json-call.js';
import { NextMatch } from './next-match.js';
import { readPythonCallBody } from './python-calls.js';
import { writtenCall, type ShapeMatch, type ShapeParser } from './shape.js';

const START = '<|tool_call_start|>';
const END = '<|tool_call_end|>';

export const lfm2: ShapeParser = {
  shape: 'lfm2',
  find(text) {
    const matches: ShapeMatch[] = [];
    const ends = new NextMatch(text, END);
    for (let start = text.indexOf(START); start !== -1; start = text.indexOf(START, start + 1)) {
      const bodyStart = start + START.length;
      const next = text.indexOf(START, bodyStart);
      const close = ends.indexFrom(bodyStart, -1);
      const closed = close !== -1 && (next === -1 || close < next);
      // A missing end token is tolerated at the end of the reply only.
      if (!closed && next !== -1) continue;
      const calls = readBody(text.slice(bodyStart, closed ? close : text.length));
      if (calls) matches.push({ start, end: closed ? close + END.length : text.length, calls });
    }
    return matches;
  },
};

function readBody(body: string): RecoveredCall[] | undefined {
  const trimmed = body.trim();
  const json = /^\[?\s*\{/.test(trimmed);
  const calls = json ? readJsonCalls(trimmed) : readPythonCallBody(trimmed, false);
  return calls?.map((c) => writtenCall(c.name, c.arguments, 'lfm2'));
}

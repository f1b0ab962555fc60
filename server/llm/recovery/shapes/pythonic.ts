// Llama 3.2 and Llama 4 (their chat templates ask for this, as the whole reply):
//   [get_time(timezone="Asia/Tokyo"), calculate(expression="2+2")]
// Counted as the reply or on a line of its own, outside code fences; keyword arguments only. A trailing
// <|eot_id|> / <|eom_id|> left in the text goes with it.
import { findFences } from './fences.js';
import { readPythonCallList } from './python-calls.js';
import { writtenCall, type ShapeMatch, type ShapeParser } from './shape.js';
import { endsLine, lineOpenings, pastEndToken, within } from './text-pos.js';

export const pythonic: ShapeParser = {
  shape: 'pythonic',
  find(text) {
    if (!text.includes('(')) return [];
    const fences = findFences(text);
    const matches: ShapeMatch[] = [];
    for (const start of lineOpenings(text, '[')) {
      if (start < (matches.at(-1)?.end ?? 0) || within(fences, start)) continue;
      const read = readPythonCallList(text, start);
      const end = read && pastEndToken(text, read.end);
      if (!read || end === undefined || !endsLine(text, end)) continue;
      matches.push({ start, end, calls: read.calls.map((c) => writtenCall(c.name, c.arguments, 'pythonic')) });
    }
    return matches;
  },
};

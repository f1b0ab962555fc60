// Llama 3.2 and Llama 4 (their chat templates ask for this, as the whole reply):
//   [get_time(timezone="Asia/Tokyo"), calculate(expression="2+2")]
// Counted where it ends a line (on a line of its own, or after prose: `Let me look. [get_time(…)]`), outside code
// fences; keyword arguments only. A trailing <|eot_id|> / <|eom_id|> left in the text goes with it.
// Small models also drop the brackets: bare calls, one per line (or `;`-separated), count when they are the WHOLE
// reply — `get_time(timezone="UTC")` — and never amid prose ("You can call get_time(…) yourself." stays text).
import { findFences } from './fences.js';
import { readPythonCallBody, readPythonCallList } from './python-calls.js';
import { writtenCall, type ShapeMatch, type ShapeParser } from './shape.js';
import { endsLine, pastEndToken, within } from './text-pos.js';

/** A list that may hold calls: `[` then a name and `(`. The stream gate holds these mid-line (stream-gate.ts). */
const CALL_LIST = /\[\s*[A-Za-z_][\w.]*\s*\(/g;
/**
 * A reply that may be bare calls: it opens (after whitespace) with a name directly followed by `(`. The stream gate
 * holds a reply opening this way to its end; recover.ts checks it before its markup fast path.
 */
export const BARE_CALL_START = /^\s*[A-Za-z_][\w.]*\(/;
const TRAILING_END_TOKEN = /\s*<\|(?:eot_id|eom_id)\|>\s*$/;

export const pythonic: ShapeParser = {
  shape: 'pythonic',
  find(text) {
    if (!text.includes('(')) return [];
    const bare = bareCalls(text);
    if (bare) return [bare];
    const fences = findFences(text);
    const matches: ShapeMatch[] = [];
    for (const open of text.matchAll(CALL_LIST)) {
      const start = open.index;
      if (start < (matches.at(-1)?.end ?? 0) || within(fences, start)) continue;
      const read = readPythonCallList(text, start);
      const end = read && pastEndToken(text, read.end);
      if (!read || end === undefined || !endsLine(text, end)) continue;
      matches.push({ start, end, calls: read.calls.map((c) => writtenCall(c.name, c.arguments, 'pythonic')) });
    }
    return matches;
  },
};

/** The whole reply as bare calls (or lists of calls), one statement per line or `;`. */
function bareCalls(text: string): ShapeMatch | undefined {
  if (!BARE_CALL_START.test(text)) return undefined;
  const start = text.length - text.trimStart().length;
  const end = text.trimEnd().length;
  const body = text.slice(start, end).replace(TRAILING_END_TOKEN, '');
  const calls = readPythonCallBody(body, false);
  return calls && { start, end, calls: calls.map((c) => writtenCall(c.name, c.arguments, 'pythonic')) };
}

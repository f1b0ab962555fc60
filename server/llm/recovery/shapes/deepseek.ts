// DeepSeek V3 / R1 (their chat templates), the arguments in a JSON fence after the name:
//   <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time
//   ```json
//   {"timezone": "UTC"}
//   ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>
// and DeepSeek V3.1's shape, the name before the separator:
//   <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{"timezone": "UTC"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>
// V3.1 also writes a single call without the outer tokens:
//   <｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{"timezone": "UTC"}<｜tool▁call▁end｜>
// The bars are U+FF5C and the spaces U+2581; some servers detokenise them to ASCII `|` and `_`.
import type { RecoveredCall } from '../types.js';
import { parseArguments } from './json-args.js';
import { skipSpace } from './json-scan.js';
import { NextMatch } from './next-match.js';
import { writtenCall, type ShapeMatch, type ShapeParser } from './shape.js';

/** A DeepSeek special token, either spelling. */
function token(words: string, flags: string): RegExp {
  return new RegExp(`<[｜|]${words.split(' ').join('[▁_]')}[｜|]>`, flags);
}

/** The calls opener, or a call opener standing without one. */
const OPENER = token('tool (calls?) begin', 'g');
const CALLS_END = token('tool calls end', 'y');
const CALL_BEGIN = token('tool call begin', 'y');
const CALL_END = token('tool call end', '');
/** Any call or calls opener: a call's content never runs into one. */
const CALL_BEGIN_ANYWHERE = token('tool calls? begin', '');
const SEP = token('tool sep', '');
const END_OF_SENTENCE = token('end of sentence', 'y');

export const deepseek: ShapeParser = {
  shape: 'deepseek',
  find(text) {
    if (!text.includes('tool')) return [];
    const markers = { callEnd: new NextMatch(text, CALL_END), callBegin: new NextMatch(text, CALL_BEGIN_ANYWHERE) };
    const matches: ShapeMatch[] = [];
    OPENER.lastIndex = 0;
    for (let begin = OPENER.exec(text); begin; begin = OPENER.exec(text)) {
      // After <｜tool▁calls▁begin｜> the calls follow; a bare <｜tool▁call▁begin｜> is the first call itself.
      const read = readCalls(text, begin[1] === 'calls' ? OPENER.lastIndex : begin.index, markers);
      if (!read) continue;
      matches.push({ start: begin.index, end: read.end, calls: read.calls });
      OPENER.lastIndex = read.end;
    }
    return matches;
  },
};

function readCalls(text: string, i: number, markers: { callEnd: NextMatch; callBegin: NextMatch }): { calls: RecoveredCall[]; end: number } | undefined {
  const calls: RecoveredCall[] = [];
  let end = i;
  for (;;) {
    CALL_BEGIN.lastIndex = skipSpace(text, end);
    if (!CALL_BEGIN.exec(text)) break;
    const contentStart = CALL_BEGIN.lastIndex;
    const callEnd = markers.callEnd.from(contentStart);
    const nextBegin = markers.callBegin.indexFrom(contentStart, text.length);
    // A reply cut before <｜tool▁call▁end｜> still holds its last call; a call running into the next is broken.
    const closed = callEnd !== undefined && callEnd.index < nextBegin;
    if (!closed && nextBegin < text.length) return undefined;
    const call = readCall(text.slice(contentStart, closed ? callEnd.index : text.length));
    if (!call) return undefined;
    calls.push(call);
    end = closed ? callEnd.index + callEnd.length : text.length;
  }
  if (calls.length === 0) return undefined;
  for (const closing of [CALLS_END, END_OF_SENTENCE]) {
    closing.lastIndex = skipSpace(text, end);
    if (closing.exec(text)) end = closing.lastIndex;
  }
  return { calls, end };
}

/** `function<sep>NAME\n```json …```` (V3 / R1) or `NAME<sep>{…}` (V3.1). */
function readCall(content: string): RecoveredCall | undefined {
  const sep = SEP.exec(content);
  if (!sep) return undefined;
  const before = content.slice(0, sep.index).trim();
  const after = content.slice(sep.index + sep[0].length);
  if (before === 'function') {
    const newline = after.search(/\r?\n|```/);
    const name = (newline === -1 ? after : after.slice(0, newline)).trim();
    const fenced = newline === -1 ? '' : after.slice(newline);
    const body = /^\s*```[\w-]*\s*([\s\S]*?)\s*(?:```\s*)?$/.exec(fenced)?.[1] ?? fenced;
    return name ? writtenCall(name, parseArguments(body), 'deepseek') : undefined;
  }
  return before ? writtenCall(before, parseArguments(after), 'deepseek') : undefined;
}

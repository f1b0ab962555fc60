// Qwen3-Coder (its chat template):
//   <tool_call>
//   <function=get_time>
//   <parameter=timezone>
//   Asia/Tokyo
//   </parameter>
//   </function>
//   </tool_call>
// Values are raw text. Some servers drop the <tool_call> wrapper, leaving a bare <function=…> block with parameters.
import type { RecoveredCall } from '../types.js';
import { argumentsFrom } from './json-args.js';
import { skipSpace } from './json-scan.js';
import { NextMatch } from './next-match.js';
import { writtenCall, type ShapeMatch, type ShapeParser } from './shape.js';
import { closeAt, TOOL_CALL_CLOSE, TOOL_CALL_OPEN, toolCallOpeners } from './tool-call-tag.js';
import { within } from './text-pos.js';

const FUNCTION_OPEN = /<function=([^>\n]+)>/y;
const FUNCTION_PREFIX = '<function=';
const FUNCTION_CLOSE = '</function>';
const PARAMETER = /<parameter=([^>\n]+)>/g;
const PARAMETER_CLOSE = '</parameter>';

/** Where the markers are, searched once per text. */
interface Markers {
  text: string;
  blockClose: NextMatch;
  blockOpen: NextMatch;
  functionOpen: NextMatch;
  functionClose: NextMatch;
}

export const qwen3Coder: ShapeParser = {
  shape: 'qwen3-coder',
  find(text) {
    if (!text.includes(FUNCTION_PREFIX)) return [];
    const m: Markers = {
      text,
      blockClose: new NextMatch(text, TOOL_CALL_CLOSE),
      blockOpen: new NextMatch(text, TOOL_CALL_OPEN),
      functionOpen: new NextMatch(text, FUNCTION_PREFIX),
      functionClose: new NextMatch(text, FUNCTION_CLOSE),
    };
    const blocks: ShapeMatch[] = [];
    for (const { start, bodyStart } of toolCallOpeners(text)) {
      if (start < (blocks.at(-1)?.end ?? 0)) continue;
      const limit = Math.min(m.blockClose.indexFrom(bodyStart, text.length), m.blockOpen.indexFrom(bodyStart, text.length));
      const read = readFunctions(m, skipSpace(text, bodyStart), limit);
      const end = read && closeAt(text, read.end);
      if (!read || end === undefined) continue;
      blocks.push({ start, end, calls: read.calls });
    }
    // Bare <function=…> blocks outside any <tool_call>: only with </function> and parameters (or none) inside.
    const bare: ShapeMatch[] = [];
    for (let start = text.indexOf(FUNCTION_PREFIX); start !== -1; start = text.indexOf(FUNCTION_PREFIX, start + 1)) {
      if (within(blocks, start) || start < (bare.at(-1)?.end ?? 0)) continue;
      const read = readFunction(m, start, m.blockOpen.indexFrom(start, text.length));
      if (read?.closed) bare.push({ start, end: read.end, calls: [read.call] });
    }
    return [...blocks, ...bare];
  },
};

/** One or more <function=…> blocks from `i`, within a <tool_call> body ending at `limit`. */
function readFunctions(m: Markers, i: number, limit: number): { calls: RecoveredCall[]; end: number } | undefined {
  const calls: RecoveredCall[] = [];
  let end = i;
  for (;;) {
    const read = readFunction(m, skipSpace(m.text, end), limit);
    if (!read) break;
    calls.push(read.call);
    end = read.end;
    if (!read.closed) break;
  }
  return calls.length > 0 ? { calls, end } : undefined;
}

/**
 * A <function=NAME> block at `i`: its parameters up to </function>, else (a reply cut short) up to `limit`, the
 * next <function=, or the end of the text.
 */
function readFunction(m: Markers, i: number, limit: number): { call: RecoveredCall; end: number; closed: boolean } | undefined {
  const { text } = m;
  FUNCTION_OPEN.lastIndex = i;
  const open = FUNCTION_OPEN.exec(text);
  if (!open) return undefined;
  const bodyStart = FUNCTION_OPEN.lastIndex;
  const first = skipSpace(text, bodyStart);
  // Only the parameter shape: a JSON body is the Llama function-tag shape.
  if (!text.startsWith('<parameter=', first) && !text.startsWith(FUNCTION_CLOSE, first)) return undefined;
  const bound = Math.min(limit, m.functionOpen.indexFrom(bodyStart, text.length));
  const close = m.functionClose.indexFrom(bodyStart, text.length);
  const closed = close < bound;
  const bodyEnd = closed ? close : bound;
  const args = readParameters(text.slice(bodyStart, bodyEnd));
  if (!args) return undefined;
  return { call: writtenCall(open[1]!, args, 'qwen3-coder'), end: closed ? close + FUNCTION_CLOSE.length : bodyEnd, closed };
}

/** The <parameter=K>V</parameter> pairs; a missing </parameter> ends at the next parameter. */
function readParameters(body: string): Record<string, unknown> | undefined {
  const opens = [...body.matchAll(PARAMETER)];
  const closes = new NextMatch(body, PARAMETER_CLOSE);
  const entries = opens.map((open, n) => {
    const valueStart = open.index + open[0].length;
    const next = opens[n + 1]?.index ?? body.length;
    const close = closes.indexFrom(valueStart, body.length);
    const raw = close < next ? body.slice(valueStart, close) : body.slice(valueStart, next).trimEnd();
    return [open[1]!.trim(), trimOneNewline(raw)] as const;
  });
  return argumentsFrom(entries);
}

/** The template puts the value on its own lines: one newline each side is markup, the rest is the value. */
function trimOneNewline(value: string): string {
  return value.replace(/^\r?\n/, '').replace(/\r?\n$/, '');
}

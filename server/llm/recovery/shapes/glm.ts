// GLM-4.5 / GLM-4.6 (their chat template):
//   <tool_call>get_time
//   <arg_key>timezone</arg_key>
//   <arg_value>Asia/Tokyo</arg_value>
//   </tool_call>
// A call without arguments is just <tool_call>get_time</tool_call>. Values are raw text; the template writes
// non-string values as JSON: they stay text here, and argument repair reads them by the tool's schema.
import { argumentsFrom } from './json-args.js';
import { skipSpace } from './json-scan.js';
import { NextMatch } from './next-match.js';
import { writtenCall, type ShapeMatch, type ShapeParser } from './shape.js';
import { closeAt, TOOL_CALL_CLOSE, toolCallOpeners } from './tool-call-tag.js';

/** A bare name after the opener: no JSON, no tag, no spaces inside. */
const NAME = /\s*([^\s<>{}[\]"'`]+)/y;
const KEY_OPEN = '<arg_key>';
const KEY_CLOSE = '</arg_key>';
const VALUE_OPEN = '<arg_value>';
const VALUE_CLOSE = '</arg_value>';

export const glm: ShapeParser = {
  shape: 'glm',
  find(text) {
    const keyClose = new NextMatch(text, KEY_CLOSE);
    const valueClose = new NextMatch(text, VALUE_CLOSE);
    const matches: ShapeMatch[] = [];
    for (const { start, bodyStart } of toolCallOpeners(text)) {
      if (start < (matches.at(-1)?.end ?? 0)) continue;
      NAME.lastIndex = bodyStart;
      const name = NAME.exec(text);
      if (!name) continue;
      const entries: [string, unknown][] = [];
      let i = skipSpace(text, NAME.lastIndex);
      while (text.startsWith(KEY_OPEN, i)) {
        const keyEnd = keyClose.indexFrom(i, -1);
        const valueStart = keyEnd === -1 ? -1 : skipSpace(text, keyEnd + KEY_CLOSE.length);
        const valueEnd = valueStart !== -1 && text.startsWith(VALUE_OPEN, valueStart) ? valueClose.indexFrom(valueStart, -1) : -1;
        if (valueEnd === -1) break;
        entries.push([text.slice(i + KEY_OPEN.length, keyEnd).trim(), text.slice(valueStart + VALUE_OPEN.length, valueEnd)]);
        i = skipSpace(text, valueEnd + VALUE_CLOSE.length);
      }
      const end = closeAt(text, i);
      const args = argumentsFrom(entries);
      // Without </tool_call>, only a block that reached its arguments is taken (a lone name at the end is prose).
      if (end === undefined || !args || (entries.length === 0 && !text.startsWith(TOOL_CALL_CLOSE, i))) continue;
      matches.push({ start, end, calls: [writtenCall(name[1]!, args, 'glm')] });
    }
    return matches;
  },
};

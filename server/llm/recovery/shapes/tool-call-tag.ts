/**
 * The `<tool_call>` opener that Hermes, Qwen3-Coder and GLM share; each parser reads only the body its family
 * writes (JSON, `<function=`, or a bare name then `<arg_key>`), so none claims another's block.
 */
import { skipSpace } from './json-scan.js';

export const TOOL_CALL_OPEN = '<tool_call>';
export const TOOL_CALL_CLOSE = '</tool_call>';

/** Each `<tool_call>` opener's index and where its body starts. */
export function* toolCallOpeners(text: string): Generator<{ start: number; bodyStart: number }> {
  for (let start = text.indexOf(TOOL_CALL_OPEN); start !== -1; start = text.indexOf(TOOL_CALL_OPEN, start + 1)) {
    yield { start, bodyStart: start + TOOL_CALL_OPEN.length };
  }
}

/**
 * Just past the `</tool_call>` at `i` (after whitespace); the end of the text when only whitespace is left (a reply
 * may stop before its last closing tag); else undefined.
 */
export function closeAt(text: string, i: number): number | undefined {
  const j = skipSpace(text, i);
  if (j === text.length) return j;
  return text.startsWith(TOOL_CALL_CLOSE, j) ? j + TOOL_CALL_CLOSE.length : undefined;
}

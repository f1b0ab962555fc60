/** Where a match sits in its text: bare shapes (a JSON object, a pythonic list) count only on lines of their own. */

/** Only spaces or tabs between `i` and the line's end. */
export function endsLine(text: string, i: number): boolean {
  for (let j = i; j < text.length; j++) {
    const c = text[j];
    if (c === '\n' || c === '\r') return true;
    if (c !== ' ' && c !== '\t') return false;
  }
  return true;
}

/** Whether `i` falls inside any of the [start, end) spans, which are sorted and do not overlap. */
export function within(spans: readonly { start: number; end: number }[], i: number): boolean {
  let low = 0;
  let high = spans.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const span = spans[mid]!;
    if (i < span.start) high = mid - 1;
    else if (i >= span.end) low = mid + 1;
    else return true;
  }
  return false;
}

/** The index of `char` wherever it is the first non-blank character of a line, in order. */
export function* lineOpenings(text: string, char: string): Generator<number> {
  const pattern = new RegExp(`^[ \\t]*\\${char}`, 'gm');
  for (const match of text.matchAll(pattern)) yield match.index + match[0].length - 1;
}

const LLAMA_END_TOKEN = /[ \t]*<\|(?:eot_id|eom_id)\|>/y;

/** Past a Llama end-of-turn token right after `i` (some servers leave it in the text), else `i`. */
export function pastEndToken(text: string, i: number): number {
  LLAMA_END_TOKEN.lastIndex = i;
  return LLAMA_END_TOKEN.test(text) ? LLAMA_END_TOKEN.lastIndex : i;
}

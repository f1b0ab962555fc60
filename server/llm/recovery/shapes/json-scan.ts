/**
 * Finds where JSON values end without parsing them: a brace counter that skips strings, so a `}` inside a string
 * does not close an object. Lenient on purpose (single-quoted strings, mismatched bracket kinds), because the text
 * it runs over is what a small model wrote; JSON.parse decides validity afterwards.
 */

/** Index just past the `{…}` or `[…]` value starting at `start`, or undefined when it never closes. */
export function scanBalanced(text: string, start: number): number | undefined {
  return new BalancedScanner(text).end(start);
}

/** Index just past a quoted string starting at `start` (either quote kind), or undefined when it never closes. */
export function scanString(text: string, start: number): number | undefined {
  const quote = text[start];
  if (quote !== '"' && quote !== "'") return undefined;
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === quote) return i + 1;
  }
  return undefined;
}

/** First index at or after `i` that is not whitespace. */
export function skipSpace(text: string, i: number): number {
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
}

/**
 * The [start, end) spans of the objects in the array starting at `start` (`[{…}, {…}]`, a trailing comma allowed),
 * and where the array ends; undefined when an element is not an object or the array never closes. Used when the
 * array as a whole does not parse, so each element can still be read on its own.
 */
export function objectArrayItems(text: string, start: number): { items: [number, number][]; end: number } | undefined {
  if (text[start] !== '[') return undefined;
  const items: [number, number][] = [];
  let i = skipSpace(text, start + 1);
  while (text[i] !== ']') {
    const end = scanBalanced(text, i);
    if (text[i] !== '{' || end === undefined) return undefined;
    items.push([i, end]);
    i = skipSpace(text, end);
    if (text[i] === ',') i = skipSpace(text, i + 1);
    else if (text[i] !== ']') return undefined;
  }
  return { items, end: i + 1 };
}

/**
 * scanBalanced for many starts in one text (every line that opens with `{`): one scan also records where each
 * bracket it passes closes, so later starts are answered without scanning again, and the total work is capped so
 * a long text full of unclosed brackets cannot make recovery quadratic.
 */
export class BalancedScanner {
  /** Where the value starting at a bracket ends; -1 when it never closes. */
  private readonly ends = new Map<number, number>();
  private budget: number;

  constructor(readonly text: string) {
    this.budget = 4 * text.length + 100_000;
  }

  end(start: number): number | undefined {
    const known = this.ends.get(start);
    if (known !== undefined) return known === -1 ? undefined : known;
    const { text } = this;
    if (text[start] !== '{' && text[start] !== '[') return undefined;
    const open: number[] = [];
    let quote = '';
    for (let i = start; i < text.length; i++) {
      if (--this.budget < 0) return undefined;
      const c = text[i];
      if (quote) {
        if (c === '\\') i++;
        else if (c === quote) quote = '';
      } else if (c === '"' || c === "'") quote = c;
      else if (c === '{' || c === '[') open.push(i);
      else if (c === '}' || c === ']') {
        const from = open.pop()!;
        if (!this.ends.has(from)) this.ends.set(from, i + 1);
        if (open.length === 0) return i + 1;
      }
    }
    for (const from of open) if (!this.ends.has(from)) this.ends.set(from, -1);
    return undefined;
  }
}

/**
 * indexOf for a parser that looks for the same closing marker from each of many openers: it remembers its last
 * answer, so a marker that is absent (or far away) is searched for once, not once per opener — a reply full of
 * unclosed openers would otherwise make recovery quadratic.
 */
export class NextMatch {
  private readonly pattern: RegExp | undefined;
  private queriedFrom = -1;
  private hit: { index: number; length: number } | undefined;

  constructor(
    private readonly text: string,
    private readonly needle: string | RegExp,
  ) {
    this.pattern = typeof needle === 'string' ? undefined : new RegExp(needle.source, 'g');
  }

  /** The first occurrence at or after `i`. */
  from(i: number): { index: number; length: number } | undefined {
    if (this.queriedFrom !== -1 && i >= this.queriedFrom && (this.hit === undefined || i <= this.hit.index)) return this.hit;
    this.queriedFrom = i;
    if (this.pattern) {
      this.pattern.lastIndex = i;
      const match = this.pattern.exec(this.text);
      this.hit = match ? { index: match.index, length: match[0].length } : undefined;
    } else {
      const needle = this.needle as string;
      const index = this.text.indexOf(needle, i);
      this.hit = index === -1 ? undefined : { index, length: needle.length };
    }
    return this.hit;
  }

  /** The index of the first occurrence at or after `i`, or `fallback` when there is none. */
  indexFrom(i: number, fallback: number): number {
    return this.from(i)?.index ?? fallback;
  }
}

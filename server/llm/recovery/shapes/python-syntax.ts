/**
 * A small reader for the Python call syntax models write as tool calls (`get_time(timezone="UTC")`): literals
 * only — strings, numbers, True/False/None, lists, dicts — and calls. Security: it builds a tree and never
 * evaluates anything; bare names, operators, tuples and every other expression are refused.
 */

export type PyNode =
  | { kind: 'value'; value: string | number | boolean | null }
  | { kind: 'list'; items: PyNode[] }
  | { kind: 'dict'; entries: [string, PyNode][] }
  | { kind: 'call'; name: string; positional: PyNode[]; keywords: [string, PyNode][] };

/** Deepest nesting read; deeper text is refused rather than risking the stack. */
const MAX_DEPTH = 64;

/** Thrown inside the reader to abandon the text; never escapes it. */
class Refused extends Error {}

/** Reads one expression starting at `start`; undefined when it is not one this reader accepts. */
export function readPython(text: string, start: number): { node: PyNode; end: number } | undefined {
  const reader = new Reader(text, start);
  try {
    const node = reader.expression(0);
    return { node, end: reader.i };
  } catch (error) {
    if (error instanceof Refused) return undefined;
    throw error;
  }
}

const NAME = /[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/y;
const NUMBER = /[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/y;
const CONSTANTS: Record<string, boolean | null> = { True: true, False: false, None: null, true: true, false: false, null: null };
/** Python's single-character escapes; a backslash before a line break joins the lines. */
const ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
  v: '\v',
  a: '\x07',
  '0': '\0',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '\n': '',
};

class Reader {
  constructor(
    readonly text: string,
    public i: number,
  ) {}

  expression(depth: number): PyNode {
    if (depth > MAX_DEPTH) throw new Refused();
    this.space();
    const c = this.text[this.i];
    if (c === '[') return { kind: 'list', items: this.sequence(']', depth) };
    if (c === '{') return this.dict(depth);
    if (c === '"' || c === "'") return { kind: 'value', value: this.string() };
    const number = this.sticky(NUMBER);
    if (number !== undefined) {
      const value = Number(number);
      if (!Number.isFinite(value)) throw new Refused();
      return { kind: 'value', value };
    }
    const name = this.sticky(NAME);
    if (name === undefined) throw new Refused();
    this.space();
    if (this.text[this.i] === '(') return this.call(name, depth);
    if (Object.hasOwn(CONSTANTS, name)) return { kind: 'value', value: CONSTANTS[name]! };
    throw new Refused();
  }

  private call(name: string, depth: number): PyNode {
    this.i++; // (
    const positional: PyNode[] = [];
    const keywords: [string, PyNode][] = [];
    while (!this.eat(')')) {
      this.space();
      const mark = this.i;
      const keyword = this.sticky(NAME);
      this.space();
      if (keyword !== undefined && !keyword.includes('.') && this.text[this.i] === '=' && this.text[this.i + 1] !== '=') {
        this.i++;
        keywords.push([keyword, this.expression(depth + 1)]);
      } else {
        this.i = mark;
        positional.push(this.expression(depth + 1));
      }
      this.separator(')');
    }
    return { kind: 'call', name, positional, keywords };
  }

  private dict(depth: number): PyNode {
    this.i++; // {
    const entries: [string, PyNode][] = [];
    while (!this.eat('}')) {
      this.space();
      const quote = this.text[this.i];
      if (quote !== '"' && quote !== "'") throw new Refused();
      const key = this.string();
      if (!this.eat(':')) throw new Refused();
      entries.push([key, this.expression(depth + 1)]);
      this.separator('}');
    }
    return { kind: 'dict', entries };
  }

  /** The items of a list, up to `close`. */
  private sequence(close: string, depth: number): PyNode[] {
    this.i++;
    const items: PyNode[] = [];
    while (!this.eat(close)) {
      items.push(this.expression(depth + 1));
      this.separator(close);
    }
    return items;
  }

  /** After an item: a comma, or the closing bracket (left for the loop to eat). */
  private separator(close: string): void {
    this.space();
    if (this.text[this.i] === ',') this.i++;
    else if (this.text[this.i] !== close) throw new Refused();
  }

  private string(): string {
    const quote = this.text[this.i]!;
    const triple = this.text.startsWith(quote.repeat(3), this.i);
    const delimiter = triple ? quote.repeat(3) : quote;
    this.i += delimiter.length;
    let out = '';
    while (this.i < this.text.length) {
      if (this.text.startsWith(delimiter, this.i)) {
        this.i += delimiter.length;
        return out;
      }
      const c = this.text[this.i]!;
      if (c === '\n' && !triple) break;
      if (c === '\\') {
        out += this.escape();
        continue;
      }
      out += c;
      this.i++;
    }
    throw new Refused();
  }

  /** One backslash escape, Python's rules: an unknown escape keeps its backslash. */
  private escape(): string {
    const next = this.text[this.i + 1];
    if (next === undefined) throw new Refused();
    const hexLength = next === 'x' ? 2 : next === 'u' ? 4 : next === 'U' ? 8 : 0;
    if (hexLength) {
      const hex = this.text.slice(this.i + 2, this.i + 2 + hexLength);
      const code = /^[0-9a-fA-F]+$/.test(hex) && hex.length === hexLength ? parseInt(hex, 16) : NaN;
      if (!(code <= 0x10ffff)) throw new Refused();
      this.i += 2 + hexLength;
      return String.fromCodePoint(code);
    }
    this.i += 2;
    return Object.hasOwn(ESCAPES, next) ? ESCAPES[next]! : `\\${next}`;
  }

  private sticky(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.i;
    const match = pattern.exec(this.text);
    if (!match) return undefined;
    this.i = pattern.lastIndex;
    return match[0];
  }

  private eat(c: string): boolean {
    this.space();
    if (this.text[this.i] !== c) return false;
    this.i++;
    return true;
  }

  private space(): void {
    while (this.i < this.text.length && /\s/.test(this.text[this.i]!)) this.i++;
  }
}

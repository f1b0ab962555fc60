/** What every redaction rule shares: the scan that collects replacements, and reading at a position. */

export const REDACTED = '[REDACTED]';

export class Scan {
  readonly #parts: string[] = [];
  /** text[0, copied) is in the parts already. */
  #copied = 0;
  /** The next "-----END" and "@" at or after where they were last looked for (-1: none), so no rule rescans. */
  pemEnd = -2;
  nextAt = -2;
  constructor(readonly text: string) {}

  replace(from: number, to: number, replacement: string): void {
    if (from < this.#copied) return;
    this.#parts.push(this.text.slice(this.#copied, from), replacement);
    this.#copied = to;
  }

  result(): string {
    if (this.#parts.length === 0) return this.text;
    this.#parts.push(this.text.slice(this.#copied));
    return this.#parts.join('');
  }
}

export interface Rule {
  /** The literals an occurrence starts with, each at least two characters of ASCII. */
  starts: readonly string[];
  /** Reads from `start`, where `literal` was found; redacts what it should; answers where the scan goes on. */
  handle(scan: Scan, start: number, literal: string): number;
}

/** Reads with a sticky expression at `at`; null when it does not match there. */
export function readAt(pattern: RegExp, text: string, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(text);
}

/** The length of the run a sticky `[…]*` expression reads at `at`. */
export function runAt(pattern: RegExp, text: string, at: number): number {
  pattern.lastIndex = at;
  pattern.test(text);
  return pattern.lastIndex - at;
}

export function isWordChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/**
 * Whether a token may start at `at`: not inside a word, or right after a `\n`-style escape of JSON text. Checked here
 * rather than with a lookbehind in the scanner, which would make V8 try every alternative at every position.
 */
export function startsWord(text: string, at: number): boolean {
  if (at === 0 || !isWordChar(text.charCodeAt(at - 1))) return true;
  return at >= 2 && text.charCodeAt(at - 2) === 92 && /[nrt]/.test(text[at - 1]!);
}

/** `$TOKEN`, `${TOKEN}`, `%TOKEN%`, `{{ token }}`: a name for a secret kept elsewhere, shown as it is. */
export function isReference(value: string): boolean {
  const first = value.charCodeAt(0);
  if (first === 36) return /^\$\{?[A-Za-z_]/.test(value);
  if (first === 37) return /^%[A-Za-z_]\w*%$/.test(value);
  return first === 123 && value.startsWith('{{');
}

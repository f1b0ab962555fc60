import { RE2JS } from 're2js';

/**
 * Regular expressions from schemas, run in time linear in the input.
 *
 * Security: a schema's `pattern` comes from whoever wrote the tool (an imported MCP server, a plugin), and its
 * argument from any client. JavaScript's backtracking engine runs `^(a|aa)+$` against 38 characters for seconds,
 * with the event loop frozen. RE2 (here re2js, pure JavaScript) never backtracks; what it cannot run (lookaround,
 * backreferences) is refused with the reason instead of being handed to the backtracking engine.
 *
 * The source is ECMA-262 syntax (what JSON Schema specifies) with the `u` flag (what Ajv passes). It is checked by
 * V8 first, so only valid JavaScript patterns get here, then rewritten into RE2's syntax keeping JavaScript's meaning
 * where the two differ: `\s` is JavaScript's Unicode white space (RE2's is ASCII), `.` stops at all four line
 * terminators (RE2's only at `\n`), `\v`, `\cX`, `\0`, `\uXXXX` and surrogate pairs become code points.
 */

export interface LinearRegExp {
  test(input: string): boolean;
  /** Unique per pattern and flags: Ajv keys its compiled patterns by it. */
  toString(): string;
}

/** A pattern the linear-time engine cannot run, with why (written to be shown to the owner). */
export class PatternRefusal extends Error {
  override readonly name = 'PatternRefusal';
  constructor(
    readonly pattern: string,
    readonly reason: string,
  ) {
    super(`the pattern ${JSON.stringify(pattern.length > 200 ? `${pattern.slice(0, 200)}…` : pattern)} ${reason}`);
  }
}

const ENGINE = 'the linear-time engine';

/** JavaScript's `\s`: WhiteSpace and LineTerminator code points, as ranges. */
const JS_SPACE: [number, number][] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
const MAX_CODE_POINT = 0x10ffff;
const SPACE = rangesText(JS_SPACE);
const NOT_SPACE = rangesText(complement(JS_SPACE));
const ANY = '[\\x{0}-\\x{10FFFF}]';
const NOT_LINE_TERMINATOR = '[^\\n\\r\\x{2028}\\x{2029}]';

/** Unicode general categories by their long names (RE2 knows only the short ones). */
const CATEGORY_NAMES: Record<string, string> = {
  Letter: 'L', Cased_Letter: 'LC', Uppercase_Letter: 'Lu', Lowercase_Letter: 'Ll', Titlecase_Letter: 'Lt',
  Modifier_Letter: 'Lm', Other_Letter: 'Lo', Mark: 'M', Combining_Mark: 'M', Nonspacing_Mark: 'Mn',
  Spacing_Mark: 'Mc', Enclosing_Mark: 'Me', Number: 'N', Decimal_Number: 'Nd', digit: 'Nd', Letter_Number: 'Nl',
  Other_Number: 'No', Punctuation: 'P', punct: 'P', Connector_Punctuation: 'Pc', Dash_Punctuation: 'Pd',
  Open_Punctuation: 'Ps', Close_Punctuation: 'Pe', Initial_Punctuation: 'Pi', Final_Punctuation: 'Pf',
  Other_Punctuation: 'Po', Symbol: 'S', Math_Symbol: 'Sm', Currency_Symbol: 'Sc', Modifier_Symbol: 'Sk',
  Other_Symbol: 'So', Separator: 'Z', Space_Separator: 'Zs', Line_Separator: 'Zl', Paragraph_Separator: 'Zp',
  Other: 'C', Control: 'Cc', cntrl: 'Cc', Format: 'Cf', Surrogate: 'Cs', Private_Use: 'Co', Unassigned: 'Cn',
};

/**
 * Compiles `pattern` (ECMA-262, flags from `u`, `i`, `s`) for the linear-time engine; throws PatternRefusal when it
 * is not a valid pattern or needs what a linear-time engine cannot do.
 */
export function compileLinear(pattern: string, flags = 'u'): LinearRegExp {
  if (/[^uis]/.test(flags) || !flags.includes('u')) {
    throw new PatternRefusal(pattern, `has the flags "${flags}"; ${ENGINE} takes patterns with the u flag, optionally i and s`);
  }
  try {
    new RegExp(pattern, flags); // parsed, never run: the syntax JSON Schema and Ajv accept
  } catch (error) {
    throw new PatternRefusal(pattern, `is not a valid regular expression (${(error as Error).message.replace(/^Invalid regular expression: /, '')})`);
  }
  const source = translate(pattern, flags.includes('s'));
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(source, flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    throw new PatternRefusal(pattern, `cannot be run by ${ENGINE} (${(error as Error).message.replace(/^error parsing regexp: /, '')})`);
  }
  const text = `/${pattern}/${flags}`;
  return { test: (input) => compiled.test(input), toString: () => text };
}

/** Rewrites a valid `u`-mode JavaScript pattern into RE2 syntax with the same meaning, refusing what RE2 lacks. */
function translate(pattern: string, dotAll: boolean): string {
  return new Re2Translation(pattern, dotAll).run();
}

/** One pattern read left to right, code point by code point, as the u flag reads it. */
class Re2Translation {
  readonly #chars: string[];
  #i = 0;

  constructor(
    readonly pattern: string,
    readonly dotAll: boolean,
  ) {
    this.#chars = [...pattern];
  }

  run(): string {
    const chars = this.#chars;
    let out = '';
    while (this.#i < chars.length) {
      const c = chars[this.#i++]!;
      if (c === '\\') out += this.#escape(false);
      else if (c === '.') out += this.dotAll ? ANY : NOT_LINE_TERMINATOR;
      else if (c === '(') out += this.#group();
      else if (c === '[') out += this.#characterClass();
      else out += c;
    }
    return out;
  }

  #refuse(what: string): never {
    throw new PatternRefusal(this.pattern, `uses ${what}, which ${ENGINE} cannot run; rewrite the pattern without it`);
  }

  /** An opening parenthesis (already consumed): lookarounds are refused, a named group is spelled `(?P<`. */
  #group(): string {
    const chars = this.#chars;
    if (chars[this.#i] === '?') {
      const next = chars[this.#i + 1];
      if (next === '=') this.#refuse('a lookahead (?=…)');
      if (next === '!') this.#refuse('a negative lookahead (?!…)');
      if (next === '<' && (chars[this.#i + 2] === '=' || chars[this.#i + 2] === '!')) this.#refuse(`a lookbehind (?<${chars[this.#i + 2]}…)`);
      if (next === '<') {
        this.#i += 2;
        return '(?P<';
      }
    }
    return '(';
  }

  /** One escape after a backslash at chars[i] (already consumed); returns RE2 text. */
  #escape(inClass: boolean): string {
    const c = this.#chars[this.#i++]!;
    switch (c) {
      case 'd': case 'D': case 'w': case 'W':
        return `\\${c}`;
      case 'b': case 'B':
        return inClass ? (c === 'b' ? '\\x{8}' : this.#refuse('\\B inside a character class')) : `\\${c}`;
      case 's':
        return inClass ? SPACE : `[${SPACE}]`;
      case 'S':
        return inClass ? NOT_SPACE : `[${NOT_SPACE}]`;
      case 'f': case 'n': case 'r': case 't':
        return `\\${c}`;
      case 'v':
        return '\\x{B}';
      case '0':
        return '\\x{0}';
      case 'c':
        return codePoint(this.#chars[this.#i++]!.codePointAt(0)! % 32);
      case 'x': {
        const hex = this.#chars.slice(this.#i, this.#i + 2).join('');
        this.#i += 2;
        return codePoint(parseInt(hex, 16));
      }
      case 'u':
        return codePoint(this.#unicodeEscape());
      case 'p': case 'P':
        return this.#property(c);
      case 'k':
        return this.#refuse('a named backreference (\\k<…>)');
      default:
        if (c >= '1' && c <= '9') return this.#refuse(`a backreference (\\${c})`);
        return `\\${c}`; // a syntax character, escaped in both
    }
  }

  #unicodeEscape(): number {
    const chars = this.#chars;
    if (chars[this.#i] === '{') {
      const end = chars.indexOf('}', this.#i);
      const value = parseInt(chars.slice(this.#i + 1, end).join(''), 16);
      this.#i = end + 1;
      return this.#checkedCodePoint(value);
    }
    const value = parseInt(chars.slice(this.#i, this.#i + 4).join(''), 16);
    this.#i += 4;
    // In u mode an escaped surrogate pair is one code point.
    if (value >= 0xd800 && value <= 0xdbff && chars[this.#i] === '\\' && chars[this.#i + 1] === 'u') {
      const low = parseInt(chars.slice(this.#i + 2, this.#i + 6).join(''), 16);
      if (low >= 0xdc00 && low <= 0xdfff) {
        this.#i += 6;
        return 0x10000 + ((value - 0xd800) << 10) + (low - 0xdc00);
      }
    }
    return this.#checkedCodePoint(value);
  }

  #checkedCodePoint(value: number): number {
    return value >= 0xd800 && value <= 0xdfff ? this.#refuse(`a lone surrogate (\\u${value.toString(16).toUpperCase()})`) : value;
  }

  #property(kind: 'p' | 'P'): string {
    const end = this.#chars.indexOf('}', this.#i);
    const body = this.#chars.slice(this.#i + 1, end).join('');
    this.#i = end + 1;
    const [key, value] = body.includes('=') ? body.split('=') as [string, string] : [undefined, body];
    if (key === 'Script_Extensions' || key === 'scx') this.#refuse(`the Unicode property \\${kind}{${body}} (script extensions)`);
    const name = key === undefined || key === 'General_Category' || key === 'gc' ? (CATEGORY_NAMES[value] ?? value) : value;
    return `\\${kind}{${name}}`;
  }

  #characterClass(): string {
    const chars = this.#chars;
    const negated = chars[this.#i] === '^';
    if (negated) this.#i++;
    let body = '';
    while (chars[this.#i] !== ']') {
      const c = chars[this.#i++]!;
      if (c === '\\') body += this.#escape(true);
      // RE2 reads `[:alpha:]` inside a class as a POSIX class and `^` as negation in more places; JavaScript does not.
      else if (c === '[' || c === '^') body += `\\${c}`;
      else body += c;
    }
    this.#i++;
    if (body === '') return negated ? ANY : `[^${ANY.slice(1)}`; // [^] matches anything, [] nothing
    return `[${negated ? '^' : ''}${body}]`;
  }
}

function codePoint(value: number): string {
  return `\\x{${value.toString(16).toUpperCase()}}`;
}

function rangesText(ranges: [number, number][]): string {
  return ranges.map(([from, to]) => (from === to ? codePoint(from) : `${codePoint(from)}-${codePoint(to)}`)).join('');
}

function complement(ranges: [number, number][]): [number, number][] {
  const result: [number, number][] = [];
  let next = 0;
  for (const [from, to] of ranges) {
    if (from > next) result.push([next, from - 1]);
    next = to + 1;
  }
  if (next <= MAX_CODE_POINT) result.push([next, MAX_CODE_POINT]);
  return result;
}

/**
 * Holds back streamed answer text that may turn out to be a tool call written as text, so that call markup never
 * reaches the user, and releases it as soon as it cannot be one. What is released plus what end() returns is
 * exactly what was pushed: the caller runs recovery over the held rest and shows only its prose.
 *
 * What is held, mirroring what recovery (recover.ts and shapes/) may take for a call:
 * - from a strong opener (`<tool_call>`, `[TOOL_CALLS]`…) anywhere: everything to the end;
 * - a `{` or a `[` at a line start, or a fence (json, tool_code, tool_call…): until it closes, then isCall decides;
 * - mid-line, only what can open a call there: a `{` whose next non-blank is a quote (`{"name"…`), a `[` before such
 *   an object (`[{"name"…`) or before a name and `(` (`[get_time(`): until it closes, then isCall decides. Any other
 *   `{` or `[` (`use {braces}`, `[link](url)`, `[1, 2]`) is released as soon as the next character shows it;
 * - at the very start of the answer, a first word that may still be a bare call's name: once `name(` is seen, the
 *   rest of the answer (bare calls are only taken when they are the whole reply); once not, it is released.
 * Inside a released code fence (```python…) no bracket is held: recovery takes no bare shape from code.
 */

/** Markup that only ever opens a call: from one on, the rest of the answer is held. */
export const STRONG_OPENERS = [
  '<tool_call>',
  '<tool_calls>',
  '<function=',
  '<|python_tag|>',
  '<|tool_call_start|>',
  '<|tool_call|>',
  '[TOOL_CALLS]',
  '<｜tool▁calls▁begin｜>',
  '<｜tool▁call▁begin｜>',
  // The ASCII lookalikes some GGUF templates and tokenizers produce for DeepSeek's tokens.
  '<|tool_calls_begin|>',
  '<|tool_call_begin|>',
  '```tool_code',
  '```tool_call',
];
const LONGEST_OPENER = Math.max(...STRONG_OPENERS.map((o) => o.length));

/**
 * Every held thing starts with one of these, but for the answer's first word; once that is known, a chunk without any
 * passes untouched (the hot path).
 */
const TRIGGERS = /[<[{`｜]/;
/** A held bracket or fence still open past this size is prose or data, not a call. */
const HOLD_LIMIT = 64 * 1024;
/** Fence info strings whose block may be a call (fenced-json's and Gemma's tags); any other language is code, shown at once. */
const CALL_FENCES = ['', 'json', 'jsonc', 'json5', 'tool_code', 'tool_call', 'tool_calls'];

/** What a held bracket must open to be kept: `opens` once it is known to, `prefix` while it may still. */
interface Probe {
  opens: RegExp;
  prefix: RegExp;
}
/** `[` at a line start that may open a call list: `[{…}]` (JSON) or `[name(…)]` (pythonic). */
const LINE_LIST: Probe = { opens: /^\[\s*(?:\{|[A-Za-z_][\w.-]*\s*\()/, prefix: /^\[\s*(?:[A-Za-z_][\w.-]*\s*)?$/ };
/** Mid-line `{` that may open a JSON call: a quoted key first. */
const INLINE_OBJECT: Probe = { opens: /^\{\s*["']/, prefix: /^\{\s*$/ };
/** Mid-line `[` that may open a call list: `[{"…` (JSON) or `[name(…` (pythonic). */
const INLINE_LIST: Probe = {
  opens: /^\[\s*(?:\{\s*["']|[A-Za-z_][\w.-]*\s*\()/,
  prefix: /^\[\s*(?:\{\s*|[A-Za-z_][\w.-]*\s*)?$/,
};
/** Past this, a bracket still not known to open a call does not. */
const PROBE_LIMIT = 200;
/** The start of an answer that may still be a bare call, `name(`: a name's characters so far, nothing else. */
const NAME_START = /[A-Za-z_]/;
const NAME_CHAR = /[\w.]/;
const BLANK = /^[ \t\r]*$/;
/** A `'` right after one of these is an apostrophe (`don't`), not a string's opening quote. */
const WORD_CHAR = /[\p{L}\p{N}]/u;

/** Plain text: released as scanned, except a tail that may be the start of an opener. */
interface TextMode {
  kind: 'text';
}
/** A call was seen: everything is held to the end. */
interface LockedMode {
  kind: 'locked';
}
/** A fence at a line start, its info string not yet complete. */
interface FenceInfoMode {
  kind: 'fence-info';
  ticks: number;
  info: string;
}
/** Inside a fence that may hold a call, waiting for its closing fence. */
interface FenceBodyMode {
  kind: 'fence-body';
  ticks: number;
  lineBlank: boolean;
  /** Backticks seen so far of a possible closing fence. */
  run: number;
}
/** A `{` or `[` that may open a call, waiting for it to balance. */
interface BracketMode {
  kind: 'bracket';
  depth: number;
  quote: string;
  escape: boolean;
  prev: string;
  /** What the bracket must open to be kept, checked until it is known to (none: a `{` at a line start always is). */
  probe: Probe | undefined;
}
type Mode = TextMode | LockedMode | FenceInfoMode | FenceBodyMode | BracketMode;

/** Text released by one step, and the unconsumed rest of the chunk (handed to the mode the step switched to). */
interface Step {
  released: string;
  rest: string;
}
const HELD: Step = { released: '', rest: '' };

export class StreamGate {
  readonly #isCall: (block: string) => boolean;
  #mode: Mode = { kind: 'text' };
  /** In text mode: a tail that is a proper prefix of an opener, waiting for the next chunk. */
  #tail = '';
  /** Outside text mode: the text held, as pushed pieces (joined only when needed). */
  #held: string[] = [];
  #heldLength = 0;
  /** Only spaces and tabs since the last newline or the start: a bracket or a fence here may open a call. */
  #lineBlank = true;
  /** Backticks of the released code fence we are inside (0: none): its lines are code, and its end is no opener. */
  #codeFence = 0;
  /** Nothing but blanks released yet: the answer may still be bare calls (`get_time(…)`, see pythonic.ts). */
  #atStart = true;

  /** `isCall` runs the recovery parsers on a complete block (a balanced bracket, a closed fence). */
  constructor(isCall: (block: string) => boolean) {
    this.#isCall = isCall;
  }

  /** Takes the next chunk; returns the text that is safe to show now. */
  push(chunk: string): string {
    if (this.#mode.kind === 'locked') {
      this.#hold(chunk);
      return '';
    }
    if (this.#mode.kind === 'text' && this.#tail === '' && !this.#atStart && !TRIGGERS.test(chunk)) {
      this.#lineBlank = lineBlankAfter(chunk, this.#lineBlank);
      return chunk;
    }
    let out = '';
    let rest = chunk;
    while (rest !== '') {
      const step = this.#step(rest);
      out += step.released;
      rest = step.rest;
    }
    return out;
  }

  /** The stream ended: returns the text still held (the caller runs recovery over it), and resets the gate. */
  end(): string {
    const held = this.#tail + this.#peekHeld();
    this.#mode = { kind: 'text' };
    this.#tail = '';
    this.#clearHeld();
    this.#lineBlank = true;
    this.#codeFence = 0;
    this.#atStart = true;
    return held;
  }

  #step(s: string): Step {
    const mode = this.#mode;
    switch (mode.kind) {
      case 'text':
        return this.#stepText(s);
      case 'locked':
        this.#hold(s);
        return HELD;
      case 'fence-info':
        return this.#stepFenceInfo(mode, s);
      case 'fence-body':
        return this.#stepFenceBody(mode, s);
      case 'bracket':
        return this.#stepBracket(mode, s);
    }
  }

  #stepText(chunk: string): Step {
    const s = this.#tail + chunk;
    this.#tail = '';
    if (this.#atStart) {
      const start = this.#stepStart(s);
      if (start) return start;
    }
    let blank = this.#lineBlank;
    for (let i = 0; i < s.length; i++) {
      const c = s.charAt(i);
      if (c === '\n') {
        blank = true;
        continue;
      }
      if (c === '<' || c === '[' || c === '`') {
        const match = matchOpener(s, i);
        if (match === 'full') return this.#enter({ kind: 'locked' }, s, i, blank);
        if (match === 'partial') return this.#holdTail(s, i, blank);
      }
      if (this.#codeFence === 0 && (c === '{' || c === '[')) {
        const probe = blank ? (c === '[' ? LINE_LIST : undefined) : c === '[' ? INLINE_LIST : INLINE_OBJECT;
        const bracket: BracketMode = { kind: 'bracket', depth: 0, quote: '', escape: false, prev: '', probe };
        return this.#enter(bracket, s, i, blank);
      }
      if (blank && c === '`') {
        let j = i + 1;
        while (j < s.length && s.charAt(j) === '`') j++;
        // The run may go on in the next chunk, and its length decides what it is.
        if (j === s.length) return this.#holdTail(s, i, blank);
        const ticks = j - i;
        if (this.#codeFence > 0 && ticks >= this.#codeFence) {
          this.#codeFence = 0;
        } else if (this.#codeFence === 0 && ticks >= 3) {
          this.#mode = { kind: 'fence-info', ticks, info: '' };
          this.#lineBlank = blank;
          this.#hold(s.slice(i, j));
          return { released: s.slice(0, i), rest: s.slice(j) };
        }
        i = j - 1;
        blank = false;
        continue;
      }
      if (c !== ' ' && c !== '\t' && c !== '\r') blank = false;
    }
    this.#lineBlank = blank;
    return { released: s, rest: '' };
  }

  /**
   * At the start of the answer: blanks are released; a first word is held while it may be a bare call's name, and
   * `name(` holds the rest of the answer. Answers undefined once the start cannot be a bare call (scan it as text).
   */
  #stepStart(s: string): Step | undefined {
    let i = 0;
    while (i < s.length && /\s/.test(s.charAt(i))) i++;
    if (i === s.length) return undefined;
    let j = i;
    if (NAME_START.test(s.charAt(j))) while (++j < s.length && NAME_CHAR.test(s.charAt(j)));
    const blank = lineBlankAfter(s.slice(0, i), this.#lineBlank);
    if (j > i && j === s.length) return this.#holdTail(s, i, blank);
    this.#atStart = false;
    if (j > i && s.charAt(j) === '(') return this.#enter({ kind: 'locked' }, s, i, blank);
    return undefined;
  }

  #enter(mode: Mode, s: string, i: number, blank: boolean): Step {
    this.#mode = mode;
    this.#lineBlank = blank;
    return { released: s.slice(0, i), rest: s.slice(i) };
  }

  #holdTail(s: string, i: number, blank: boolean): Step {
    this.#tail = s.slice(i);
    this.#lineBlank = blank;
    return { released: s.slice(0, i), rest: '' };
  }

  #stepFenceInfo(mode: FenceInfoMode, s: string): Step {
    const nl = s.indexOf('\n');
    const line = nl < 0 ? s : s.slice(0, nl + 1);
    mode.info += line;
    this.#hold(line);
    const info = mode.info.trim().toLowerCase();
    if (nl >= 0) {
      if (!CALL_FENCES.includes(info)) return this.#releaseAsCode(mode.ticks, s.slice(nl + 1), true);
      this.#mode = { kind: 'fence-body', ticks: mode.ticks, lineBlank: true, run: 0 };
      return { released: '', rest: s.slice(nl + 1) };
    }
    // `python`, `bash`…: shown at once, without waiting for the line to end.
    if (!CALL_FENCES.some((f) => f.startsWith(info)) || this.#heldLength > HOLD_LIMIT) {
      return this.#releaseAsCode(mode.ticks, '', false);
    }
    return HELD;
  }

  #releaseAsCode(ticks: number, rest: string, lineBlank: boolean): Step {
    const released = this.#peekHeld();
    this.#clearHeld();
    this.#mode = { kind: 'text' };
    this.#codeFence = ticks;
    this.#lineBlank = lineBlank;
    return { released, rest };
  }

  #stepFenceBody(mode: FenceBodyMode, s: string): Step {
    for (let k = 0; k < s.length; k++) {
      const c = s.charAt(k);
      if (mode.run > 0) {
        if (c === '`') {
          if (++mode.run === mode.ticks) return this.#decide(s.slice(0, k + 1), s.slice(k + 1));
          continue;
        }
        mode.run = 0;
        mode.lineBlank = false;
      }
      if (c === '\n') mode.lineBlank = true;
      else if (c === '`' && mode.lineBlank) mode.run = 1;
      else if (c !== ' ' && c !== '\t' && c !== '\r') mode.lineBlank = false;
    }
    this.#hold(s);
    if (this.#heldLength <= HOLD_LIMIT) return HELD;
    const released = this.#spill();
    this.#codeFence = mode.ticks;
    return released;
  }

  #stepBracket(mode: BracketMode, s: string): Step {
    if (mode.probe) {
      const sofar = this.#peekHeld() + s;
      if (mode.probe.opens.test(sofar)) {
        mode.probe = undefined;
      } else if (sofar.length > PROBE_LIMIT || !mode.probe.prefix.test(sofar)) {
        // `[1, 2]`, `[ ]`, `[see](x)`, `{braces}`: cannot open a call. Release the bracket and scan the rest as text.
        this.#clearHeld();
        this.#mode = { kind: 'text' };
        this.#lineBlank = false;
        return { released: sofar.slice(0, 1), rest: sofar.slice(1) };
      }
    }
    for (let k = 0; k < s.length; k++) {
      const c = s.charAt(k);
      if (mode.quote !== '') {
        if (mode.escape) mode.escape = false;
        else if (c === '\\') mode.escape = true;
        else if (c === mode.quote) mode.quote = '';
        // Single-quoted strings (Python's, lenient JSON's) never span lines: that `'` was an apostrophe.
        else if (c === '\n' && mode.quote === "'") mode.quote = '';
      } else if (c === '"' || (c === "'" && !WORD_CHAR.test(mode.prev))) {
        mode.quote = c;
      } else if (c === '{' || c === '[') {
        mode.depth++;
      } else if ((c === '}' || c === ']') && --mode.depth === 0) {
        return this.#decide(s.slice(0, k + 1), s.slice(k + 1));
      }
      mode.prev = c;
    }
    this.#hold(s);
    return this.#heldLength > HOLD_LIMIT ? this.#spill() : HELD;
  }

  /** A block is complete: a call holds everything to the end, anything else is released. */
  #decide(last: string, rest: string): Step {
    const block = this.#peekHeld() + last;
    this.#clearHeld();
    if (this.#isCall(block)) {
      this.#mode = { kind: 'locked' };
      this.#hold(block);
      return { released: '', rest };
    }
    this.#mode = { kind: 'text' };
    this.#lineBlank = false;
    return { released: block, rest };
  }

  /** Releases everything held, back to text: it grew too long to be a call. */
  #spill(): Step {
    const released = this.#peekHeld();
    this.#clearHeld();
    this.#mode = { kind: 'text' };
    this.#lineBlank = lineBlankAfter(released, false);
    return { released, rest: '' };
  }

  #hold(s: string): void {
    if (s === '') return;
    this.#held.push(s);
    this.#heldLength += s.length;
  }

  #peekHeld(): string {
    if (this.#held.length > 1) this.#held = [this.#held.join('')];
    return this.#held[0] ?? '';
  }

  #clearHeld(): void {
    this.#held = [];
    this.#heldLength = 0;
  }
}

/** Whether `s` at index `i` starts a strong opener, may start one once more text comes, or cannot. */
function matchOpener(s: string, i: number): 'full' | 'partial' | 'none' {
  const left = s.length - i;
  const tail = left < LONGEST_OPENER ? s.slice(i) : '';
  let partial = false;
  for (const opener of STRONG_OPENERS) {
    if (s.startsWith(opener, i)) return 'full';
    if (left < opener.length && opener.startsWith(tail)) partial = true;
  }
  return partial ? 'partial' : 'none';
}

/** Whether only blanks follow the last newline of `s` (or, without one, of what came before and `s`). */
function lineBlankAfter(s: string, before: boolean): boolean {
  const nl = s.lastIndexOf('\n');
  return nl < 0 ? before && BLANK.test(s) : BLANK.test(s.slice(nl + 1));
}

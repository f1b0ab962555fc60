/**
 * Small programs inside shell words: sed scripts, awk programs and the code given to interpreters. Each scanner
 * answers one question — can this program write files or run commands? — and fails closed: text it cannot
 * follow counts as "yes".
 */

export interface ScriptScan {
  /** Why the program is not read-only; undefined when it only reads and prints. */
  problem?: string;
  /** Command strings the program would hand to a shell (`system("…")`, sed's `e command`), to check too. */
  commands: string[];
  /** Files the program reads by name (sed's `r`/`R`). */
  reads?: string[];
}

// ---------------------------------------------------------------------------------------------------------------
// sed

/**
 * Security: GNU sed runs commands (`e`, `s///e`) and writes files (`w`, `W`, `s///w`); everything else only
 * prints. A script this reader cannot follow is treated as dangerous.
 */
export function scanSed(script: string): ScriptScan {
  const reader = new SedReader(script);
  const fail = (why: string): ScriptScan => ({ problem: why, commands: reader.commands });
  while (!reader.done()) {
    reader.skipSeparators();
    if (reader.done()) break;
    if (reader.peek() === '#') {
      reader.toLineEnd();
      continue;
    }
    if (!reader.readAddresses()) return fail('sed script with an address this check cannot read');
    const cmd = reader.next();
    if (cmd === undefined) break;
    const problem = reader.readCommand(cmd);
    if (problem !== undefined) return fail(problem);
    reader.skipSpace();
    const next = reader.peek();
    if (next !== undefined && !/[;\n}#]/.test(next)) return fail('sed script this check cannot read');
  }
  return { commands: reader.commands, reads: reader.reads };
}

/** Reads one sed script from left to right: addresses, then a command and what it takes. */
class SedReader {
  readonly commands: string[] = [];
  readonly reads: string[] = [];
  #i = 0;

  constructor(readonly script: string) {}

  done(): boolean {
    return this.#i >= this.script.length;
  }

  peek(): string | undefined {
    return this.script[this.#i];
  }

  next(): string | undefined {
    return this.script[this.#i++];
  }

  skipSpace(): void {
    while (this.#i < this.script.length && (this.script[this.#i] === ' ' || this.script[this.#i] === '\t')) this.#i++;
  }

  skipSeparators(): void {
    while (this.#i < this.script.length && /[\s;]/.test(this.script[this.#i]!)) this.#i++;
  }

  /** Skips while `pattern` matches the next character. */
  skipWhile(pattern: RegExp): void {
    while (this.#i < this.script.length && pattern.test(this.script[this.#i]!)) this.#i++;
  }

  toLineEnd(): string {
    const start = this.#i;
    while (this.#i < this.script.length && this.script[this.#i] !== '\n') this.#i++;
    return this.script.slice(start, this.#i);
  }

  /** Reads up to an unescaped delimiter; returns false if the text ends first. */
  readDelimited(delim: string): boolean {
    while (this.#i < this.script.length) {
      const c = this.script[this.#i]!;
      if (c === '\\') {
        this.#i += 2;
        continue;
      }
      if (c === '\n' && delim !== '\n') return false;
      this.#i++;
      if (c === delim) return true;
    }
    return false;
  }

  /** One address: a line number, `$`, or a /regex/ (or \cregexc) with its flags. */
  readAddress(): boolean {
    const c = this.peek();
    if (c === undefined) return true;
    if (/[0-9]/.test(c)) {
      this.skipWhile(/[0-9~]/);
    } else if (c === '$') {
      this.#i++;
    } else if (c === '/' || c === '\\') {
      let delim = '/';
      if (c === '\\') {
        delim = this.script[this.#i + 1] ?? '';
        if (!delim || delim === '\n') return false;
        this.#i += 2;
      } else {
        this.#i++;
      }
      if (!this.readDelimited(delim)) return false;
      this.skipWhile(/[IM]/);
    }
    return true;
  }

  /** An address, or a range `a,b` (`a,+n`, `a,~n`), then any `!`. */
  readAddresses(): boolean {
    if (!this.readAddress()) return false;
    this.skipSpace();
    if (this.peek() === ',') {
      this.#i++;
      this.skipSpace();
      if (this.peek() === '+' || this.peek() === '~') this.#i++;
      if (!this.readAddress()) return false;
      this.skipSpace();
    }
    while (this.peek() === '!') {
      this.#i++;
      this.skipSpace();
    }
    return true;
  }

  /** Reads what the command takes; says why it is not read-only, or undefined when it only reads and prints. */
  readCommand(cmd: string): string | undefined {
    switch (cmd) {
      case '{':
      case '}':
      case '=': case 'd': case 'D': case 'g': case 'G': case 'h': case 'H': case 'n': case 'N': case 'p': case 'P':
      case 'x': case 'z': case 'F':
        return undefined;
      case 'l': case 'q': case 'Q': case 'L':
        this.skipSpace();
        this.skipWhile(/[0-9]/);
        return undefined;
      case ':':
      case 'v':
        this.skipWhile(/[^\n;]/);
        return undefined;
      case 'b': case 't': case 'T':
        this.skipWhile(/[^\n;}]/);
        return undefined;
      case 'a': case 'i': case 'c':
        // Text to the end of the line; a trailing backslash continues it.
        while (!this.done()) {
          const line = this.toLineEnd();
          if (!line.endsWith('\\')) break;
          this.#i++;
        }
        return undefined;
      case 'r': case 'R':
        this.reads.push(this.toLineEnd().trim());
        return undefined;
      case 'w': case 'W':
        return `sed's "${cmd}" command writes to a file`;
      case 'e':
        this.commands.push(this.toLineEnd().trim());
        return 'sed\'s "e" command runs a shell command';
      case 's':
        return this.#readSubstitute();
      case 'y':
        return this.#readTwoParts('sed y command this check cannot read');
      default:
        return `sed command "${cmd}" that this check does not know`;
    }
  }

  /** `s/regex/replacement/flags`: the `e` flag runs the result, the `w` flag writes it. */
  #readSubstitute(): string | undefined {
    const unreadable = this.#readTwoParts('sed s command this check cannot read');
    if (unreadable !== undefined) return unreadable;
    this.skipWhile(/[gpiImM0-9]/);
    if (this.peek() === 'e') return 'sed\'s s///e flag runs the result as a shell command';
    if (this.peek() === 'w') return 'sed\'s s///w flag writes to a file';
    return undefined;
  }

  /** A delimiter and two delimited parts (`s` and `y`); `unreadable` when they cannot be read. */
  #readTwoParts(unreadable: string): string | undefined {
    const delim = this.next();
    if (!delim || delim === '\n' || delim === '\\') return unreadable;
    if (!this.readDelimited(delim) || !this.readDelimited(delim)) return unreadable;
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// awk

/** The string literals of a program (single, double and back quotes), unescaped roughly. */
export function stringLiterals(code: string, limit = 64): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`((?:[^`\\]|\\.)*)`/g;
  for (const m of code.matchAll(re)) {
    const body = m[1] ?? m[2] ?? m[3] ?? '';
    if (body.trim() !== '') out.push(body.replace(/\\(["'`\\/])/g, '$1').replace(/\\n/g, '\n'));
    if (out.length >= limit) break;
  }
  return out;
}

/**
 * Security: awk runs commands with `system()`, pipes (`print | "cmd"`, `"cmd" | getline`), gawk's `|&` and
 * `@indirect()` calls, and writes files with `print > "file"`. The program is read with strings, regular
 * expressions and comments set aside; anything else is taken at face value.
 */
export function scanAwk(source: string): ScriptScan {
  // A backslash-newline continues a line in awk: read the program as awk will.
  const program = source.replace(/\\\r?\n/g, '');
  const commands = stringLiterals(program);
  const fail = (why: string): ScriptScan => ({ problem: why, commands });
  let bare = '';
  let i = 0;
  let prev = '';
  while (i < program.length) {
    const c = program[i]!;
    if (c === '"') {
      i++;
      while (i < program.length && program[i] !== '"') i += program[i] === '\\' ? 2 : 1;
      i++;
      bare += '""';
      prev = '"';
      continue;
    }
    if (c === '#') {
      while (i < program.length && program[i] !== '\n') i++;
      continue;
    }
    // A slash starts a regular expression only where an operand is expected; after a value it divides.
    if (c === '/' && (prev === '' || '(,{};!~&|?:=<>[\n'.includes(prev))) {
      i++;
      let closed = false;
      while (i < program.length) {
        const d = program[i]!;
        if (d === '\\') {
          i += 2;
          continue;
        }
        if (d === '\n') break;
        i++;
        if (d === '/') {
          closed = true;
          break;
        }
      }
      if (!closed) return fail('awk program this check cannot read');
      bare += '//';
      prev = '/';
      continue;
    }
    bare += c;
    if (!/\s/.test(c) || c === '\n') prev = c;
    i++;
  }
  if (/\bsystem\b/.test(bare)) return fail('awk\'s system() runs a shell command');
  if (/@/.test(bare)) return fail('gawk directives and indirect calls (@…) can load code or call system()');
  if (/\|(?!\|)/.test(bare.replace(/\|\|/g, ''))) return fail('an awk pipe (| or |&) runs a shell command');
  if (/\/inet\d?\//.test(program)) return fail('gawk network special files (/inet/…) open connections');
  // `getline < $0` reads files named by the input (a list of secret files piped in): only a literal name is seen.
  if (/\bgetline\b[^;}\n]*<\s*(?!"")/.test(bare)) return fail('awk getline reads a file whose name is only known at run time');
  for (const m of bare.matchAll(/\bprintf?\b/g)) {
    let depth = 0;
    for (let j = m.index + m[0].length; j < bare.length; j++) {
      const d = bare[j]!;
      if (d === '(') depth++;
      else if (d === ')') depth--;
      else if (depth <= 0 && (d === ';' || d === '}' || d === '\n' || d === '{')) break;
      else if (depth <= 0 && d === '>') return fail('awk print > "file" writes to a file');
    }
  }
  return { commands };
}

// ---------------------------------------------------------------------------------------------------------------
// Interpreter code (python -c, perl -e, node -e…)

export type CodeThreat = 'reverse-shell' | 'fork-bomb';

const SOCKETISH = /socket|TCPSocket|fsockopen|net\.(?:Socket|connect|createConnection)|IO::Socket|\/dev\/tcp|\/inet\/tcp|Net::|tcp:\/\//i;
const SHELLISH = new RegExp(
  String.raw`\/bin\/(?:ba|z|da|k)?sh\b|\bsh\s+-i\b|pty\.spawn|subprocess|dup2|\bexec[lv]?p?e?\b|\bspawn\b|\bsystem\b|popen|child_process|` +
    String.raw`proc_open|shell_exec|passthru|cmd\.exe`,
  'i',
);

/** Reverse shells and fork bombs, recognisable from their well-known shapes. */
export function codeThreat(code: string): CodeThreat | undefined {
  if (SOCKETISH.test(code) && SHELLISH.test(code)) return 'reverse-shell';
  if (/\bfork\b/.test(code) && (/\b(?:while|for|loop|until)\b/.test(code) || /fork\s*(?:\(\s*\))?\s*(?:&&|\|\||;)\s*fork/.test(code))) {
    return 'fork-bomb';
  }
  return undefined;
}

const NETWORKISH = new RegExp(
  String.raw`https?:\/\/|socket|requests\b|urllib|fetch\s*\(|http\.request|https?\.get|\bcurl\b|\bwget\b|smtplib|ftplib|Net::HTTP|LWP|` +
    String.raw`axios|XMLHttpRequest|\/dev\/tcp`,
  'i',
);

/** Does the code talk to the network? (used with a secret it reads: exfiltration) */
export function codeUsesNetwork(code: string): boolean {
  return NETWORKISH.test(code);
}

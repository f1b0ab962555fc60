/**
 * A small bash tokenizer for showing a command to a person: it tells command words from flags, arguments, quoted
 * strings, variables and operators so `rm -rf "$HOME" && curl … | sh` reads at a glance. It never judges safety
 * (the gateway's analyzer does) and never produces markup: the caller renders each token as a text span.
 * Joining the tokens' text always gives back the input exactly.
 */
export type ShellTokenKind =
  | 'command'
  | 'assign'
  | 'flag'
  | 'arg'
  | 'string'
  | 'variable'
  | 'operator'
  | 'redirect'
  | 'comment'
  | 'space';

export interface ShellToken {
  kind: ShellTokenKind;
  text: string;
}

/** Operators that end a command: the next word is a command again. Longest first. */
const CONTROL = ['&&', '||', ';;', '|&', '$(', '|', ';', '&', '(', ')', '`', '\n'];
/** Redirections: the next word is a file, not a command. Longest first. */
const REDIRECT = /^(?:\d*(?:<<<|<<-?|>>|>&|<&|<>|>\||>|<)|&>>?)/;
/** Words after which the next word is still the command being run (`sudo rm …`, `xargs rm …`). */
const WRAPPERS = new Set(['sudo', 'doas', 'env', 'time', 'nohup', 'exec', 'command', 'nice', 'xargs', 'builtin', 'then', 'do', 'else', 'if', 'while', 'until', '!']);
const WORD_END = /[\s;&|<>()`]/;

export function tokenizeShell(source: string): ShellToken[] {
  const tokens: ShellToken[] = [];
  const push = (kind: ShellTokenKind, text: string) => {
    const last = tokens[tokens.length - 1];
    if (last && last.kind === kind && kind !== 'operator' && kind !== 'command') last.text += text;
    else tokens.push({ kind, text });
  };
  let expectCommand = true;
  /** After a redirection: the next word is its file, and the command (if still to come) comes after that. */
  let redirectTarget = false;
  /** Inside `…`: the same character opens and closes a substitution. */
  let inBackticks = false;
  let i = 0;
  while (i < source.length) {
    const rest = source.slice(i);
    const space = /^(?:[^\S\n]|\\\n)+/.exec(rest);
    if (space) {
      push('space', space[0]);
      i += space[0].length;
      continue;
    }
    if (rest[0] === '#') {
      const end = rest.indexOf('\n');
      push('comment', end < 0 ? rest : rest.slice(0, end));
      i += end < 0 ? rest.length : end;
      continue;
    }
    const redirect = REDIRECT.exec(rest);
    if (redirect) {
      push('redirect', redirect[0]);
      i += redirect[0].length;
      redirectTarget = true;
      continue;
    }
    const control = CONTROL.find((op) => rest.startsWith(op));
    if (control) {
      tokens.push({ kind: 'operator', text: control });
      i += control.length;
      // A closing `)` or backtick ends a substitution inside a word: what follows is not a new command.
      const closing = control === ')' || (control === '`' && inBackticks);
      if (control === '`') inBackticks = !inBackticks;
      expectCommand = !closing;
      redirectTarget = false;
      continue;
    }
    const word = readWord(source, i);
    const role: ShellTokenKind = redirectTarget
      ? 'arg'
      : expectCommand
      ? /^[A-Za-z_][A-Za-z0-9_]*=/.test(word.text)
        ? 'assign'
        : 'command'
      : word.text.startsWith('-') && word.text.length > 1
        ? 'flag'
        : 'arg';
    for (const part of word.parts) push(part.kind ?? role, part.text);
    // An assignment or a wrapper (`FOO=1 sudo rm`) still leaves the command to come; so does a redirection's file.
    if (!redirectTarget) expectCommand = role === 'assign' || (role === 'command' && WRAPPERS.has(word.text));
    redirectTarget = false;
    i = word.end;
  }
  return tokens;
}

interface WordPart {
  /** undefined: plain text, coloured by the word's role. */
  kind?: ShellTokenKind;
  text: string;
}

/** One shell word from `start`: plain text, quoted strings and variables up to unquoted space or an operator. */
function readWord(source: string, start: number): { text: string; parts: WordPart[]; end: number } {
  const parts: WordPart[] = [];
  const add = (kind: ShellTokenKind | undefined, text: string) => {
    const last = parts[parts.length - 1];
    if (last && last.kind === kind) last.text += text;
    else parts.push({ kind, text });
  };
  let i = start;
  while (i < source.length && !WORD_END.test(source[i]!)) {
    const c = source[i]!;
    if (c === "'" || (c === '$' && source[i + 1] === "'")) {
      const open = c === '$' ? i + 2 : i + 1;
      const close = findClosing(source, open, "'", c === '$');
      add('string', source.slice(i, close));
      i = close;
    } else if (c === '"') {
      const close = findClosing(source, i + 1, '"', true);
      add('string', source.slice(i, close));
      i = close;
    } else if (c === '$' && source[i + 1] === '{') {
      const close = source.indexOf('}', i + 2);
      const end = close < 0 ? source.length : close + 1;
      add('variable', source.slice(i, end));
      i = end;
    } else if (c === '$' && source[i + 1] !== '(') {
      const name = /^\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])?/.exec(source.slice(i))![0];
      add('variable', name);
      i += name.length;
    } else if (c === '$') {
      break; // `$(`: an operator, handled by the caller
    } else if (c === '\\' && i + 1 < source.length) {
      add(undefined, source.slice(i, i + 2));
      i += 2;
    } else {
      add(undefined, c);
      i += 1;
    }
  }
  return { text: source.slice(start, i), parts, end: i };
}

/** Index just past the closing quote (or the end of the text when it is never closed). */
function findClosing(source: string, from: number, quote: string, escapes: boolean): number {
  for (let i = from; i < source.length; i++) {
    if (escapes && source[i] === '\\') i++;
    else if (source[i] === quote) return i + 1;
  }
  return source.length;
}

import { readFileSync } from 'node:fs';
import type { Node } from 'web-tree-sitter';

/**
 * What a shell word is worth before it runs: its exact value when the text alone decides it, and a few plausible
 * values ("guesses") when it does not, for the checks that must not be talked out of a verdict by an unknown
 * variable (`rm -rf "$EMPTY/"*` is `rm -rf /*` when the variable is empty).
 */
export interface Word {
  /** The syntax node, when the word comes from the source (absent for words made up by an analysis). */
  node?: Node;
  /** The word as written. */
  text: string;
  /** The value bash will pass, when the text alone decides it (quotes removed, escapes applied). */
  value: string | undefined;
  /** Plausible values (including `value`): unknown parts taken as empty or as values assigned earlier. */
  guesses: string[];
  /** Unquoted glob characters: the shell replaces the word with matching file names, which can start with "-". */
  glob: boolean;
  /** An unquoted expansion or brace list: the word may become several words, or none. */
  split: boolean;
  /** Some part depends on something only known when it runs (a variable, a substitution). */
  dynamic: boolean;
  /** The word stands for each file of a sweep (the `{}` of `find ~ -exec rm {} +`, the names `xargs` reads). */
  sweep?: Sweep;
}

/**
 * Every file under a tree, handed to a command one by one or in batches: `find ~ -exec shred {} +`, `find ~ -delete`,
 * `find ~ | xargs rm`. What the command does to each file, it does to the whole tree.
 */
export interface Sweep {
  /** The folder the files are found under, as written (`~`, `/`, `.`). */
  tree: Word;
  /** Every file there, as far as the text tells: no test picks files by name (`-name '*.pyc'`), nothing stops early. */
  broad: boolean;
  /** The tree's own name is among those handed over (`find / -maxdepth 0` hands over `/` alone). */
  withTree: boolean;
  /** How the files are handed over, for a reason (`find -exec`, `xargs`). */
  via: string;
}

export interface WordScope {
  /** The home folder `~` and `$HOME` stand for. */
  home: string;
  /** Literal values assigned to variables earlier in the same command line. */
  vars: ReadonlyMap<string, readonly string[]>;
  /** Variables that stand for the files of a sweep (`sh -c 'rm "$1"' _ {}` run by find). */
  sweeps?: ReadonlyMap<string, Sweep>;
  /** Told of a word that stands for more values than an analysis follows (a brace expansion, a variable's guesses). */
  tooManyWords?: (word: string) => void;
}

interface Part {
  text: string;
  /** Quoted or escaped: not subject to globbing, brace expansion or word splitting. */
  quoted: boolean;
  /** Known only at run time; `alts` are its guesses. */
  dynamic: boolean;
  alts?: string[];
  /** A variable that stands for the files of a sweep. */
  sweep?: Sweep;
}

const MAX_GUESSES = 16;

/** A word made up by an analysis (the `{}` of `find -exec`, a string split out of `sh -c`). */
export function literalWord(text: string): Word {
  return { text, value: text, guesses: [text], glob: false, split: false, dynamic: false };
}

export function evaluateWord(node: Node, scope: WordScope): Word {
  const parts = partsOf(node, scope, true);
  const text = node.text;
  const dynamic = parts.some((p) => p.dynamic);
  // Over the unquoted text as a whole: the grammar splits `/et[c]/x` into pieces, none of which is a glob alone.
  const glob = hasGlob(parts.map((p) => (p.quoted || p.dynamic ? '\u0000' : p.text)).join(''));
  const unquotedDynamic = parts.some((p) => p.dynamic && !p.quoted);
  const braceSource = parts.map((p) => (p.quoted || p.dynamic ? '\u0000' : p.text)).join('');
  const brace = /\{[^{}]*?(?:,|\.\.)[^{}]*?\}/.test(braceSource);

  let guesses = [''];
  let complete = true;
  for (const part of parts) {
    const alts = part.dynamic ? (part.alts && part.alts.length > 0 ? part.alts : ['']) : [part.text];
    const next: string[] = [];
    for (const g of guesses) {
      for (const a of alts) {
        if (next.length < MAX_GUESSES) next.push(g + a);
        else complete = false;
      }
    }
    guesses = next;
  }
  if (brace) {
    const expanded: string[] = [];
    for (const guess of guesses) {
      const words = expandBraces(guess, MAX_GUESSES * 4 - expanded.length);
      expanded.push(...words.words);
      if (!words.complete) complete = false;
    }
    guesses = expanded;
  }
  // Security: a word that stands for more values than are followed here could hide the one that matters past the
  // cut (`cat {a1,…,a70,/etc/shadow}`): the command is not judged on part of its words.
  if (!complete) scope.tooManyWords?.(text);
  const value = dynamic || brace ? undefined : parts.map((p) => p.text).join('');
  // `"$1"` alone (not `"$1.bak"`) is each file of the sweep it stands for.
  const sweep = parts.length === 1 ? parts[0]!.sweep : undefined;
  return { node, text, value, guesses: unique(guesses), glob, split: unquotedDynamic || brace, dynamic, ...(sweep && { sweep }) };
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function partsOf(node: Node, scope: WordScope, first: boolean): Part[] {
  switch (node.type) {
    case 'word':
      return unquotedParts(node.text, scope, first);
    case 'number':
      if (node.namedChildCount > 0) return [{ text: '', quoted: false, dynamic: true }];
      return [{ text: node.text, quoted: false, dynamic: false }];
    case 'raw_string':
      return [{ text: node.text.slice(1, -1), quoted: true, dynamic: false }];
    case 'ansi_c_string':
      return [{ text: decodeAnsiC(node.text.slice(2, -1)), quoted: true, dynamic: false }];
    case 'string':
      return doubleQuotedParts(node, scope);
    case 'translated_string': {
      const inner = node.namedChildren.find((c) => c.type === 'string');
      return inner ? doubleQuotedParts(inner, scope) : [{ text: '', quoted: true, dynamic: true }];
    }
    case 'concatenation': {
      const parts: Part[] = [];
      let cursor = node.startIndex;
      node.children.forEach((child, i) => {
        // Text between children (rare) is taken as written, unquoted.
        if (child.startIndex > cursor) {
          parts.push(...unquotedParts(sourceSlice(node, cursor, child.startIndex), scope, first && parts.length === 0));
        }
        parts.push(...partsOf(child, scope, first && i === 0));
        cursor = child.endIndex;
      });
      return parts;
    }
    case 'simple_expansion':
    case 'expansion':
      return [expansionPart(node, scope, false)];
    default:
      // Command and process substitutions, arithmetic, anything unexpected: known only when it runs.
      return [{ text: '', quoted: false, dynamic: true }];
  }
}

function sourceSlice(node: Node, from: number, to: number): string {
  return node.text.slice(from - node.startIndex, to - node.startIndex);
}

function doubleQuotedParts(node: Node, scope: WordScope): Part[] {
  const parts: Part[] = [];
  const end = node.endIndex - 1; // before the closing quote
  let cursor = node.startIndex + 1;
  for (const child of node.namedChildren) {
    if (child.startIndex > cursor) {
      parts.push({ text: unescapeDouble(sourceSlice(node, cursor, child.startIndex)), quoted: true, dynamic: false });
    }
    if (child.type === 'string_content') parts.push({ text: unescapeDouble(child.text), quoted: true, dynamic: false });
    else if (child.type === 'simple_expansion' || child.type === 'expansion') parts.push(expansionPart(child, scope, true));
    else parts.push({ text: '', quoted: true, dynamic: true });
    cursor = Math.max(cursor, child.endIndex);
  }
  if (end > cursor) parts.push({ text: unescapeDouble(sourceSlice(node, cursor, end)), quoted: true, dynamic: false });
  return parts;
}

function expansionPart(node: Node, scope: WordScope, quoted: boolean): Part {
  const name = node.namedChildren.find((c) => c.type === 'variable_name' || c.type === 'special_variable_name');
  const plain = name !== undefined && (node.type === 'simple_expansion' || node.text === `\${${name.text}}`);
  if (plain && name.text === 'HOME') return { text: scope.home, quoted, dynamic: false };
  const known = name ? (scope.vars.get(name.text) ?? []) : [];
  const sweep = plain ? scope.sweeps?.get(name.text) : undefined;
  // Security: `${x:-WORD}`, `${x:=WORD}`, `${x:+WORD}` (and without the colon) can stand for WORD: `cat ${x:-.e}nv`
  // read .env, judged as `cat nv`. A literal WORD is one more guess; any other (an expansion, quotes) is not known.
  const operand = /^\$\{(?:[A-Za-z_]\w*|\d+|[@*#?$!])(?:\[[^\]]*\])?:?[-=+]([\s\S]*)\}$/.exec(node.text)?.[1];
  if (operand !== undefined) {
    if (!/^[\w./@%,:~^+-]*$/.test(operand)) return { text: '', quoted, dynamic: true };
    return { text: '', quoted, dynamic: true, alts: [...new Set([...known, operand, ''])] };
  }
  return { text: '', quoted, dynamic: true, alts: [...known, ''], ...(sweep && { sweep }) };
}

/** Backslash keeps its meaning inside double quotes only before $ ` " \ and newline. */
function unescapeDouble(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c));
}

/** An unquoted run: backslash escapes quote one character; a leading `~` is the home folder. */
function unquotedParts(text: string, scope: WordScope, first: boolean): Part[] {
  const parts: Part[] = [];
  let plain = '';
  let i = 0;
  if (first && text.startsWith('~')) {
    const slash = text.indexOf('/');
    const prefix = slash === -1 ? text : text.slice(0, slash);
    if (prefix === '~') {
      parts.push({ text: scope.home, quoted: true, dynamic: false });
      i = prefix.length;
    } else if (/^~[A-Za-z_][\w.-]*$/.test(prefix)) {
      const user = prefix.slice(1);
      const alts = [...new Set([...homeOf(user), `/home/${user}`, `/Users/${user}`, ...(user === 'root' ? ['/root'] : [])])];
      parts.push({ text: '', quoted: true, dynamic: true, alts });
      i = prefix.length;
    } else if (prefix === '~+' || prefix === '~-') {
      parts.push({ text: '', quoted: true, dynamic: true });
      i = prefix.length;
    }
  }
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      if (plain) parts.push({ text: plain, quoted: false, dynamic: false });
      plain = '';
      const next = text[i + 1];
      if (next !== undefined && next !== '\n') parts.push({ text: next, quoted: true, dynamic: false });
      i++;
      continue;
    }
    plain += c;
  }
  if (plain) parts.push({ text: plain, quoted: false, dynamic: false });
  return parts;
}

const GLOB = /[*?]|\[[^\]]*\]/;

export function hasGlob(text: string): boolean {
  return GLOB.test(text);
}

/** `$'…'`: C escapes, as bash decodes them. */
export function decodeAnsiC(body: string): string {
  const simple: Record<string, string> = {
    a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v',
    '\\': '\\', "'": "'", '"': '"', '?': '?',
  };
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\' || i === body.length - 1) {
      out += c;
      continue;
    }
    const n = body[++i]!;
    if (n in simple) {
      out += simple[n];
    } else if (/[0-7]/.test(n)) {
      const m = /^[0-7]{1,3}/.exec(body.slice(i))![0];
      out += String.fromCharCode(parseInt(m, 8) & 0xff);
      i += m.length - 1;
    } else if (n === 'x' || n === 'u' || n === 'U') {
      const max = n === 'x' ? 2 : n === 'u' ? 4 : 8;
      const m = new RegExp(`^[0-9a-fA-F]{1,${max}}`).exec(body.slice(i + 1));
      if (!m) {
        out += '\\' + n;
        continue;
      }
      const code = parseInt(m[0], 16);
      out += code <= 0x10ffff ? String.fromCodePoint(code) : '';
      i += m[0].length;
    } else if (n === 'c' && i + 1 < body.length) {
      out += String.fromCharCode(body.charCodeAt(++i) & 0x1f);
    } else {
      out += '\\' + n;
    }
  }
  return out;
}

/**
 * Bash brace expansion of a static string: `{a,b}c` → ac bc, `{1..3}` → 1 2 3. At most `limit` words; `complete` is
 * false when the text expands to more.
 *
 * Security: one budget for the whole expansion, spent before each step. With a budget per step, `{a,b}` written 40
 * times made every step expand all of its tail before the budget was looked at: 2^40 steps on the gateway's only
 * thread, every client stalled by one command.
 */
export function expandBraces(text: string, limit = 64): { words: string[]; complete: boolean } {
  const words: string[] = [];
  let complete = true;
  const expand = (current: string): void => {
    const match = /\{([^{}]*?(?:,|\.\.)[^{}]*?)\}/.exec(current);
    if (!match) {
      if (words.length < limit) words.push(current);
      else complete = false;
      return;
    }
    const before = current.slice(0, match.index);
    const after = current.slice(match.index + match[0].length);
    for (const item of braceItems(match[1]!, limit + 1)) {
      if (words.length >= limit) {
        complete = false;
        return;
      }
      expand(before + item + after);
    }
  };
  expand(text);
  return { words, complete };
}

/** The alternatives of one brace group's body (`a,b,c` or a range `1..9`, `a..z`), at most `max` of them. */
function braceItems(body: string, max: number): string[] {
  const range = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])$/.exec(body);
  if (!range) return body.split(',');
  const [a, b] = [range[1]!, range[2]!];
  const numeric = /\d/.test(a);
  const from = numeric ? Number(a) : a.charCodeAt(0);
  const to = numeric ? Number(b) : b.charCodeAt(0);
  const step = from <= to ? 1 : -1;
  const items: string[] = [];
  for (let v = from; items.length < max && (step > 0 ? v <= to : v >= to); v += step) items.push(numeric ? String(v) : String.fromCharCode(v));
  return items;
}

/** A glob as a regular expression over one path; a leading `*`/`?` in a segment does not match a dot file. */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  let segmentStart = true;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' || c === '?') {
      const any = c === '*' ? '[^/]*' : '[^/]';
      out += segmentStart ? `(?!\\.)${any}` : any;
    } else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close === -1) {
        out += '\\[';
      } else {
        let cls = glob.slice(i + 1, close);
        if (cls.startsWith('!')) cls = '^' + cls.slice(1);
        out += `[${cls.replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else {
      out += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    }
    segmentStart = c === '/';
  }
  try {
    return new RegExp(`^${out}$`);
  } catch {
    return /^$/; // an unreadable class: match nothing here, the caller treats the word as unknown anyway
  }
}

/** Could the shell turn this glob into a word that starts with "-" (an option the user never typed)? */
export function globCanStartWithDash(word: Word): boolean {
  if (!word.glob) return false;
  const text = word.guesses[0] ?? word.text;
  return /^[*?[]/.test(text);
}

/** `~user`: the home folder the user database names (bash asks it too), when there is one. */
function homeOf(user: string): string[] {
  try {
    const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith(`${user}:`));
    const home = line?.split(':')[5];
    return home ? [home] : [];
  } catch {
    return [];
  }
}

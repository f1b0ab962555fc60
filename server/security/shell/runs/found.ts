import { posix } from 'node:path';
import type { RunFile } from '../../../decision.js';
import { scanOptions, type OptionGrammar } from '../options.js';
import { normalizeAbsolute } from '../named-paths.js';
import type { Word } from '../words.js';

/** The collector of one program's run files, and the helpers every family of programs shares to read its words. */

/** Folders above a command's folder that upward searches look in: deep enough for any real tree. */
const MAX_LEVELS = 40;

export type Values = (string | undefined)[];

/** Files one command names at most (`pytest t1 … t9999`); past it, everything under its folder counts instead. */
const MAX_FOUND = 1000;

/** Collects the files one program invocation runs, from each folder it may start in. */
export class Found {
  readonly files: RunFile[] = [];
  readonly #keys = new Set<string>();
  /** More than MAX_FOUND files were named. */
  overflow = false;
  constructor(
    readonly by: string,
    readonly home: string,
  ) {}

  /** A path as the program would open it from `dir`. */
  at(dir: string, text: string): string {
    if (text.startsWith('/')) return normalizeAbsolute(text);
    if (text === '~' || text.startsWith('~/')) return normalizeAbsolute(this.home + text.slice(1));
    return normalizeAbsolute(posix.resolve(dir, text));
  }

  file(path: string, by = this.by): void {
    this.#add({ path, by });
  }

  tree(path: string, names?: string[], by = this.by): void {
    this.#add({ path, by, tree: true, ...(names ? { names } : {}) });
  }

  /** What another collector (one labelled differently: `npm test`, `git commit`) found. */
  take(other: Found): void {
    for (const file of other.files) this.#add(file);
    if (other.overflow) this.overflow = true;
  }

  #add(file: RunFile): void {
    if (this.overflow) return;
    const key = runKey(file);
    if (this.#keys.has(key)) return;
    if (this.files.length >= MAX_FOUND) {
      this.overflow = true;
      return;
    }
    this.#keys.add(key);
    this.files.push(file);
  }

  /** `names` in `dir`. */
  names(dir: string, names: readonly string[]): void {
    for (const name of names) if (!this.overflow) this.file(posix.join(dir, name));
  }

  /** `names` in `dir` and in every folder above it (what a tool finds by searching upwards). */
  upwards(dir: string, names: readonly string[]): void {
    for (const folder of upFrom(dir)) if (!this.overflow) this.names(folder, names);
  }
}

/** A folder and the folders above it, nearest first. */
export function upFrom(dir: string): string[] {
  const out: string[] = [];
  let current = normalizeAbsolute(dir);
  for (let i = 0; i < MAX_LEVELS; i++) {
    out.push(current);
    const parent = posix.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return out;
}

export function runKey(file: RunFile): string {
  return `${file.tree ? 'tree' : 'file'}\0${file.path}\0${file.names?.join('\0') ?? ''}`;
}

/** One entry per file (the first command that runs it names it). */
export function uniqueRuns(files: readonly RunFile[]): RunFile[] {
  const seen = new Map<string, RunFile>();
  for (const file of files) {
    const key = runKey(file);
    if (!seen.has(key)) seen.set(key, file);
  }
  return [...seen.values()];
}

export type Handler = (found: Found, base: string, args: readonly Word[], values: Values) => void;

/** The first word that is not an option, with its index (the subcommand of npm, git, cargo…). */
export function firstOperand(values: Values, grammar: OptionGrammar = { short: '', long: [] }): number {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === undefined) return -1;
    if (v === '--') return i + 1 < values.length ? i + 1 : -1;
    if (!v.startsWith('-') || v === '-') return i;
    if (v.startsWith('--')) {
      if (!v.includes('=') && grammar.long.includes(v.slice(2))) i++;
    } else if (v.length === 2 && grammar.short.includes(v[1]!)) {
      i++;
    }
  }
  return -1;
}

/** The values an option took, in order (`-C a -C b`, `--directory=c`). */
export function optionValues(args: readonly Word[], grammar: OptionGrammar, flags: readonly string[]): string[] {
  return scanOptions(args, grammar)
    .options.filter((o) => flags.includes(o.flag))
    .map((o) => o.value?.value)
    .filter((v): v is string => v !== undefined);
}

/** Follows `-C DIR` style options, each relative to the one before. */
export function chdirs(found: Found, base: string, dirs: readonly string[]): string {
  return dirs.reduce((dir, next) => found.at(dir, next), base);
}

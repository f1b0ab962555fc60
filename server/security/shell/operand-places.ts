import { lstatSync, readdirSync, realpathSync } from 'node:fs';
import { posix } from 'node:path';
import { lookalikeForm } from '../lookalike.js';
import { isWithin } from '../within.js';
import { normalizeAbsolute, type ShellPaths } from './named-paths.js';
import { globToRegExp, hasGlob, type Word } from './words.js';

/**
 * Where a command's path operands really lead. Security: `cat docs-link/notes.txt`, with `docs-link` a link inside a
 * root to a folder outside it, reads outside the roots as surely as `cat /etc/passwd`; so operands are resolved as
 * the kernel resolves them (every symlink followed, `..` taken from the real parent) before they are judged, the way
 * the file tools judge their paths (path-guard.ts). What a word names by its text alone is named-paths.ts.
 */

export type Place = 'inside' | 'system' | 'protected' | 'outside';

export interface Judged {
  /** The path as resolved (for a glob that matched nothing, the folder it would list). */
  real: string;
  place: Place;
}

/**
 * System locations that hold no user data, readable without a prompt. Kept short on purpose:
 * - /usr, /bin, /sbin, /lib*: installed programs and their files, the same on every machine of a distribution;
 * - /etc/os-release and friends, /etc/hostname, /etc/timezone, /etc/localtime: what system this is;
 * - the /proc files that describe the hardware and kernel (not /proc/<pid>, which holds other programs' secrets);
 * - the harmless devices (/dev/null, /dev/zero, /dev/urandom, the terminal).
 * Not /etc as a whole (shadow, sudoers, keys), not /tmp or /var (other programs' files), not /home, /root, /srv.
 */
const SYSTEM_FOLDERS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
const SYSTEM_FILES = new Set([
  '/etc/os-release', '/etc/lsb-release', '/etc/debian_version', '/etc/redhat-release', '/etc/alpine-release',
  '/etc/hostname', '/etc/timezone', '/etc/localtime', '/etc/issue', '/etc/shells',
  '/proc/cpuinfo', '/proc/meminfo', '/proc/version', '/proc/uptime', '/proc/loadavg', '/proc/stat', '/proc/filesystems',
  '/dev/null', '/dev/zero', '/dev/random', '/dev/urandom', '/dev/stdin', '/dev/stdout', '/dev/stderr', '/dev/tty',
]);

/** Most entries a glob may expand to before the command is judged too large. */
const GLOB_LIMIT = 512;
/** Most names the globs of one line may read from the disk in all (each folder a glob lists is read whole). */
export const GLOB_NAMES_PER_LINE = 50_000;

/**
 * The globs of one command line, expanded against the disk. Security: each folder a glob segment lists is read whole,
 * so an `ls` of `zz*` in each of 200 folders of 2,000 files read 400,000 names — 0.2 s on the gateway's thread — and
 * a line can hold hundreds of such words, each judged more than once. A line reads at most GLOB_NAMES_PER_LINE names, each
 * glob expanded once; past that it is too large to check.
 */
export class LineGlobs {
  #namesLeft: number;
  readonly #expanded = new Map<string, string[] | 'too-many'>();

  constructor(namesLimit = GLOB_NAMES_PER_LINE) {
    this.#namesLeft = namesLimit;
  }

  /** Whether the line's globs read more names than the check does: a word judged after that could not be checked. */
  get exhausted(): boolean {
    return this.#namesLeft < 0;
  }

  expand(absolute: string): string[] | 'too-many' {
    let paths = this.#expanded.get(absolute);
    if (paths === undefined) this.#expanded.set(absolute, (paths = this.#expandGlob(absolute)));
    return paths;
  }

  /** Expands a glob path segment by segment against the disk; dot files only for a segment that starts with a dot. */
  #expandGlob(absolute: string): string[] | 'too-many' {
    let current = ['/'];
    for (const segment of absolute.split('/').filter(Boolean)) {
      const next: string[] = [];
      if (!hasGlob(segment)) {
        for (const dir of current) next.push(posix.join(dir, segment));
      } else {
        const re = globToRegExp(segment);
        for (const dir of current) {
          let names: string[];
          try {
            names = readdirSync(dir);
          } catch {
            continue;
          }
          this.#namesLeft -= names.length;
          if (this.#namesLeft < 0) return 'too-many';
          for (const name of names) if (re.test(name)) next.push(posix.join(dir, name));
          if (next.length > GLOB_LIMIT) return 'too-many';
        }
      }
      current = next;
    }
    // Like bash, only names that exist: `*/notes.txt` is the folders that hold a notes.txt.
    return current.filter((path) => {
      try {
        lstatSync(path);
        return true;
      } catch {
        return false;
      }
    });
  }
}

/** Resolves an absolute path like the kernel: symlinks followed for the part that exists, the missing tail kept. */
export function realPath(absolute: string): string {
  let existing = absolute;
  const tail: string[] = [];
  for (;;) {
    try {
      const real = realpathSync.native(existing);
      return tail.length > 0 ? posix.join(real, ...tail) : real;
    } catch {
      const parent = posix.dirname(existing);
      if (parent === existing) return normalizeAbsolute(absolute);
      tail.unshift(posix.basename(existing));
      existing = parent;
    }
  }
}

export function placeOf(real: string, paths: ShellPaths): Place {
  if (paths.protectedPaths.some((dir) => isWithin(real, dir, true))) return 'protected';
  if (paths.roots.some((root) => isWithin(real, root))) return 'inside';
  if (SYSTEM_FILES.has(real) || SYSTEM_FOLDERS.some((dir) => isWithin(real, dir)) || /^\/dev\/fd\/\d+$/.test(real)) return 'system';
  return 'outside';
}

/** A word's text as an absolute path from each folder the command may be in (unresolved: `..` after a link matters). */
export function absoluteFrom(text: string, home: string, bases: readonly string[]): string[] {
  if (text.startsWith('/')) return [text];
  if (text === '~' || text.startsWith('~/')) return [home + text.slice(1)];
  return bases.map((base) => `${base}/${text}`);
}

/**
 * Every real path a word may stand for: each guess of its value, from each folder the command may run in, with a
 * glob expanded against the disk (as bash would) — a glob that matches nothing stays itself, as in bash.
 */
export function judgeWord(word: Word, paths: ShellPaths, bases: readonly string[], globs: LineGlobs): Judged[] | 'too-many' {
  const out: Judged[] = [];
  const texts = word.value !== undefined ? [word.value] : word.guesses;
  for (const text of texts) {
    if (text === '' || text === '-') continue;
    for (const absolute of absoluteFrom(text, paths.home, bases)) {
      const expanded = word.glob && hasGlob(absolute) ? globs.expand(absolute) : [absolute];
      if (expanded === 'too-many') return 'too-many';
      // A glob that matched nothing is passed on as written: judge the folder it would have listed.
      const targets = expanded.length > 0 ? expanded : [staticPrefix(absolute)];
      for (const target of targets) {
        const real = realPath(target);
        out.push({ real, place: placeOf(real, paths) });
      }
    }
  }
  return out;
}

/** What a look-alike spelling would become once normalised, if that leaves the roots or reaches the data folder. */
export function lookalikeEscape(word: Word, paths: ShellPaths, bases: readonly string[]): string | undefined {
  for (const text of word.value !== undefined ? [word.value] : word.guesses) {
    const folded = lookalikeForm(text);
    if (folded === undefined) continue;
    // The word itself and what follows `=`, `:`, `,` or `@` in it (`--file=．．／x`).
    const pieces = [folded, ...[...folded.matchAll(/[=:,@]([^=:,@]+)/g)].map((m) => m[1]!)];
    for (const piece of pieces) {
      for (const absolute of absoluteFrom(piece.replaceAll('\\', '/'), paths.home, bases)) {
        const place = placeOf(realPath(staticPrefix(absolute)), paths);
        if (place !== 'inside') return folded;
      }
    }
  }
  return undefined;
}

/** The folder part of a path before its first glob segment. */
function staticPrefix(absolute: string): string {
  const segments = absolute.split('/');
  const at = segments.findIndex((s) => hasGlob(s));
  return at === -1 ? absolute : segments.slice(0, at).join('/') || '/';
}

/** Whether a real path is a folder (for choosing what an "always allow this folder" grant covers). */
export function isFolder(real: string): boolean {
  try {
    return lstatSync(real).isDirectory();
  } catch {
    return false;
  }
}

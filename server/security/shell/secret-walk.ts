import { lstatSync } from 'node:fs';
import { lstat, readdir, readFile, stat } from 'node:fs/promises';
import { posix } from 'node:path';
import { isWithin } from '../within.js';
import { secretFile, type ShellPaths } from './named-paths.js';
import { placeOf, realPath, type Judged } from './operand-places.js';

/**
 * Security: a recursive read (`grep -r`, `rg -uu`, `git grep`, `diff -r`) reads every file under its folders, so it
 * reads a `.env` or a `.ssh/id_ed25519` there as surely as `cat` would. The folders are walked the way the program
 * walks them (hidden files or not, links followed or not) for a file `secretFile` names, with a cap on the entries
 * visited: a walk that cannot finish cannot say there is no secret. Links that lead out of the roots are never
 * followed here (where they lead is judged by linksOut); Pincer's data folder is not walked (it is refused elsewhere).
 * The walks are asynchronous, the folders read off the gateway's thread: folder-walks.ts runs them for the analysis.
 */

/** Most entries one walk (or one git index) may hold before the read is judged too large to check. */
export const SECRET_SCAN_LIMIT = 50_000;

/** How a program walks a folder. */
export interface WalkSpec {
  /** It reads files and folders whose names start with a dot (grep -r does; rg does with --hidden, -uu…). */
  hidden: boolean;
  /** It follows symbolic links it meets (grep -R, rg -L, diff -r); only links that stay inside the roots are walked. */
  followsLinks: boolean;
  /** Only the files directly in the folder (`diff dir1 dir2` without -r). */
  shallow?: boolean;
  /** `.git` folders are not read (git grep reads the work tree, not the repository). */
  skipGitDirs?: boolean;
  /** It reads only files whose name matches one of these (grep --include, rg -g); none: every file. */
  only?: RegExp[];
  /**
   * rg: its ignore files are read. A folder one of them names plainly (`node_modules/`) is not walked, as rg does not
   * search it; a `!pattern` line anywhere brings files back (hidden ones too), so the walk starts over with hidden
   * files and nothing skipped.
   */
  ignoreFiles?: boolean;
}

export interface SecretFound {
  /** The file, as found (under the folder walked). */
  path: string;
  /** What it is ("AWS credentials"). */
  what: string;
}

export type WalkResult = SecretFound | 'too-many' | undefined;

/** The first secret file under a real folder (or the file itself), as the program would walk it. */
export async function secretUnder(start: string, spec: WalkSpec, paths: ShellPaths): Promise<WalkResult> {
  const limit = paths.scanLimit ?? SECRET_SCAN_LIMIT;
  const plain: WalkSpec = { ...spec, hidden: true, ignoreFiles: false };
  if (!spec.ignoreFiles) return (await walk(start, spec, paths, limit)) as WalkResult;
  const top = workTreeTop(start);
  const above = await ancestorIgnores(start, top);
  if (above === 'whitelist') return (await walk(start, plain, paths, limit)) as WalkResult;
  const first = await walk(start, spec, paths, limit, top, above);
  return (first === 'whitelist' ? await walk(start, plain, paths, limit) : first) as WalkResult;
}

async function walk(
  start: string,
  spec: WalkSpec,
  paths: ShellPaths,
  limit: number,
  top?: string,
  inheritedAtStart: ReadonlySet<string> = new Set(),
): Promise<WalkResult | 'whitelist'> {
  const protectedDir = (dir: string) => paths.protectedPaths.some((p) => isWithin(dir, p, true));
  let startStat;
  try {
    startStat = await stat(start);
  } catch {
    return undefined; // nothing there to read
  }
  if (!startStat.isDirectory()) return found(start, start);
  if (protectedDir(start)) return undefined;
  const queue: Array<{ dir: string; inherited: ReadonlySet<string> }> = [{ dir: start, inherited: inheritedAtStart }];
  const visited = new Set([start]);
  let seen = 0;
  while (queue.length > 0) {
    const { dir, inherited: above } = queue.pop()!;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    let inherited = above;
    let here: ReadonlySet<string> = new Set();
    if (spec.ignoreFiles) {
      const files = new Set(entries.filter((e) => IGNORE_FILES.has(e.name)).map((e) => e.name));
      const own = await ignoresIn(dir, top !== undefined && isWithin(dir, top), files);
      if (own === 'whitelist') return 'whitelist';
      inherited = own.anywhere.size > 0 ? new Set([...above, ...own.anywhere]) : above;
      here = own.here;
    }
    for (const entry of entries) {
      if (++seen > limit) return 'too-many';
      const full = posix.join(dir, entry.name);
      if (!spec.hidden && entry.name.startsWith('.')) continue;
      if (entry.isDirectory()) {
        if (spec.skipGitDirs && entry.name === '.git') continue;
        if (spec.ignoreFiles && (inherited.has(entry.name) || here.has(entry.name))) continue;
        if (!spec.shallow && !protectedDir(full)) queue.push({ dir: full, inherited });
        continue;
      }
      if (entry.isSymbolicLink()) {
        // grep -r, rg and git grep pass links by; the rest open what a link inside the roots leads to.
        if (!spec.followsLinks) continue;
        const real = realPath(full);
        if (placeOf(real, paths) !== 'inside') continue;
        let isDir: boolean;
        try {
          isDir = (await stat(real)).isDirectory();
        } catch {
          continue;
        }
        if (isDir) {
          if (!spec.shallow && !visited.has(real)) {
            visited.add(real);
            queue.push({ dir: real, inherited });
          }
          continue;
        }
        if (spec.only && !spec.only.some((re) => re.test(entry.name))) continue;
        const hit = found(full, full) ?? found(full, real);
        if (hit) return hit;
        continue;
      }
      if (spec.only && !spec.only.some((re) => re.test(entry.name))) continue;
      const hit = found(full, full);
      if (hit) return hit;
    }
  }
  return undefined;
}

/** Most entries a walk for links leading out may visit before the folder is judged too large to check. */
const LINK_SCAN_LIMIT = 50_000;

/**
 * Every symbolic link under a folder that leads out of the roots (or into the data folder), for commands that follow
 * links while they recurse (`grep -R`, `find -L`) or open names a listing printed. 'too-many' when the folder is too
 * large to check.
 */
export async function linksOut(folder: string, paths: ShellPaths): Promise<Judged[] | 'too-many'> {
  const queue = [folder];
  const out: Judged[] = [];
  let seen = 0;
  while (queue.length > 0) {
    const dir = queue.pop()!;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (++seen > LINK_SCAN_LIMIT) return 'too-many';
      const full = posix.join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        const real = realPath(full);
        const place = placeOf(real, paths);
        if (place === 'outside' || place === 'protected') out.push({ real, place });
      } else if (entry.isDirectory()) {
        queue.push(full);
      }
    }
  }
  return out;
}

function found(shown: string, real: string): SecretFound | undefined {
  const what = secretFile(real);
  return what === undefined ? undefined : { path: shown, what };
}

// ---------------------------------------------------------------------------------------------------------------
// rg's ignore files: a folder they name is not searched; `!name` whitelists a file, searched even when hidden.

/** The names whose presence in a folder ignoresIn looks for: its ignore files, and `.git` (for `.git/info/exclude`). */
const IGNORE_FILES = new Set(['.gitignore', '.ignore', '.rgignore', '.git']);

/** Folder names an ignore file leaves out: `here` only directly in its folder (`/dist`), `anywhere` at any depth. */
interface Ignored {
  here: Set<string>;
  anywhere: Set<string>;
}

/**
 * The plain names a folder's ignore files leave out (`.gitignore` only inside a git work tree, as rg reads it), or
 * 'whitelist' when a line starts with `!`. Only plain names count (`node_modules`, `/dist/`): a pattern with a glob,
 * a `/` inside or a backslash is not followed here, which only means the walk reads more than rg would.
 */
async function ignoresIn(dir: string, inRepo: boolean, present?: ReadonlySet<string>): Promise<Ignored | 'whitelist'> {
  const out: Ignored = { here: new Set(), anywhere: new Set() };
  for (const name of inRepo ? ['.gitignore', '.ignore', '.rgignore'] : ['.ignore', '.rgignore']) {
    if (present && !present.has(name)) continue; // the folder's listing, when read already, says which are there
    const text = await readSmall(posix.join(dir, name));
    if (text === undefined) continue;
    for (const raw of text.split('\n')) {
      const line = raw.replace(/\r$/, '').replace(/ +$/, '');
      if (line.startsWith('!')) return 'whitelist';
      if (line === '' || line.startsWith('#') || /[*?[\\]/.test(line)) continue;
      const anchored = line.startsWith('/');
      const bare = line.replace(/^\//, '').replace(/\/$/, '');
      if (bare === '' || bare.includes('/') || bare === '.' || bare === '..') continue;
      (anchored ? out.here : out.anywhere).add(bare);
    }
  }
  if (inRepo && (!present || present.has('.git')) && (await hasNegation(posix.join(dir, '.git', 'info', 'exclude')))) return 'whitelist';
  return out;
}

/** Names the ignore files of the folders above the start leave out anywhere below them, or 'whitelist'. */
async function ancestorIgnores(start: string, top: string | undefined): Promise<ReadonlySet<string> | 'whitelist'> {
  const names = new Set<string>();
  for (let dir = posix.dirname(start); ; dir = posix.dirname(dir)) {
    const own = await ignoresIn(dir, top !== undefined && isWithin(dir, top));
    if (own === 'whitelist') return 'whitelist';
    for (const name of own.anywhere) names.add(name);
    if (dir === '/') return names;
  }
}

async function readSmall(file: string): Promise<string | undefined> {
  try {
    if (!(await lstat(file)).isFile()) return undefined;
    return (await readFile(file, 'utf8')).slice(0, 1 << 20);
  } catch {
    return undefined;
  }
}

async function hasNegation(file: string): Promise<boolean> {
  const text = await readSmall(file);
  return text !== undefined && text.split('\n').some((line) => line.startsWith('!'));
}

// ---------------------------------------------------------------------------------------------------------------
// git grep reads the files git tracks: the paths in the repository's index.

/**
 * The first tracked file under `prefix` (a folder inside the repository, relative to its top; '' for all of it) that
 * is a secret, read from the index at `top/.git/index`. 'unknown' when the index cannot be read with certainty (a
 * `.git` file, a split or sparse index, a format this does not know): the caller then walks the work tree.
 */
export async function trackedSecret(top: string, prefixes: readonly string[], paths: ShellPaths): Promise<WalkResult | 'unknown'> {
  const limit = paths.scanLimit ?? SECRET_SCAN_LIMIT;
  const gitDir = posix.join(top, '.git');
  try {
    if (!(await lstat(gitDir)).isDirectory()) return 'unknown';
  } catch {
    return 'unknown';
  }
  let index: Buffer;
  try {
    index = await readFile(posix.join(gitDir, 'index'));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : 'unknown'; // no index: nothing tracked
  }
  let config = '';
  try {
    config = await readFile(posix.join(gitDir, 'config'), 'utf8');
  } catch {
    // no config: the default (SHA-1) object format
  }
  const hashSize = /^\s*objectformat\s*=\s*sha256\s*$/im.test(config) ? 32 : 20;
  const tracked = indexPaths(index, hashSize, limit);
  if (tracked === 'too-many' || tracked === undefined) return tracked ?? 'unknown';
  for (const path of tracked) {
    if (!prefixes.some((prefix) => prefix === '' || path === prefix || path.startsWith(`${prefix}/`))) continue;
    const full = posix.join(top, path);
    const what = secretFile(full);
    if (what !== undefined) return { path: full, what };
  }
  return undefined;
}

/** The paths in a git index (versions 2 to 4), or undefined when it holds what this reader does not follow. */
export function indexPaths(buf: Buffer, hashSize: number, limit: number): string[] | 'too-many' | undefined {
  if (buf.length < 12 + hashSize || buf.toString('latin1', 0, 4) !== 'DIRC') return undefined;
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const count = buf.readUInt32BE(8);
  if (count > limit) return 'too-many';
  const end = buf.length - hashSize;
  const out: string[] = [];
  let offset = 12;
  let previous: Buffer = Buffer.alloc(0);
  for (let n = 0; n < count; n++) {
    const start = offset;
    // ctime, mtime, dev, ino, mode, uid, gid, size (4 bytes each, times 8), the object id, then 16 bits of flags.
    offset += 40 + hashSize;
    if (offset + 2 > end) return undefined;
    const flags = buf.readUInt16BE(offset);
    offset += 2;
    if (flags & 0x4000) {
      if (version < 3) return undefined;
      offset += 2;
    }
    let name: Buffer;
    if (version === 4) {
      const strip = varint(buf, offset, end);
      if (!strip || strip.value > previous.length) return undefined;
      offset = strip.next;
      const nul = buf.indexOf(0, offset);
      if (nul === -1 || nul >= end) return undefined;
      name = Buffer.concat([previous.subarray(0, previous.length - strip.value), buf.subarray(offset, nul)]);
      offset = nul + 1;
    } else {
      const nul = buf.indexOf(0, offset);
      if (nul === -1 || nul >= end) return undefined;
      name = buf.subarray(offset, nul);
      // Each entry is padded with 1 to 8 NUL bytes to a multiple of eight.
      offset = start + (((nul - start) + 8) & ~7);
      if (offset > end) return undefined;
    }
    const path = name.toString('utf8');
    // A sparse index keeps whole folders as one entry: what they hold is not listed here.
    if (path === '' || path.endsWith('/')) return undefined;
    out.push(path);
    previous = name;
  }
  // Extensions: a split index keeps its entries in another file, a sparse one leaves folders out.
  while (offset + 8 <= end) {
    const signature = buf.toString('latin1', offset, offset + 4);
    if (signature === 'link' || signature === 'sdir') return undefined;
    offset += 8 + buf.readUInt32BE(offset + 4);
  }
  return out;
}

/** git's offset varint (index version 4). */
function varint(buf: Buffer, offset: number, end: number): { value: number; next: number } | undefined {
  if (offset >= end) return undefined;
  let c = buf[offset++]!;
  let value = c & 127;
  while (c & 128) {
    if (offset >= end || value > 2 ** 40) return undefined;
    value += 1;
    c = buf[offset++]!;
    value = value * 128 + (c & 127);
  }
  return { value, next: offset };
}

/** The top of the git work tree a real folder is in (the folder holding `.git`), if any. */
export function workTreeTop(folder: string): string | undefined {
  for (let dir = folder; ; dir = posix.dirname(dir)) {
    try {
      lstatSync(posix.join(dir, '.git'));
      return dir;
    } catch {
      // not here
    }
    if (dir === '/') return undefined;
  }
}

import { lstat, opendir, readlink } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../../errors.js';
import { isWithin } from '../within.js';
import { checkAborted, openChain, PinnedDir, PROC_FD, type Target } from './pinned.js';

/** file_list's I/O: a folder tree read through held-open folders, capped, and checked to be still where it was. */

/** Names read from one folder by file_list; more makes the listing truncated. */
const MAX_NAMES_PER_FOLDER = 20_000;
/** Entries file_list looks at in total (matching or not) before it stops. */
const MAX_SCANNED = 100_000;

export type EntryType = 'file' | 'dir' | 'symlink' | 'other';

export interface ListEntry {
  name: string;
  /** Relative to the root, `/`-separated. */
  path: string;
  type: EntryType;
  size: number;
  mtime: string;
}

export interface ListOptions {
  /** 1 lists the folder's own entries; 2 also their children… */
  maxDepth: number;
  maxEntries: number;
  includeHidden: boolean;
  /** Tested with the path relative to the listed folder; only matching entries are reported (all are walked). */
  match?: (relativeToListed: string) => boolean;
  /** Real paths no tool may see (the data directory); skipped with everything below. */
  isHidden: (real: string) => boolean;
  signal?: AbortSignal;
}

export interface ListOutcome {
  entries: ListEntry[];
  truncated: boolean;
  /** Why the listing stopped early, when it did. */
  reason?: string;
}

/**
 * Lists a folder breadth-first, sorted by name within each folder; never enters a symlinked folder. Every entry is
 * proved to be inside the listed folder before it is returned (see assertListedInside).
 */
export async function listTree(target: Target, options: ListOptions): Promise<ListOutcome> {
  const entries: ListEntry[] = [];
  const queue: string[][] = [[]];
  let scanned = 0;
  while (queue.length > 0) {
    const below = queue.shift()!;
    let dir: PinnedDir;
    try {
      dir = await openChain(target.root, [...target.parts, ...below]);
    } catch (error) {
      // A subfolder swapped for a symlink or removed since it was listed is skipped, never followed.
      if (below.length > 0 && error instanceof ToolError) continue;
      throw error;
    }
    let stop: string | undefined;
    try {
      const stat = await dir.handle.stat();
      if (!stat.isDirectory()) throw new ToolError('NOT_A_DIRECTORY', `"${target.relative}" is a file. Use file_read to read it.`);
      const names: string[] = [];
      const handle = await opendir(dir.base);
      for await (const entry of handle) {
        if (names.length >= MAX_NAMES_PER_FOLDER) {
          stop = `a folder has more than ${MAX_NAMES_PER_FOLDER} entries`;
          break;
        }
        names.push(entry.name);
      }
      names.sort();
      // This folder's matches wait here until the folder is proved inside the listed one.
      const found: ListEntry[] = [];
      const subfolders: string[][] = [];
      for (const name of names) {
        checkAborted(options.signal);
        if (!options.includeHidden && name.startsWith('.')) continue;
        if (options.isHidden(path.join(dir.real, name))) continue;
        if (++scanned > MAX_SCANNED) {
          stop = `looked at ${MAX_SCANNED} entries`;
          break;
        }
        const info = await lstat(dir.entry(name)).catch(() => null);
        if (!info) continue; // removed meanwhile
        const type: EntryType = info.isSymbolicLink() ? 'symlink' : info.isDirectory() ? 'dir' : info.isFile() ? 'file' : 'other';
        const relativeToListed = [...below, name].join('/');
        if (!options.match || options.match(relativeToListed)) {
          if (entries.length + found.length >= options.maxEntries) {
            stop = `reached max_entries (${options.maxEntries})`;
            break;
          }
          const rooted = [...target.parts, ...below, name].join('/');
          found.push({ name, path: rooted, type, size: info.size, mtime: info.mtime.toISOString() });
        }
        if (type === 'dir' && below.length + 1 < options.maxDepth) subfolders.push([...below, name]);
      }
      if (await assertListedInside(dir, below, target, found)) {
        entries.push(...found);
        queue.push(...subfolders);
      }
    } finally {
      await dir.close();
    }
    if (stop) return { entries, truncated: true, reason: stop };
  }
  return { entries, truncated: false };
}

/**
 * Security: a listing answers only with entries inside the root and folder it was asked about. The open folder's
 * real location (on Linux read back from its descriptor, so a folder moved out of the root while it was being read
 * is caught) must be where the walk says, and every name must be one plain component below it. A violation refuses
 * the whole listing (rule path:list-escape): the entry is never returned. Answers false when the folder was
 * deleted meanwhile (its entries are dropped, like a folder that vanished before it was opened).
 */
async function assertListedInside(dir: PinnedDir, below: readonly string[], target: Target, found: readonly ListEntry[]): Promise<boolean> {
  const listed = path.join(target.root, ...target.parts);
  const expected = path.join(listed, ...below);
  const real = PROC_FD ? await readlink(dir.base).catch(() => '') : dir.real;
  if (real === `${expected} (deleted)`) return false;
  const escaped = (what: string) =>
    new ToolError(
      'PATH_NOT_ALLOWED',
      `${what}, so the listing was stopped and nothing from it is returned. List the folder again; if this repeats, ` +
        'something is moving folders while they are read. (rule path:list-escape)',
      { rule: 'path:list-escape' },
    );
  if (real !== expected || !isWithin(real, listed) || !isWithin(listed, target.root)) {
    throw escaped(`The folder "${[...target.parts, ...below].join('/') || '.'}" moved while it was being read (it may now be outside the listed folder)`);
  }
  for (const entry of found) {
    const full = path.join(real, entry.name);
    const plain = entry.name !== '' && entry.name !== '.' && entry.name !== '..' && !/[/\0]/.test(entry.name);
    if (!plain || full === listed || !isWithin(full, listed)) {
      throw escaped(`An entry named "${entry.name.replace(/[^\x20-\x7e\u00a0-\uffff]/g, '?')}" is not inside the listed folder`);
    }
  }
  return true;
}

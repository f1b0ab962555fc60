import { realpath as realpathCallback } from 'node:fs';
import { lstat, readlink } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * Resolving a path the way the kernel does, one component at a time, for the file tools' guard (path-guard.ts):
 * what a path really names once every symlink and `..` is taken into account, and whether it exists.
 */

/** Linux follows at most 40 symlinks in one lookup (ELOOP); so do we. */
const MAX_SYMLINKS = 40;

/** Why a path cannot be resolved, in words for the refusal. */
export class PathProblem extends Error {}

/** The OS's realpath(3): unlike the JS one it also gives the on-disk spelling on case-insensitive disks. */
const realpathNative = promisify(realpathCallback.native);

export interface Walk {
  /** Real path of everything that exists, plus the missing tail taken literally. */
  real: string;
  /** Whether every component exists. */
  exists: boolean;
}

/**
 * Resolves an absolute path as the kernel would: each component is lstat'd, symlinks are read and their targets
 * spliced in (at most 40), `..` goes to the real parent. A missing tail is kept literally; a `..` inside it is
 * refused, since nothing guarantees what it would climb out of once those folders exist.
 */
export async function walk(absolute: string): Promise<Walk> {
  const queue = absolute.split('/').filter((part) => part !== '' && part !== '.');
  let current = '/';
  let existing = '/';
  let missing = false;
  let links = 0;
  while (queue.length > 0) {
    const part = queue.shift()!;
    if (part === '..') {
      if (missing) throw new PathProblem('".." follows a folder that does not exist. Give the path without "..".');
      current = path.dirname(current);
      existing = current;
      continue;
    }
    if (Buffer.byteLength(part) > 255) throw new PathProblem('a name in the path is longer than 255 bytes.');
    const next = path.join(current, part);
    if (missing) {
      current = next;
      continue;
    }
    let stat;
    try {
      stat = await lstat(next);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES') {
        missing = true;
        current = next;
        continue;
      }
      if (code === 'ENAMETOOLONG') throw new PathProblem('the path is too long for the file system.');
      throw error;
    }
    if (stat.isSymbolicLink()) {
      if (++links > MAX_SYMLINKS) throw new PathProblem(`more than ${MAX_SYMLINKS} symbolic links (a loop?). Use the real path.`);
      const target = await readlink(next);
      queue.unshift(...target.split('/').filter((p) => p !== '' && p !== '.'));
      if (target.startsWith('/')) current = '/';
      existing = current;
      continue;
    }
    current = next;
    existing = current;
  }
  // Canonical spelling (case on case-insensitive disks) of the part that exists; the missing tail is literal.
  let canonical = existing;
  try {
    canonical = await realpathNative(existing);
  } catch {
    // Vanished meanwhile: the literal path is still what we checked; the handler's re-check will catch a change.
  }
  const tail = path.relative(existing, current);
  return { real: tail === '' ? canonical : path.join(canonical, tail), exists: !missing };
}

/** The entry's lstat, or null when there is none (or it cannot be read). */
export async function lstatOrNull(file: string) {
  try {
    return await lstat(file);
  } catch {
    return null;
  }
}

import { constants, existsSync } from 'node:fs';
import { lstat, mkdir, open, readlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../../errors.js';
import { type PathAccess, type PathGuard } from '../path-guard.js';

/**
 * File I/O for the file tools, done so that a path checked by the guard is the path acted on (TOCTOU).
 *
 * Every operation re-checks the path with the guard, then walks from the real root to the target one folder at a
 * time, opening each with O_NOFOLLOW | O_DIRECTORY: a folder swapped for a symlink after the check makes the walk
 * fail instead of leaving the root. On Linux the folder is then addressed through its open descriptor
 * (`/proc/self/fd/N/name`), so renaming or swapping any folder above it cannot redirect the operation; elsewhere
 * the walk still refuses symlinks but later steps use the path string (best effort).
 *
 * Writes go to a temporary file created with O_EXCL | O_NOFOLLOW in the target's folder and are renamed over the
 * target: rename replaces a directory entry and never follows a symlink, and a hard link elsewhere keeps its old
 * contents.
 *
 * Refusals at run time are ToolError PATH_NOT_ALLOWED with `details.rule`: the guard's rule when the re-check
 * denies, `path:symlink-swap` when a folder or file on the way became a symlink after the check, or
 * `path:list-escape` when a folder being listed is no longer where the walk opened it.
 */

export const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = constants;
export const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
export const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
export const PROC_FD = process.platform === 'linux' && existsSync('/proc/self/fd');

/** Where a checked call acts: the real root and the components below it. */
export interface Target {
  root: string;
  resolved: string;
  /** `/`-separated, `.` for the root. */
  relative: string;
  parts: string[];
}

/**
 * Re-checks a path right before acting. `ask` passes (a person approved the call to get here); `deny` throws
 * PATH_NOT_ALLOWED naming the rule, even when the handler is called directly.
 */
export async function recheck(guard: PathGuard, input: unknown, access: PathAccess): Promise<Target> {
  const verdict = await guard.check(input, access);
  const { decision } = verdict;
  if (decision.decision === 'deny' || verdict.root === undefined || verdict.resolved === undefined || verdict.relative === undefined) {
    throw new ToolError('PATH_NOT_ALLOWED', `${decision.reason} (rule ${decision.rule})`, { rule: decision.rule });
  }
  const parts = verdict.relative === '.' ? [] : verdict.relative.split('/');
  return { root: verdict.root, resolved: verdict.resolved, relative: verdict.relative, parts };
}

/** A folder held open while we work in it. */
export class PinnedDir {
  constructor(
    readonly real: string,
    readonly handle: FileHandle,
  ) {}

  /** A path that reaches `name` in this very folder, wherever it has been moved or however its parents changed. */
  entry(name: string): string {
    return `${this.base}/${name}`;
  }

  get base(): string {
    return PROC_FD ? `/proc/self/fd/${this.handle.fd}` : this.real;
  }

  async close(): Promise<void> {
    await this.handle.close().catch(() => undefined);
  }
}

export function changed(display: string): ToolError {
  return new ToolError(
    'PATH_NOT_ALLOWED',
    `"${display}" changed while the call ran (a folder on the way became a symbolic link), so nothing was done. ` +
      'Check the path with file_list and try again with the real path. (rule path:symlink-swap)',
    { rule: 'path:symlink-swap' },
  );
}

export async function openRoot(root: string): Promise<PinnedDir> {
  let handle: FileHandle;
  try {
    handle = await open(root, DIR_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR' || code === 'ELOOP') throw changed(root);
    if (code === 'ENOENT') {
      throw new ToolError('FILE_NOT_FOUND', `The root folder ${root} no longer exists. Ask the owner to restore it or change the roots.`);
    }
    throw error;
  }
  const dir = new PinnedDir(root, handle);
  // Security: the root was realpath'd at start; if it has since been replaced by a link elsewhere, stop.
  if (PROC_FD && (await readlink(dir.base)) !== root) {
    await dir.close();
    throw changed(root);
  }
  return dir;
}

/** Opens `name` inside `dir` as a folder, refusing a symlink; optionally creates it. Does not close `dir`. */
export async function openChild(dir: PinnedDir, name: string, display: string, create = false): Promise<PinnedDir> {
  for (let attempt = 0; ; attempt++) {
    try {
      return new PinnedDir(path.join(dir.real, name), await open(dir.entry(name), DIR_FLAGS));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && create && attempt === 0) {
        await mkdir(dir.entry(name)).catch((e: NodeJS.ErrnoException) => {
          if (e.code !== 'EEXIST') throw e;
        });
        continue;
      }
      if (code === 'ENOENT') {
        throw new ToolError(
          'FILE_NOT_FOUND',
          `The folder "${display}" does not exist. Check the path with file_list (file_write creates missing folders when create_dirs is true).`,
        );
      }
      if (code === 'ENOTDIR' || code === 'ELOOP') {
        const stat = await lstat(dir.entry(name)).catch(() => null);
        if (stat?.isSymbolicLink()) throw changed(display);
        throw new ToolError('NOT_A_DIRECTORY', `"${display}" is a file, not a folder, so nothing can be inside it.`);
      }
      throw error;
    }
  }
}

/** Opens the folders `parts` below the root, one by one, never through a symlink. */
export async function openChain(root: string, parts: readonly string[], create = false): Promise<PinnedDir> {
  let dir = await openRoot(root);
  for (let i = 0; i < parts.length; i++) {
    try {
      const child = await openChild(dir, parts[i]!, parts.slice(0, i + 1).join('/'), create);
      await dir.close();
      dir = child;
    } catch (error) {
      await dir.close();
      throw error;
    }
  }
  return dir;
}

/** Runs `work` in the target's parent folder, held open. */
export async function inParent<T>(target: Target, create: boolean, work: (dir: PinnedDir, name: string) => Promise<T>): Promise<T> {
  const name = target.parts.at(-1);
  if (name === undefined) throw new ToolError('NOT_A_FILE', `"${target.relative}" is the root folder itself, not a file.`);
  const dir = await openChain(target.root, target.parts.slice(0, -1), create);
  try {
    return await work(dir, name);
  } finally {
    await dir.close();
  }
}

export function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('The call was cancelled.');
}

/** Opens a regular file for reading without following a symlink and without blocking on a FIFO. */
export async function openRegular(dir: PinnedDir, name: string, display: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(dir.entry(name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ToolError('FILE_NOT_FOUND', `"${display}" does not exist. Look for the right name with file_list.`);
    if (code === 'ELOOP') throw changed(display);
    throw error;
  }
  const stat = await handle.stat();
  if (!stat.isFile()) {
    await handle.close();
    throw new ToolError(
      'NOT_A_FILE',
      stat.isDirectory()
        ? `"${display}" is a folder. Use file_list to see what is inside it.`
        : `"${display}" is not a regular file (a device, pipe or socket), so it cannot be read as one.`,
    );
  }
  return handle;
}

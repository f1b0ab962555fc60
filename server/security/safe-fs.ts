import { constants, existsSync } from 'node:fs';
import { lstat, mkdir, open, opendir, readlink, rename, rmdir, unlink, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ToolError } from '../errors.js';
import { isWithin, type PathAccess, type PathGuard } from './paths.js';

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

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = constants;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
const PROC_FD = process.platform === 'linux' && existsSync('/proc/self/fd');
/** Deepest folder a recursive delete descends into; each level holds one open descriptor. */
const MAX_DELETE_DEPTH = 256;
/** Names read from one folder by file_list; more makes the listing truncated. */
const MAX_NAMES_PER_FOLDER = 20_000;
/** Entries file_list looks at in total (matching or not) before it stops. */
const MAX_SCANNED = 100_000;

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
class PinnedDir {
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

function changed(display: string): ToolError {
  return new ToolError(
    'PATH_NOT_ALLOWED',
    `"${display}" changed while the call ran (a folder on the way became a symbolic link), so nothing was done. ` +
      'Check the path with file_list and try again with the real path. (rule path:symlink-swap)',
    { rule: 'path:symlink-swap' },
  );
}

async function openRoot(root: string): Promise<PinnedDir> {
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
async function openChild(dir: PinnedDir, name: string, display: string, create = false): Promise<PinnedDir> {
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
async function openChain(root: string, parts: readonly string[], create = false): Promise<PinnedDir> {
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
async function inParent<T>(target: Target, create: boolean, work: (dir: PinnedDir, name: string) => Promise<T>): Promise<T> {
  const name = target.parts.at(-1);
  if (name === undefined) throw new ToolError('NOT_A_FILE', `"${target.relative}" is the root folder itself, not a file.`);
  const dir = await openChain(target.root, target.parts.slice(0, -1), create);
  try {
    return await work(dir, name);
  } finally {
    await dir.close();
  }
}

function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('The call was cancelled.');
}

/** Opens a regular file for reading without following a symlink and without blocking on a FIFO. */
async function openRegular(dir: PinnedDir, name: string, display: string): Promise<FileHandle> {
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

export interface ReadWindow {
  data: Buffer;
  /** Size of the whole file in bytes. */
  size: number;
}

/** Reads at most `length` bytes from `offset`. */
export async function readWindow(target: Target, offset: number, length: number): Promise<ReadWindow> {
  return inParent(target, false, async (dir, name) => {
    const handle = await openRegular(dir, name, target.relative);
    try {
      const { size } = await handle.stat();
      const wanted = Math.max(0, Math.min(length, size - offset));
      const data = Buffer.alloc(wanted);
      let filled = 0;
      while (filled < wanted) {
        const { bytesRead } = await handle.read(data, filled, wanted - filled, offset + filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return { data: data.subarray(0, filled), size };
    } finally {
      await handle.close();
    }
  });
}

export type WriteMode = 'overwrite' | 'append' | 'create';

export interface WriteOutcome {
  created: boolean;
  /** Size of the file after the write. */
  size: number;
}

/** Writes `data` as the whole new content (or appended to the old), atomically, never through a symlink. */
export async function writeAtomic(
  target: Target,
  data: Buffer,
  options: { mode: WriteMode; createDirs: boolean; maxExisting: number },
): Promise<WriteOutcome> {
  return inParent(target, options.createDirs, async (dir, name) => {
    const existing = await lstat(dir.entry(name)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    // Security: refuse symlinks on write — the target could be swapped to point outside the root.
    if (existing?.isSymbolicLink()) throw changed(target.relative);
    if (existing?.isDirectory()) throw new ToolError('NOT_A_FILE', `"${target.relative}" is a folder; give the path of a file inside it.`);
    if (existing && !existing.isFile()) {
      throw new ToolError('NOT_A_FILE', `"${target.relative}" is a device, pipe or socket, not a regular file; it cannot be written as one.`);
    }
    if (options.mode === 'create') {
      if (existing) throw fileExists(target.relative);
      return createExclusive(dir, name, data, target.relative);
    }
    let prefix: Buffer | undefined;
    if (options.mode === 'append' && existing) {
      if (existing.size > options.maxExisting) {
        throw new ToolError(
          'FILE_TOO_LARGE',
          `"${target.relative}" is ${existing.size} bytes; appending copies the file and works up to ${options.maxExisting} bytes. ` +
            'Write the addition to a new file instead.',
          { size: existing.size, limit: options.maxExisting },
        );
      }
      const handle = await openRegular(dir, name, target.relative);
      try {
        prefix = await handle.readFile();
      } finally {
        await handle.close();
      }
    }
    // Short and fixed-length, so a 255-byte name still gets a temp name the file system accepts.
    const temp = `.pincer-${randomBytes(8).toString('hex')}.tmp`;
    const handle = await open(dir.entry(temp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o666);
    try {
      if (prefix) await handle.writeFile(prefix);
      await handle.writeFile(data);
      if (existing) await handle.chmod(existing.mode & 0o777);
      await handle.datasync();
      await handle.close();
      await rename(dir.entry(temp), dir.entry(name));
    } catch (error) {
      await handle.close().catch(() => undefined);
      await unlink(dir.entry(temp)).catch(() => undefined);
      throw error;
    }
    return { created: existing === null, size: (prefix?.length ?? 0) + data.length };
  });
}

function fileExists(display: string): ToolError {
  return new ToolError(
    'FILE_EXISTS',
    `"${display}" already exists and mode "create" never replaces a file. Use mode "overwrite" to replace it or "append" to add to it.`,
  );
}

/** O_CREAT | O_EXCL never follows a symlink and never replaces anything: the atomic "create only". */
async function createExclusive(dir: PinnedDir, name: string, data: Buffer, display: string): Promise<WriteOutcome> {
  let handle: FileHandle;
  try {
    handle = await open(dir.entry(name), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o666);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw fileExists(display);
    throw error;
  }
  try {
    await handle.writeFile(data);
    await handle.datasync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(dir.entry(name)).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return { created: true, size: data.length };
}

export interface RemoveOutcome {
  type: 'file' | 'dir' | 'symlink' | 'other';
  files: number;
  dirs: number;
}

/** Removes a file, a symlink (never its target), an empty folder, or with `recursive` a folder tree. */
export async function removeEntry(target: Target, options: { recursive: boolean; signal?: AbortSignal }): Promise<RemoveOutcome> {
  return inParent(target, false, async (dir, name) => {
    const stat = await lstat(dir.entry(name)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new ToolError('FILE_NOT_FOUND', `"${target.relative}" does not exist, so there is nothing to delete.`);
      throw error;
    });
    if (!stat.isDirectory()) {
      await unlink(dir.entry(name));
      const type = stat.isSymbolicLink() ? 'symlink' : stat.isFile() ? 'file' : 'other';
      return { type, files: 1, dirs: 0 };
    }
    try {
      await rmdir(dir.entry(name));
      return { type: 'dir', files: 0, dirs: 1 };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
    }
    if (!options.recursive) {
      throw new ToolError(
        'DIRECTORY_NOT_EMPTY',
        `"${target.relative}" is a folder that is not empty. Set recursive to true to delete it with everything inside, ` +
          'or delete its contents first.',
      );
    }
    const counts = { files: 0, dirs: 0 };
    const child = await openChild(dir, name, target.relative);
    try {
      await removeContents(child, target.relative, counts, 1, options.signal);
    } finally {
      await child.close();
    }
    await rmdir(dir.entry(name));
    counts.dirs++;
    return { type: 'dir', ...counts };
  });
}

/** Empties a held-open folder. Symlinks met inside are removed as links; a folder swapped for one is never entered. */
async function removeContents(
  dir: PinnedDir,
  display: string,
  counts: { files: number; dirs: number },
  depth: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (depth > MAX_DELETE_DEPTH) throw new ToolError('DIRECTORY_TOO_DEEP', `"${display}" nests folders more than ${MAX_DELETE_DEPTH} deep.`);
  const handle = await opendir(dir.base);
  const names: string[] = [];
  for await (const entry of handle) names.push(entry.name);
  for (const name of names) {
    checkAborted(signal);
    const shown = `${display}/${name}`;
    // lstat rather than the dirent type: some file systems do not report types in readdir.
    const stat = await lstat(dir.entry(name)).catch(() => null);
    if (!stat) continue; // removed meanwhile
    if (stat.isDirectory()) {
      let child: PinnedDir | undefined;
      try {
        child = await openChild(dir, name, shown);
      } catch (error) {
        // Swapped for a symlink since it was listed: remove the link itself below, never what it points to.
        if (!(error instanceof ToolError)) throw error;
      }
      if (child) {
        try {
          await removeContents(child, shown, counts, depth + 1, signal);
        } finally {
          await child.close();
        }
        await rmdir(dir.entry(name));
        counts.dirs++;
        continue;
      }
    }
    await unlink(dir.entry(name));
    counts.files++;
  }
}

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

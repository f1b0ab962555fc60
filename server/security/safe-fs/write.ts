import { lstat, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { ToolError } from '../../errors.js';
import { changed, inParent, O_CREAT, O_EXCL, O_NOFOLLOW, O_WRONLY, openRegular, PinnedDir, type Target } from './pinned.js';

/** file_write's I/O: a whole new content (or an append) written atomically, or a create that never replaces. */

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

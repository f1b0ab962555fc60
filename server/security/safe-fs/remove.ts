import { lstat, opendir, rmdir, unlink } from 'node:fs/promises';
import { ToolError } from '../../errors.js';
import { checkAborted, inParent, openChild, PinnedDir, type Target } from './pinned.js';

/** file_delete's I/O: a file, a link (never its target), a folder, or a whole tree entered only through real folders. */

/** Deepest folder a recursive delete descends into; each level holds one open descriptor. */
const MAX_DELETE_DEPTH = 256;

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

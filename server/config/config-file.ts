import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, lstatSync, openSync, realpathSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Replaces config.json with `config`, atomically: the new text goes to a temporary file next to it (mode 0600, it
 * may name private folders and hosts), is flushed to disk, and is then renamed over the old file. A crash or a full
 * disk leaves either the old file or the new one, never half of one. A config.json that is a symlink (kept with the
 * user's dotfiles) is written where the link points, and stays a link.
 */
export function writeConfigFile(file: string, config: Record<string, unknown>): void {
  const target = isSymlink(file) ? realpathSync(file) : file;
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const text = `${JSON.stringify(config, null, 2)}\n`;
  let fd: number | undefined;
  try {
    // 'wx': never reuse (or follow) something already at the temporary name.
    fd = openSync(temp, 'wx', 0o600);
    writeSync(fd, text);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, target);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  syncDirectory(dirname(target));
}

function isSymlink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Makes the rename itself durable; best effort, since some file systems refuse to open a directory for this. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // The file is in place either way.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

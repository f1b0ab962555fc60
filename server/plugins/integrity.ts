import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** A plugin bigger than this is refused rather than hashed: a plugin is code, not a data store. */
const MAX_FILES = 5_000;
const MAX_BYTES = 50 * 1024 * 1024;

export class IntegrityError extends Error {
  override readonly name = 'IntegrityError';
}

/**
 * One hash over every file of a plugin folder (relative path and content, in a fixed order), so any change — code,
 * manifest, a dependency under node_modules, a file added or removed — shows as a new hash. Symbolic links are
 * hashed as their target path, not followed: a link cannot make the plugin's trust depend on files outside it.
 */
export function hashPluginFolder(dir: string): { hash: string; files: number; bytes: number } {
  const hash = createHash('sha256');
  let files = 0;
  let bytes = 0;
  const walk = (folder: string) => {
    for (const name of readdirSync(folder).sort()) {
      if (name === '.git') continue;
      const path = join(folder, name);
      const rel = relative(dir, path).split(sep).join('/');
      const stat = lstatSync(path);
      if (stat.isDirectory()) {
        walk(path);
        continue;
      }
      files += 1;
      if (files > MAX_FILES) throw new IntegrityError(`the folder holds more than ${MAX_FILES} files`);
      hash.update(`${rel}\0`);
      if (stat.isSymbolicLink()) {
        hash.update(`link\0${readlinkSafe(path)}\0`);
      } else if (stat.isFile()) {
        bytes += stat.size;
        if (bytes > MAX_BYTES) throw new IntegrityError(`the folder holds more than ${MAX_BYTES / 1024 / 1024} MiB`);
        hash.update(readFileSync(path)).update('\0');
      }
    }
  };
  walk(dir);
  return { hash: hash.digest('hex'), files, bytes };
}

function readlinkSafe(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}


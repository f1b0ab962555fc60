import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** A plugin bigger than this is refused rather than hashed: a plugin is code, not a data store. */
const MAX_FILES = 5_000;
const MAX_BYTES = 50 * 1024 * 1024;

export class IntegrityError extends Error {
  override readonly name = 'IntegrityError';
}

/** One file of a plugin as hashed: its path in the folder (`/`-separated), size and content hash. */
export interface HashedFile {
  path: string;
  size: number;
  sha256: string;
  /** A symbolic link: where it points, relative to the folder (its content is the target's). */
  link?: string;
}

export interface FolderHash {
  hash: string;
  files: HashedFile[];
  bytes: number;
}

export interface HashOptions {
  /**
   * Files no plugin may hold a hard link to (the data directory's secrets): a hard link is a regular file here, so
   * only its inode gives it away.
   */
  protectedFiles?: readonly string[];
}

/**
 * One hash over every file of a plugin folder (relative path, where a link points, size and content hash, in a fixed
 * order), so any change — code, manifest, a dependency under node_modules, a file added or removed — shows as a new
 * hash. Only the folder's own `.git` is left out (it is not code the plugin loads, and the plugin is not let read it).
 *
 * Security: a symbolic link is followed only to check that it stays inside: one pointing out of the folder (to the
 * owner secret, say) makes the folder invalid, since Node's permission model would let the plugin read through it.
 * A link inside is hashed as its target path and the target's content.
 */
export function hashPluginFolder(dir: string, options: HashOptions = {}): FolderHash {
  const files: HashedFile[] = [];
  let bytes = 0;
  const real = realpathSync(dir);
  const guarded = protectedInodes(options.protectedFiles ?? []);
  const count = () => {
    if (files.length > MAX_FILES) throw new IntegrityError(`the folder holds more than ${MAX_FILES} files`);
  };
  const addBytes = (size: number) => {
    bytes += size;
    if (bytes > MAX_BYTES) throw new IntegrityError(`the folder holds more than ${MAX_BYTES / 1024 / 1024} MiB`);
  };
  const walk = (folder: string) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      if (folder === dir && name === '.git') continue;
      const rel = toSlashes(relative(dir, path));
      const stat = lstatSync(path);
      if (stat.isDirectory()) {
        walk(path);
        continue;
      }
      if (stat.isSymbolicLink()) {
        const target = linkTarget(real, path, rel);
        if (target.file) {
          const content = readFileSync(path);
          addBytes(content.length);
          files.push({ path: rel, size: content.length, sha256: sha256(content), link: target.rel });
        } else {
          files.push({ path: rel, size: 0, sha256: '', link: target.rel });
        }
      } else if (stat.isFile()) {
        const owned = guarded.get(`${stat.dev}:${stat.ino}`);
        if (owned) throw new IntegrityError(`${rel} is a hard link to ${owned}, outside the plugin folder: remove it`);
        addBytes(stat.size);
        const content = readFileSync(path);
        files.push({ path: rel, size: content.length, sha256: sha256(content) });
      } else {
        throw new IntegrityError(`${rel} is not a file, a folder or a link (a socket or device cannot be part of a plugin): remove it`);
      }
      count();
    }
  };
  walk(dir);
  return { hash: folderHash(files), files, bytes };
}

/**
 * The hash of a folder from its files, one JSON record each: path, link target, size and content hash.
 *
 * Security: each record is delimited and says how long its content is. Hashing the raw bytes of path and content
 * one after another, with a separator byte, let a file whose content held that byte take over the next file's place:
 * two different folders (new code in a file, the old code pushed into another one's tail) had the same hash, so code
 * the owner never saw ran as the plugin they accepted.
 */
export function folderHash(files: readonly HashedFile[]): string {
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${JSON.stringify([file.path, file.link ?? null, file.size, file.sha256])}\n`);
  return hash.digest('hex');
}

/** Where a link inside the plugin points, relative to the folder; throws when that is outside it or nowhere. */
function linkTarget(realDir: string, path: string, rel: string): { rel: string; file: boolean } {
  let text = '';
  try {
    text = readlinkSync(path);
  } catch {
    // Unreadable: reported below as pointing nowhere.
  }
  let target: string;
  try {
    target = realpathSync(path);
  } catch {
    throw new IntegrityError(`${rel} is a link to ${resolve(dirname(path), text)}, which does not exist: remove it or make it point inside the plugin folder`);
  }
  const inside = relative(realDir, target);
  if (inside === '' || inside.startsWith('..') || inside.startsWith(sep) || resolve(realDir, inside) !== target) {
    throw new IntegrityError(`${rel} is a link to ${target}, outside the plugin folder: a plugin may only hold its own files (remove the link or copy the file in)`);
  }
  const insideRel = toSlashes(inside);
  if (insideRel === '.git' || insideRel.startsWith('.git/')) {
    throw new IntegrityError(`${rel} is a link into .git, which is not part of the plugin Pincer checks: remove it`);
  }
  return { rel: insideRel, file: statSync(target).isFile() };
}

function protectedInodes(paths: readonly string[]): Map<string, string> {
  const inodes = new Map<string, string>();
  for (const path of paths) {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isFile()) inodes.set(`${stat.dev}:${stat.ino}`, path);
  }
  return inodes;
}

function sha256(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

function toSlashes(path: string): string {
  return path.split(sep).join('/');
}

/** The data directory's own files (owner secret, tokens, database): no plugin may hold a hard link to one. */
export function dataDirFiles(dataDir: string): string[] {
  try {
    return readdirSync(dataDir)
      .map((name) => join(dataDir, name))
      .filter((path) => statSync(path, { throwIfNoEntry: false })?.isFile());
  } catch {
    return [];
  }
}

/** A plugin folder's hash as it is now; null when it can no longer be hashed (gone, too big, a link out). */
export function hashNow(dir: string, dataDir: string): string | null {
  try {
    return hashPluginFolder(dir, { protectedFiles: dataDirFiles(dataDir) }).hash;
  } catch {
    return null;
  }
}

import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { chmod, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/** Every scratch folder's name starts with this, so one left behind is recognisable as Pincer's. */
const SCRATCH_PREFIX = 'pincer-';

/** A fresh private (0700) folder in the system's temporary folder, e.g. `/tmp/pincer-python-Ab12Cd`. */
export function createScratchFolder(name: string, base = tmpdir()): string {
  if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`bad scratch folder name "${name}"`);
  return mkdtempSync(join(base, `${SCRATCH_PREFIX}${name}-`));
}

/** Removes a scratch folder and everything in it; false (after saying why through `warn`) when it could not. */
export async function removeScratchFolder(folder: string, warn: (line: string) => void = () => undefined): Promise<boolean> {
  try {
    await rm(folder, { recursive: true, force: true, maxRetries: 2 });
    return true;
  } catch {
    // Code may have made its own files unreadable (chmod 000) to survive the cleanup.
    await restorePermissions(folder);
  }
  try {
    await rm(folder, { recursive: true, force: true, maxRetries: 2 });
    return true;
  } catch (error) {
    warn(`could not remove the scratch folder ${folder}: ${(error as Error).message}`);
    return false;
  }
}

/** The same, synchronously, for a process that is exiting now. */
export function removeScratchFolderSync(folder: string): boolean {
  try {
    rmSync(folder, { recursive: true, force: true });
    return true;
  } catch {
    restorePermissionsSync(folder);
  }
  try {
    rmSync(folder, { recursive: true, force: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `folder`, read back from the ledger on disk, may be removed: a real folder (not a symlink) named like a
 * scratch folder, owned by this user. Security: the ledger is a file; should anything have written a path such as
 * the home folder into it, the next start must not delete that.
 */
export function looksLikeScratchFolder(folder: string): boolean {
  // mkdtemp adds six characters to the prefix.
  if (!/^pincer-[a-z][a-z0-9-]*-[A-Za-z0-9]{6}$/.test(basename(folder)) || dirname(folder) === folder) return false;
  try {
    const stat = lstatSync(folder);
    return stat.isDirectory() && (typeof process.getuid !== 'function' || stat.uid === process.getuid());
  } catch {
    return false;
  }
}

async function restorePermissions(folder: string): Promise<void> {
  const pending = [folder];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    await chmod(dir, 0o700).catch(() => undefined);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) if (entry.isDirectory()) pending.push(join(dir, entry.name));
  }
}

function restorePermissionsSync(folder: string): void {
  const pending = [folder];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    try {
      chmodSync(dir, 0o700);
      for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) pending.push(join(dir, entry.name));
    } catch {
      // gone, or not ours
    }
  }
}

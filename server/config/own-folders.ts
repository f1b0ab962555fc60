import { homedir } from 'node:os';
import { dirname, sep } from 'node:path';
import { packagePath } from '../util/package-files.js';
import { realOrResolved } from '../util/real-path.js';
import { PACKAGE_ROOT } from '../version.js';

/**
 * Pincer's own folders: its package (its code), its bundled plugins and its data folder. Security: bundled plugins
 * are trusted as shipped and reloaded when they change, and Pincer's code runs as Pincer, so a tool that could write
 * either would run code with no approval; the data folder holds the tokens, the owner secret and the database. None
 * of them is ever a root, and no tool writes into them (the data folder is not even readable).
 */
export interface OwnFolder {
  /** Real path (realpath'd where it exists). */
  path: string;
  kind: 'package' | 'plugins' | 'data';
}

const WHAT: Record<OwnFolder['kind'], string> = {
  package: "Pincer's own package folder (its code)",
  plugins: "Pincer's bundled plugins folder",
  data: "Pincer's data folder (tokens, database, settings)",
};

/** The package and bundled plugins folders (readable, never writable) and the data folder (out of reach). */
export function ownFolders(dataDir: string, bundledPluginsDir?: string | null): OwnFolder[] {
  const found: OwnFolder[] = [];
  const add = (path: string, kind: OwnFolder['kind']) => {
    const real = realOrResolved(path);
    if (!found.some((f) => f.path === real)) found.push({ path: real, kind });
  };
  add(PACKAGE_ROOT, 'package');
  // The desktop app keeps the files child processes open beside its archive, unpacked.
  if (PACKAGE_ROOT.endsWith(`${sep}app.asar`)) add(`${PACKAGE_ROOT}.unpacked`, 'package');
  add(packagePath('plugins'), 'plugins');
  if (bundledPluginsDir) add(bundledPluginsDir, 'plugins');
  add(dataDir, 'data');
  return found;
}

/** The folders tools may read (inside a root) but never write: the package and bundled plugins. */
export function codeFolders(folders: readonly OwnFolder[]): string[] {
  return folders.filter((f) => f.kind !== 'data').map((f) => f.path);
}

/** The folders no tool may touch at all: the data folder. */
export function dataFolders(folders: readonly OwnFolder[]): string[] {
  return folders.filter((f) => f.kind === 'data').map((f) => f.path);
}

/**
 * Why `root` cannot be a root, or undefined when it can: it is one of Pincer's own folders or lies inside one. A
 * folder that *contains* one (the home folder holding `~/.pincer` or a checkout of Pincer) is a workspace like any
 * other; the folders inside it stay protected by the path guard, the shell check and the sandbox.
 */
export function ownFolderProblem(root: string, folders: readonly OwnFolder[]): string | undefined {
  const real = realOrResolved(root);
  // The innermost folder names it best: plugins/investment is inside the bundled plugins, not just the package.
  const hit = folders
    .filter((f) => real === f.path || real.startsWith(f.path.endsWith(sep) ? f.path : f.path + sep))
    .sort((a, b) => b.path.length - a.path.length)[0];
  if (hit === undefined) return undefined;
  return real === hit.path ? `is ${WHAT[hit.kind]}` : `is inside ${WHAT[hit.kind]}, ${hit.path}`;
}

/**
 * Why the working folder is not taken as the root when none is configured, or undefined when it is: `/` (Claude
 * Desktop starts `pincer mcp` there) and the home folder itself would share everything; Pincer's own folders never.
 */
export function defaultRootProblem(cwd: string, folders: readonly OwnFolder[], home = homedir()): string | undefined {
  const real = realOrResolved(cwd);
  if (dirname(real) === real) return `is the top of the file system ("${real}")`;
  if (real === realOrResolved(home)) return 'is the home folder itself';
  return ownFolderProblem(real, folders);
}



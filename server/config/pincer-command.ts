import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../version.js';

/** How a program starts this installation's `pincer`, with absolute paths that exist. */
export interface PincerLaunch {
  command: string;
  args: string[];
}

/**
 * The command that runs this very `pincer`: the installed app's own launcher beside its app.asar, else Node with the
 * package's bin/pincer.js. Absolute, so it works from an MCP client that starts it with no PATH of its own, and from
 * any folder (`npx pincer` works only inside the checkout).
 */
export function pincerLaunch(root = PACKAGE_ROOT, execPath = process.execPath): PincerLaunch {
  const launcher = installedLauncher(root);
  if (launcher) return { command: launcher, args: [] };
  return { command: execPath, args: [join(root, 'bin', 'pincer.js')] };
}

function installedLauncher(root: string): string | undefined {
  if (basename(root) !== 'app.asar') return undefined;
  const launcher = join(dirname(root), process.platform === 'win32' ? 'pincer.cmd' : 'pincer');
  return existsSync(launcher) ? launcher : undefined;
}

/** Whether a data folder is the one every command finds by itself (`~/.pincer`), so it need not be named. */
export function isDefaultDataDir(dataDir: string, home = homedir()): boolean {
  return resolve(dataDir) === join(home, '.pincer');
}

/**
 * The line a person types in a terminal on this machine to get a dashboard login link from this gateway: the
 * installed launcher, or `node <checkout>/bin/pincer.js` (the gateway may run inside Electron, whose executable is no
 * Node unless told, so "node" is named rather than this process's executable); the data folder when it is not the
 * default (commands find the gateway, whatever its port, through the folder).
 */
export function loginCommand(dataDir: string, root = PACKAGE_ROOT): string {
  const launcher = installedLauncher(root);
  const words = launcher ? [launcher] : ['node', join(root, 'bin', 'pincer.js')];
  words.push('login-url');
  if (!isDefaultDataDir(dataDir)) words.push('--data-dir', dataDir);
  return words.map(shellWord).join(' ');
}

/** A word as a POSIX shell (and PowerShell, for plain paths) reads it back: quoted only when it has to be. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./\\-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

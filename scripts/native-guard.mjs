#!/usr/bin/env node
// `npm test`'s first step: the native addons in node_modules must load in Node. An interrupted Electron rebuild,
// or a Node upgrade, leaves one that does not, and then most tests fail with an error that does not say why.
// Each addon is loaded in a child process (a crash there cannot take this one down); one that fails is rebuilt
// with `npm rebuild <name>` and loaded again.
import { spawnSync } from 'node:child_process';
import { basename } from 'node:path';
import { ROOT } from './desktop/electron.mjs';

/**
 * @typedef {{ name: string, probe: string }} Addon
 * `probe` is CommonJS run with `node -e` in the project folder; it exits non-zero when the addon does not work.
 */

/** @type {Addon[]} */
export const ADDONS = [
  {
    name: 'better-sqlite3',
    probe: "const Database = require('better-sqlite3'); const db = new Database(':memory:'); db.prepare('select 1').get(); db.close();",
  },
  // Node-API: the one build serves Node and Electron; loading it is what fails when it is broken.
  { name: 'node-pty', probe: "require('node-pty');" },
];

/**
 * Loads one addon in a child Node; undefined when it works, else the first line of what went wrong.
 * @param {Addon} addon
 * @param {string} [root]
 * @returns {string | undefined}
 */
export function probeAddon(addon, root = ROOT) {
  const run = spawnSync(process.execPath, ['-e', addon.probe], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  if (run.status === 0) return undefined;
  // Node prints the source line of the throw first, then "Error: …" (or "TypeError [CODE]: …"), then the stack.
  const lines = (run.stderr || '').split('\n').map((line) => line.trim());
  const message = lines.find((line) => /^[A-Za-z]*Error( \[\w+\])?:/.test(line)) ?? lines.find((line) => /error/i.test(line));
  return message ?? run.error?.message ?? `exit code ${run.status}${run.signal ? ` (${run.signal})` : ''}`;
}

/**
 * Runs `npm rebuild <name>` in the project folder; true when npm succeeded.
 * @param {string} name
 * @param {string} root
 * @returns {boolean}
 */
function npmRebuild(name, root) {
  // Under `npm test`, npm_execpath is the npm that runs us; run it with this Node (no shell, no .cmd on Windows).
  // Another package manager's (or npx's) script is not npm: fall back to npm from PATH.
  const execPath = process.env.npm_execpath;
  const npm = execPath && basename(execPath) === 'npm-cli.js' ? execPath : undefined;
  const [command, args] = npm ? [process.execPath, [npm]] : [process.platform === 'win32' ? 'npm.cmd' : 'npm', []];
  const run = spawnSync(command, [...args, 'rebuild', name, '--no-update-notifier'], {
    cwd: root,
    stdio: 'inherit',
    shell: !npm && process.platform === 'win32',
  });
  return run.status === 0;
}

/**
 * Checks every addon, rebuilds the ones that fail and checks them again; returns the exit code.
 * @param {{ root?: string, addons?: Addon[], log?: (line: string) => void }} [options]
 * @returns {number}
 */
export function guardAddons({ root = ROOT, addons = ADDONS, log = console.log } = {}) {
  let failed = 0;
  for (const addon of addons) {
    const problem = probeAddon(addon, root);
    if (!problem) continue;
    log(`native-guard: ${addon.name} does not load in Node ${process.version} (${problem}); running "npm rebuild ${addon.name}"…`);
    const rebuilt = npmRebuild(addon.name, root);
    const after = probeAddon(addon, root);
    if (!after) {
      log(`native-guard: rebuilt ${addon.name}; it loads now.`);
      continue;
    }
    failed++;
    log(`native-guard: ${addon.name} still does not load${rebuilt ? '' : ' (npm rebuild failed)'}: ${after}`);
  }
  if (failed === 0) log(`native-guard: ${addons.map((a) => a.name).join(' and ')} load in Node ${process.version}.`);
  return failed === 0 ? 0 : 1;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  process.exitCode = guardAddons();
}

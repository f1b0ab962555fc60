import { posix } from 'node:path';
import { type OptionGrammar } from '../options.js';
import type { Word } from '../words.js';
import { chdirs, firstOperand, Found, type Handler, optionValues, upFrom, type Values } from './found.js';
import { scriptOperand } from './scripts.js';

/** JavaScript package managers and runtimes: package.json scripts, node_modules code, deno tasks. */

/** npm subcommands that run package.json scripts (lifecycle ones included) or code from node_modules. */
const NPM_RUNS = new Set([
  'run', 'run-script', 'rum', 'urn', 'test', 't', 'tst', 'start', 'stop', 'restart', 'install', 'i', 'in', 'ins', 'inst',
  'insta', 'instal', 'isnt', 'isnta', 'isntal', 'add', 'ci', 'clean-install', 'ic', 'install-clean', 'isntall-clean',
  'install-test', 'it', 'install-ci-test', 'cit', 'rebuild', 'rb', 'exec', 'x', 'pack', 'publish', 'version', 'update',
  'up', 'upgrade', 'udpate', 'link', 'ln', 'explore', 'prepare', 'dlx',
]);
/** Subcommands that only read or print (yarn and pnpm run any other word as a script). */
const PM_QUIET = new Set([
  'ls', 'list', 'll', 'la', 'why', 'info', 'view', 'show', 'outdated', 'audit', 'config', 'get', 'set', 'root', 'prefix',
  'bin', 'help', 'search', 'whoami', 'login', 'logout', 'cache', 'store', 'licenses', 'owner', 'ping', 'doctor',
  'completion', 'docs', 'home', 'repo', 'bugs', 'fund', 'pkg', 'help-search', 'token', 'team', 'access', 'profile',
  'org', 'star', 'stars', 'unstar', 'deprecate', 'dist-tag', 'hook', 'env', 'init', 'create',
]);
const PM: OptionGrammar = {
  short: 'CwF',
  long: ['prefix', 'dir', 'cwd', 'workspace', 'filter', 'registry', 'cache', 'userconfig', 'globalconfig', 'loglevel', 'tag', 'script-shell'],
};
const PM_FILES: Readonly<Record<string, readonly string[]>> = {
  npm: ['package.json', '.npmrc'],
  npx: ['package.json', '.npmrc'],
  pnpm: ['package.json', '.npmrc', 'pnpm-workspace.yaml', '.pnpmfile.cjs', '.pnpmfile.mjs'],
  pnpx: ['package.json', '.npmrc', '.pnpmfile.cjs', '.pnpmfile.mjs'],
  yarn: ['package.json', '.npmrc', '.yarnrc', '.yarnrc.yml', '.pnp.cjs', '.pnp.loader.mjs'],
  bun: ['package.json', '.npmrc', 'bunfig.toml', '.bunfig.toml'],
  bunx: ['package.json', '.npmrc', 'bunfig.toml', '.bunfig.toml'],
};

const JS_CONFIGS = [
  '*.config.js', '*.config.cjs', '*.config.mjs', '*.config.ts', '*.config.cts', '*.config.mts', '.babelrc.js', '.babelrc.cjs',
  '.mocharc.js', '.mocharc.cjs', '.eslintrc.js', '.eslintrc.cjs',
];

function packageManager(found: Found, base: string, args: readonly Word[], values: Values): void {
  const manager = found.by;
  const at = firstOperand(values, PM);
  const sub = at === -1 ? undefined : values[at];
  const runner = manager === 'npx' || manager === 'pnpx' || manager === 'bunx';
  if (!runner) {
    if (sub === undefined) {
      // `yarn` and `bun install` alone install (lifecycle scripts); `npm` and `pnpm` alone print help.
      if (manager !== 'yarn') return;
    } else if (manager === 'npm' ? !NPM_RUNS.has(sub) : PM_QUIET.has(sub)) {
      return;
    }
  }
  const label = runner || sub === undefined ? manager : `${manager} ${sub}`;
  const dir = chdirs(found, base, optionValues(args, PM, ['-C', '--prefix', '--dir', '--cwd']));
  const by = new Found(label, found.home);
  for (const folder of upFrom(dir)) {
    by.names(folder, PM_FILES[manager] ?? PM_FILES.npm!);
    // Scripts run the programs in node_modules/.bin, which run code from node_modules.
    by.tree(posix.join(folder, 'node_modules'));
  }
  if (manager === 'yarn') by.tree(posix.join(dir, '.yarn'));
  // The tools scripts start (jest, vitest, vite, webpack, eslint, babel…) load their configuration as code.
  by.tree(dir, JS_CONFIGS);
  // `bun run x.ts`, `bun x.ts`: a file rather than a script name.
  if (manager === 'bun' && sub !== undefined) {
    const file = sub === 'run' ? values[at + 1] : sub;
    if (file !== undefined && /\.[cm]?[jt]sx?$/.test(file)) by.file(by.at(dir, file));
  }
  found.take(by);
}

const DENO_RUN: OptionGrammar = { short: 'c', long: ['config', 'import-map', 'env-file', 'location', 'seed', 'v8-flags'] };

function deno(found: Found, base: string, args: readonly Word[], values: Values): void {
  const at = firstOperand(values, DENO_RUN);
  const sub = at === -1 ? undefined : values[at];
  if (sub !== 'task' && sub !== 'run' && sub !== 'test') return;
  const by = new Found(`deno ${sub}`, found.home);
  by.upwards(base, ['deno.json', 'deno.jsonc', 'package.json']);
  if (sub === 'run') scriptOperand(by, base, args.slice(at + 1), DENO_RUN, ['--eval']);
  found.take(by);
}

export const JAVASCRIPT_RUNS: ReadonlyArray<readonly [string, Handler]> = [
  ['npm', packageManager],
  ['npx', packageManager],
  ['pnpm', packageManager],
  ['pnpx', packageManager],
  ['yarn', packageManager],
  ['bun', packageManager],
  ['bunx', packageManager],
  ['deno', deno],
];

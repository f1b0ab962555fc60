import { posix } from 'node:path';
import { type OptionGrammar } from '../options.js';
import type { Word } from '../words.js';
import { chdirs, firstOperand, Found, type Handler, optionValues, upFrom, type Values } from './found.js';

/** Other languages' build and package tools: cargo (build.rs), go (generate, run), bundle, composer. */

/** cargo subcommands that compile the package (build scripts and procedural macros run) or run its code. */
const CARGO_BUILDS = new Set([
  'build', 'b', 'check', 'c', 'test', 't', 'run', 'r', 'bench', 'install', 'clippy', 'doc', 'd', 'fix', 'package',
  'publish', 'rustc', 'rustdoc', 'miri', 'nextest', 'llvm-cov', 'tarpaulin', 'expand',
]);
const CARGO: OptionGrammar = {
  short: 'pjFZC',
  long: ['manifest-path', 'package', 'jobs', 'features', 'target', 'target-dir', 'config', 'profile', 'bin', 'example', 'test', 'bench', 'path', 'root', 'color'],
};

function cargo(found: Found, base: string, args: readonly Word[], values: Values): void {
  const at = firstOperand(values, CARGO);
  const sub = at === -1 ? undefined : values[at];
  if (sub === undefined || !CARGO_BUILDS.has(sub)) return;
  const by = new Found(`cargo ${sub}`, found.home);
  const dir = chdirs(by, base, optionValues(args, CARGO, ['-C']));
  const manifest = optionValues(args, CARGO, ['--manifest-path'])[0];
  const installPath = sub === 'install' ? optionValues(args, CARGO, ['--path'])[0] : undefined;
  const crate = manifest !== undefined ? posix.dirname(by.at(dir, manifest)) : installPath !== undefined ? by.at(dir, installPath) : dir;
  if (manifest !== undefined) by.file(by.at(dir, manifest));
  // Every member's build.rs runs when a workspace builds; the workspace's Cargo.toml can be any folder up.
  by.tree(crate, ['build.rs', 'Cargo.toml']);
  for (const folder of upFrom(crate)) by.names(folder, ['Cargo.toml', 'rust-toolchain.toml', 'rust-toolchain']);
  // cargo reads .cargo/config.toml from where it runs upwards: runners, linkers and wrappers are programs it runs.
  for (const folder of upFrom(dir)) by.names(folder, ['.cargo/config.toml', '.cargo/config']);
  found.take(by);
}

function go(found: Found, base: string, _args: readonly Word[], values: Values): void {
  const at = firstOperand(values, { short: 'C', long: [] });
  const sub = at === -1 ? undefined : values[at];
  const rest = values.slice(at + 1).filter((v): v is string => v !== undefined && !v.startsWith('-'));
  if (sub === 'generate') {
    // `//go:generate` lines in any Go file of the packages named run as commands.
    for (const pkg of rest.length > 0 ? rest : ['.']) {
      const recursive = pkg === '...' || pkg.endsWith('/...');
      found.tree(found.at(base, recursive ? pkg.slice(0, -3) || '.' : pkg), ['*.go'], 'go generate');
    }
  } else if (sub === 'run') {
    for (const file of rest) if (file.endsWith('.go')) found.file(found.at(base, file), 'go run');
  }
}

function bundle(found: Found, base: string, _args: readonly Word[], values: Values): void {
  const at = firstOperand(values, { short: '', long: ['gemfile'] });
  const sub = at === -1 ? 'install' : values[at];
  if (sub === undefined || ['list', 'info', 'show', 'outdated', 'version', 'help', 'config', 'platform', 'doctor'].includes(sub)) return;
  found.upwards(base, ['Gemfile', 'gems.rb', '.bundle/config']);
}

function composer(found: Found, base: string, _args: readonly Word[], values: Values): void {
  const at = firstOperand(values, { short: 'd', long: ['working-dir'] });
  const sub = at === -1 ? undefined : values[at];
  if (sub === undefined || ['show', 'info', 'list', 'outdated', 'validate', 'diagnose', 'about', 'licenses', 'search', 'depends', 'why', 'prohibits', 'why-not', 'config', 'help', 'fund', 'audit'].includes(sub)) return;
  found.names(base, ['composer.json', 'auth.json']);
  found.tree(posix.join(base, 'vendor', 'bin'));
}

export const OTHER_ECOSYSTEM_RUNS: ReadonlyArray<readonly [string, Handler]> = [
  ['cargo', cargo],
  ['go', go],
  ['bundle', bundle],
  ['composer', composer],
];

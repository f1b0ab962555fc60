import { posix } from 'node:path';
import { type OptionGrammar } from '../options.js';
import type { Word } from '../words.js';
import { chdirs, firstOperand, Found, type Handler, optionValues, upFrom, type Values } from './found.js';

/** What a repository's own files run: git hooks, pre-commit and lefthook configurations, direnv's .envrc. */

/**
 * git subcommands that run hooks (pre-commit, pre-push, post-checkout, post-merge…). Not the ones that also list
 * (`git branch`, `git tag`, `git stash list`): their listings run none, and their writes ask anyway.
 */
const GIT_HOOKED = new Set(['commit', 'push', 'merge', 'pull', 'checkout', 'switch', 'rebase', 'am', 'cherry-pick', 'revert', 'gc']);
const GIT: OptionGrammar = { short: 'Cc', long: ['git-dir', 'work-tree', 'namespace', 'exec-path', 'config-env', 'super-prefix'] };
const HOOK_FILES = ['.pre-commit-config.yaml', 'lefthook.yml', '.lefthook.yml', 'lefthook.yaml', '.lefthook.yaml', '.git/config'];

function git(found: Found, base: string, args: readonly Word[], values: Values): void {
  const at = firstOperand(values, GIT);
  const sub = at === -1 ? undefined : values[at];
  if (sub === undefined || !GIT_HOOKED.has(sub)) return;
  const by = new Found(`git ${sub}`, found.home);
  const before = args.slice(0, at);
  const dir = chdirs(by, base, optionValues(before, GIT, ['-C']));
  for (const folder of upFrom(dir)) {
    by.tree(posix.join(folder, '.git/hooks'));
    by.tree(posix.join(folder, '.husky'));
    by.tree(posix.join(folder, '.githooks'));
    by.names(folder, HOOK_FILES);
  }
  const gitDir = optionValues(before, GIT, ['--git-dir'])[0];
  if (gitDir !== undefined) {
    by.tree(posix.join(by.at(dir, gitDir), 'hooks'));
    by.file(posix.join(by.at(dir, gitDir), 'config'));
  }
  for (const setting of optionValues(before, GIT, ['-c'])) {
    const hooks = /^core\.hookspath=(.+)$/i.exec(setting)?.[1];
    if (hooks !== undefined) by.tree(by.at(dir, hooks));
  }
  found.take(by);
}

function direnv(found: Found, base: string, _args: readonly Word[], values: Values): void {
  const at = firstOperand(values);
  const sub = at === -1 ? undefined : values[at];
  if (sub === undefined || !['allow', 'permit', 'grant', 'exec', 'reload', 'export', 'edit'].includes(sub)) return;
  const target = sub === 'exec' || sub === 'allow' || sub === 'permit' || sub === 'grant' ? values[at + 1] : undefined;
  const dir = target !== undefined && sub === 'exec' ? found.at(base, target) : base;
  if (target !== undefined && sub !== 'exec') {
    const path = found.at(base, target);
    found.file(path.endsWith('.envrc') || path.endsWith('.env') ? path : posix.join(path, '.envrc'), `direnv ${sub}`);
  }
  for (const folder of upFrom(dir)) found.names(folder, ['.envrc', '.env']);
}

function preCommit(found: Found, base: string, args: readonly Word[]): void {
  const files = optionValues(args, { short: 'c', long: ['config'] }, ['-c', '--config']);
  if (files.length > 0) for (const file of files) found.file(found.at(base, file));
  else found.upwards(base, ['.pre-commit-config.yaml', '.pre-commit-config.yml']);
}

export const REPOSITORY_RUNS: ReadonlyArray<readonly [string, Handler]> = [
  ['git', git],
  ['direnv', direnv],
  ['pre-commit', preCommit],
];

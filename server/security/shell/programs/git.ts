import { type Word } from '../words.js';
import { type Check, type CheckResult, dynamicArgument, OK, problem, short, unsure } from './check.js';

/** git: the subcommands and options that only read a repository. */

const GIT_READ = new Set([
  'status', 'log', 'show', 'diff', 'whatchanged', 'shortlog', 'blame', 'annotate', 'rev-parse', 'rev-list', 'ls-files',
  'ls-tree', 'cat-file', 'describe', 'name-rev', 'merge-base', 'show-ref', 'for-each-ref', 'count-objects', 'diff-tree',
  'diff-files', 'diff-index', 'grep', 'var', 'version', 'check-ignore', 'check-attr', 'check-ref-format', 'cherry',
  'range-diff', 'show-branch', 'verify-commit', 'verify-tag',
]);

const GIT_SAFE_GLOBAL = new Set([
  '--no-pager', '-P', '--no-replace-objects', '--literal-pathspecs', '--glob-pathspecs', '--noglob-pathspecs',
  '--icase-pathspecs', '--no-optional-locks', '--version', '--no-advice',
]);

function gitListOnly(rest: Word[], sub: string, listFlags: RegExp, valueFlags: RegExp): CheckResult {
  let listing = false;
  const positionals: Word[] = [];
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!;
    if (unsure(word)) return dynamicArgument(`git ${sub}`, word);
    const v = word.value!;
    if (v === '-l' || v === '--list') {
      listing = true;
      continue;
    }
    if (v.startsWith('-')) {
      if (valueFlags.test(v)) {
        if (!v.includes('=') && rest[i + 1] && !rest[i + 1]!.value?.startsWith('-')) i++;
        continue;
      }
      if (listFlags.test(v)) continue;
      return problem('not-read-only', `git ${sub} ${v} changes the repository.`);
    }
    positionals.push(word);
  }
  if (positionals.length > 0 && !listing) {
    return problem('not-read-only', `git ${sub} ${short(positionals[0]!.text)} creates or changes a ${sub}.`);
  }
  return OK;
}

// Patterns too long for one line are joined from String.raw pieces, which keep every backslash as written.
/** `git branch` options that only list. */
const GIT_BRANCH_LISTING = new RegExp(
  String.raw`^(?:-a|--all|-r|--remotes|-v|-vv|--verbose|--show-current|-i|--ignore-case|--no-color|--color(?:=.*)?|--no-column|` +
    String.raw`--column(?:=.*)?|--abbrev(?:=.*)?|--no-abbrev|--omit-empty|-q|--quiet)$`,
);
/** `git config` options that only pick where settings are read from, or how they are printed. */
const GIT_CONFIG_SCOPE = /^--(?:global|system|local|worktree|includes|show-origin|show-scope|null|name-only|type=\w+|bool|int|path)$|^-z$/;
const GIT_CONFIG_WRITES =
  /^(?:--(?:add|unset|unset-all|replace-all|rename-section|remove-section|edit)|-e|set|unset|edit|rename-section|remove-section)$/;

/**
 * Security: git runs programs named in its configuration — `-c core.pager=…`, `core.fsmonitor`, `alias.x=!…`,
 * `--config-env`, `--exec-path` — so those options always ask; only subcommands that read stay allowed.
 */
function checkGit(args: Word[]): CheckResult {
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i]!;
    if (unsure(word)) return dynamicArgument('git', word);
    const v = word.value!;
    if (!v.startsWith('-')) break;
    if (v === '-C') {
      i++;
      continue;
    }
    if (v === '-c' || v.startsWith('-c')) {
      const setting = v === '-c' ? (args[i + 1]?.value ?? '') : v.slice(2);
      const value = setting.slice(setting.indexOf('=') + 1).replace(/^!/, '');
      return problem('dangerous-flag', `git -c ${short(setting, 40)} sets configuration that can run programs (pagers, aliases, hooks).`, {
        scripts: [value],
      });
    }
    if (GIT_SAFE_GLOBAL.has(v)) continue;
    return problem('dangerous-flag', `git ${v.split('=')[0]} changes where git reads its configuration or what it runs.`);
  }
  const subWord = args[i];
  if (!subWord) return OK;
  const sub = subWord.value!;
  const rest = args.slice(i + 1);
  const scripts = sub === 'config' ? rest.map((w) => (w.value ?? '').replace(/^!/, '')).filter((s) => s.includes(' ')) : [];

  if (GIT_READ.has(sub)) {
    let endOfOptions = false;
    for (const word of rest) {
      if (endOfOptions) continue;
      if (unsure(word)) return dynamicArgument(`git ${sub}`, word);
      const v = word.value!;
      if (v === '--') endOfOptions = true;
      else if (/^--(?:o|ou|out|outp|outpu|output)(?:=|$)/.test(v)) {
        return problem('dangerous-flag', `git ${sub} --output writes to a file.`);
      } else if (sub === 'grep' && (/^-[^-]*O/.test(v) || v.startsWith('--open-files-in-pager'))) {
        return problem('dangerous-flag', 'git grep -O opens the matches in a program of its choosing.');
      } else if (v === '--help' || v === '-h') return problem('not-read-only', `git ${sub} --help opens the manual in a pager.`);
    }
    return OK;
  }
  switch (sub) {
    case 'branch':
      return gitListOnly(
        rest,
        'branch',
        GIT_BRANCH_LISTING,
        /^--(?:contains|no-contains|merged|no-merged|points-at|sort|format)(?:=|$)/,
      );
    case 'tag':
      return gitListOnly(
        rest,
        'tag',
        /^(?:-n\d*|-i|--ignore-case|--no-color|--color(?:=.*)?|--column(?:=.*)?|--no-column|-v|--verify|--omit-empty)$/,
        /^--(?:contains|no-contains|merged|no-merged|points-at|sort|format)(?:=|$)/,
      );
    case 'remote': {
      const values = rest.map((w) => w.value);
      if (values.length === 0 || values.every((v) => v === '-v' || v === '--verbose')) return OK;
      if (values[0] === 'get-url' && rest.every((w) => !unsure(w))) return OK;
      return problem('not-read-only', `git remote ${short(rest.map((w) => w.text).join(' '))} changes remotes or contacts them.`);
    }
    case 'stash':
    case 'worktree':
    case 'notes':
    case 'reflog':
    case 'submodule': {
      const readVerbs: Record<string, string[]> = {
        stash: ['list', 'show'],
        worktree: ['list'],
        notes: ['list', 'show'],
        reflog: ['show'],
        submodule: ['status', 'summary'],
      };
      const verb = rest[0]?.value;
      const flagsOnly = rest.every((w) => w.value?.startsWith('-'));
      // A bare `git stash` is `git stash push`: only the listing verbs read.
      if ((flagsOnly && (sub === 'reflog' || sub === 'submodule')) || (verb && readVerbs[sub]!.includes(verb))) {
        return rest.every((w) => !unsure(w)) ? OK : dynamicArgument(`git ${sub}`, rest.find(unsure)!);
      }
      return problem('not-read-only', `git ${sub} ${verb ?? ''} changes the repository.`.replace(/ +\./, '.'));
    }
    case 'config': {
      const values = rest.map((w) => w.value ?? '');
      const positionals = values.filter((v) => !v.startsWith('-'));
      const scopeOnly = values.every((v) => !v.startsWith('-') || GIT_CONFIG_SCOPE.test(v));
      const reads =
        values.some((v) => /^(?:--get(?:-all|-regexp|-urlmatch)?|-l|--list|get|list)$/.test(v)) || (positionals.length === 1 && scopeOnly);
      const writes = values.some((v) => GIT_CONFIG_WRITES.test(v));
      if (reads && !writes && rest.every((w) => !unsure(w))) return OK;
      return problem('not-read-only', 'git config with these arguments changes git settings (which can make git run programs).', {
        scripts,
      });
    }
    default:
      return problem('not-read-only', `git ${sub} changes the repository or talks to a remote.`);
  }
}

export const GIT_CHECKS: ReadonlyArray<readonly [string, Check]> = [
  ['git', checkGit],
];

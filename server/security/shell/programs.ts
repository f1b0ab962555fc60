import { scanAwk, scanSed } from './embedded.js';
import { globCanStartWithDash, globToRegExp, literalWord, type Sweep, type Word } from './words.js';

/**
 * What Pincer knows about programs: which only read (and with which options), which run other commands, which
 * are interpreters. Anything not named here is unknown, and unknown asks.
 */

export type ProblemRule = 'dangerous-flag' | 'not-read-only' | 'dynamic-argument';

export interface Problem {
  rule: ProblemRule;
  /** For a person: what the command would do that is not read-only. */
  why: string;
}

/** A read-only check's answer: a problem (or none), plus commands the arguments would run, to check as well. */
export interface CheckResult {
  problem?: Problem;
  /** Shell scripts embedded in arguments (`git -c core.pager=…`, sed's `e`): checked for catastrophes. */
  scripts?: string[];
  /** Commands the program runs (`find -exec …`), as argument lists, classified like any other command. */
  commands?: Word[][];
  /** Files the program reads that are named inside a script (sed's `r file`): checked for secrets. */
  reads?: string[];
  /** The trees whose file names it prints (find), for a command further down a pipe that acts on each name. */
  lists?: Sweep[];
}

type Check = (args: Word[], program: string) => CheckResult;

const OK: CheckResult = {};

function problem(rule: ProblemRule, why: string, extra: Omit<CheckResult, 'problem'> = {}): CheckResult {
  return { problem: { rule, why }, ...extra };
}

function dynamicArgument(program: string, word: Word): CheckResult {
  return problem(
    'dynamic-argument',
    `${program} gets an argument (${short(word.text)}) whose value is only known when it runs; ` +
      'it could be an option that writes files or runs commands.',
  );
}

export function short(text: string, max = 60): string {
  const one = text.replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** A word whose value (or number of words) cannot be known before it runs, or a glob that may expand to "-…". */
function unsure(word: Word): boolean {
  return word.value === undefined || word.split || globCanStartWithDash(word);
}

interface FlagSpec {
  /** Short options that take a value (attached or as the next word). */
  valueShort?: string;
  /** Long options (without dashes) that take a value as the next word when written without "=". */
  valueLong?: readonly string[];
  /** Short options that write files or run programs. */
  badShort?: string;
  /** Long options that write files or run programs; abbreviations count (`--out` is `--output`). */
  badLong?: readonly string[];
  /** What the bad options do, for the reason. */
  badWhy?: string;
  /** Positional arguments allowed (uniq IN OUT writes OUT). */
  maxPositionals?: number;
  positionalWhy?: string;
  /**
   * A glob may expand to a file named like an option; when the only such option is mild (`file -C` writes a
   * magic.mgc), `file *` is still worth allowing.
   */
  globsSafe?: boolean;
}

/** Scans GNU-style options; `--` ends them. */
function checkFlags(args: Word[], program: string, spec: FlagSpec): CheckResult & { positionals: Word[] } {
  const positionals: Word[] = [];
  let endOfOptions = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (endOfOptions) {
      if (spec.maxPositionals !== undefined && (word.split || word.glob)) return { ...dynamicArgument(program, word), positionals };
      positionals.push(word);
      continue;
    }
    if (word.value === undefined || word.split || (globCanStartWithDash(word) && !spec.globsSafe)) {
      return { ...dynamicArgument(program, word), positionals };
    }
    const value = word.value;
    if (word.glob && spec.globsSafe) {
      positionals.push(word);
      continue;
    }
    if (value === '--') {
      endOfOptions = true;
      continue;
    }
    if (value.startsWith('--')) {
      const eq = value.indexOf('=');
      const name = value.slice(2, eq === -1 ? undefined : eq);
      if (name && spec.badLong?.some((bad) => bad.startsWith(name))) {
        return {
          ...problem(
            'dangerous-flag',
            `${program} ${value.slice(0, eq === -1 ? undefined : eq)} ${spec.badWhy ?? 'writes files or runs programs'}.`,
          ),
          positionals,
        };
      }
      if (eq === -1 && spec.valueLong?.includes(name)) i++;
      continue;
    }
    if (value.startsWith('-') && value.length > 1) {
      for (let k = 1; k < value.length; k++) {
        const c = value[k]!;
        if (spec.badShort?.includes(c)) {
          return { ...problem('dangerous-flag', `${program} -${c} ${spec.badWhy ?? 'writes files or runs programs'}.`), positionals };
        }
        if (spec.valueShort?.includes(c)) {
          if (k === value.length - 1) i++;
          break;
        }
      }
      continue;
    }
    positionals.push(word);
  }
  if (spec.maxPositionals !== undefined && positionals.length > spec.maxPositionals) {
    return { ...problem('not-read-only', `${program} ${spec.positionalWhy ?? 'with these arguments changes something'}.`), positionals };
  }
  return { positionals };
}

const flags =
  (spec: FlagSpec): Check =>
  (args, program) => {
    const { positionals: _, ...result } = checkFlags(args, program, spec);
    return result;
  };

/** Programs that only read whatever their arguments: no option writes files or runs other programs. */
const ANY_ARGUMENTS = [
  'ls', 'dir', 'vdir', 'cat', 'tac', 'nl', 'head', 'tail', 'wc', 'pwd', 'echo', 'true', 'false', ':', 'whoami',
  'id', 'groups', 'logname', 'users', 'who', 'w', 'uname', 'arch', 'nproc', 'uptime', 'free', 'basename',
  'dirname', 'realpath', 'readlink', 'which', 'whereis', 'type', 'cut', 'tr', 'fold', 'paste', 'column', 'expand',
  'unexpand', 'rev', 'comm', 'cmp', 'diff', 'diff3', 'stat', 'printenv', 'seq', 'expr', 'factor', 'md5sum',
  'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'b2sum', 'cksum', 'sum', 'md5', 'shasum', 'base64',
  'base32', 'basenc', 'od', 'hexdump', 'strings', 'du', 'df', 'lsblk', 'lscpu', 'lsusb', 'lspci', 'vmstat', 'iostat',
  'mpstat', 'pgrep', 'pidof', 'lsof', 'netstat', 'locale', 'tty', 'cal', 'ncal', 'sleep', 'jobs',
  'wait', 'cd', 'pushd', 'popd', 'dirs', 'umask', 'times', 'grep', 'egrep', 'fgrep', 'jq', 'numfmt', 'tsort', 'join',
  'look', 'fmt', 'lsattr', 'getfacl', 'namei', 'pathchk', 'help', 'unalias', 'exit', 'return', 'break', 'continue',
  'shift', 'top', 'pstree', 'lsmod', 'sensors', 'sw_vers', 'lsb_release', 'getconf', 'zcat', 'bzcat',
  'xzcat', 'yes', 'last', 'ulimit', 'locate', 'plocate', 'mlocate', 'mdfind', 'clear', 'tput',
];

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

const FIND_VALUE = new Set([
  '-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-lname', '-ilname', '-type',
  '-xtype', '-user', '-group', '-uid', '-gid', '-perm', '-size', '-mtime', '-atime', '-ctime', '-mmin', '-amin', '-cmin',
  '-newer', '-anewer', '-cnewer', '-used', '-links', '-inum', '-samefile', '-maxdepth', '-mindepth', '-fstype',
  '-regextype', '-context', '-printf', '-files0-from', '-fprint', '-fprint0', '-fls',
]);
/** Tests that pick files by what they are called (a telling pattern) or which file they are. */
const FIND_NAME_TESTS = new Set(['-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-lname', '-ilname']);
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const FIND_WRITE = new Set(['-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);
const FIND_PRINT = new Set(['-print', '-print0', '-printf', '-ls', '-fprint', '-fprint0', '-fprintf', '-fls']);

/** A find argument whose words cannot be known — or a glob that could expand to one of find's dangerous tests. */
function unsureFind(word: Word): boolean {
  if (word.value === undefined || word.split) return true;
  if (!word.glob) return false;
  return couldBeDangerousTest(word);
}

function couldBeDangerousTest(word: Word): boolean {
  const re = globToRegExp(word.guesses[0] ?? word.text);
  return [...FIND_EXEC, ...FIND_WRITE].some((test) => re.test(test));
}

/** Does a name pattern pick some files out, or match (nearly) every name (`*`, `*.*`, `.*`, `.*` as a regex)? */
function tellingPattern(test: string, pattern: string): boolean {
  if (/regex$/.test(test)) return /[A-Za-z0-9_-]/.test(pattern.replace(/\\.|\[[^\]]*\]|[.*+?^$()|{}]/g, ''));
  return /[^.*?/]/.test(pattern.replace(/\[[^\]]*\]/g, ''));
}

interface FindAction {
  kind: 'exec' | 'delete' | 'print';
  flag: string;
  words: Word[];
  /** Whether it runs for a file no name test picks. */
  reached: boolean;
}

/** Whether a part of the expression can come out true (`t`) or false (`f`) for the file in question. */
type Outcomes = { t: boolean; f: boolean };

/**
 * What find's expression does to a file no name test picks (the worst case: most of a tree): which actions reach
 * it. Each primary answers the outcomes it can have for such a file — a name test false, a test on size, time or
 * type either way — and `-a`, `-o`, `!` and `,` combine them as find does, short-circuit included.
 */
class FindExpression {
  readonly actions: FindAction[] = [];
  /** `-quit` runs for such a file: find stops there. */
  quits = false;
  /** `-maxdepth 0`: find looks at its start folders only. */
  onlyStarts = false;
  /** Whether the whole expression can be true for such a file (what the implicit `-print` needs). */
  canBeTrue = false;
  #i = 0;

  constructor(readonly tokens: Word[]) {}

  /** Evaluates the whole expression; false when find would refuse it (unbalanced parentheses and the like). */
  run(): boolean {
    if (this.tokens.length === 0) {
      this.canBeTrue = true;
      return true;
    }
    this.canBeTrue = this.#list(true).t;
    return this.#i >= this.tokens.length;
  }

  #peek(): string | undefined {
    return this.tokens[this.#i]?.value;
  }

  #list(reached: boolean): Outcomes {
    let out = this.#or(reached);
    while (this.#peek() === ',') {
      this.#i++;
      out = this.#or(reached);
    }
    return out;
  }

  #or(reached: boolean): Outcomes {
    let out = this.#and(reached);
    while (this.#peek() === '-o' || this.#peek() === '-or') {
      this.#i++;
      const right = this.#and(reached && out.f);
      out = { t: out.t || right.t, f: right.f };
    }
    return out;
  }

  #and(reached: boolean): Outcomes {
    let out = this.#unary(reached);
    for (;;) {
      const next = this.#peek();
      if (next === undefined || next === ')' || next === ',' || next === '-o' || next === '-or') return out;
      if (next === '-a' || next === '-and') this.#i++;
      const right = this.#unary(reached && out.t);
      out = { t: right.t, f: out.f || right.f };
    }
  }

  #unary(reached: boolean): Outcomes {
    const v = this.#peek();
    if (v === '!' || v === '-not') {
      this.#i++;
      const inner = this.#unary(reached);
      return { t: inner.f, f: inner.t };
    }
    if (v === '(') {
      this.#i++;
      const inner = this.#list(reached);
      if (this.#peek() === ')') this.#i++;
      return inner;
    }
    return this.#primary(reached);
  }

  #primary(reached: boolean): Outcomes {
    const either = { t: true, f: true };
    const word = this.tokens[this.#i++];
    const v = word?.value;
    if (v === undefined) return either;
    if (FIND_EXEC.has(v)) {
      const words: Word[] = [];
      while (this.#i < this.tokens.length && this.#peek() !== ';' && this.#peek() !== '+') words.push(this.tokens[this.#i++]!);
      this.#i++;
      this.actions.push({ kind: 'exec', flag: v, words, reached });
      return either;
    }
    if (v === '-delete') {
      this.actions.push({ kind: 'delete', flag: v, words: [], reached });
      return either;
    }
    if (FIND_NAME_TESTS.has(v)) {
      const pattern = this.tokens[this.#i++];
      // A pattern known only when it runs is taken to pick files out: asked about, not refused.
      const telling = pattern?.value === undefined || tellingPattern(v, pattern.value);
      return telling ? { t: false, f: true } : { t: true, f: false };
    }
    if (v === '-fprintf') {
      this.#i += 2;
      this.actions.push({ kind: 'print', flag: v, words: [], reached });
      return { t: true, f: false };
    }
    if (FIND_VALUE.has(v) || /^-newer[aBcmt][aBcmt]$/.test(v)) {
      const value = this.tokens[this.#i++]?.value;
      if (v === '-maxdepth' && value !== undefined && Number(value) === 0) this.onlyStarts = true;
      if (FIND_PRINT.has(v)) this.actions.push({ kind: 'print', flag: v, words: [], reached });
      if (v === '-inum' || v === '-samefile') return { t: false, f: true };
      return /^-(?:maxdepth|mindepth|regextype|printf|fprint0?|fls)$/.test(v) ? { t: true, f: false } : either;
    }
    if (FIND_PRINT.has(v)) {
      this.actions.push({ kind: 'print', flag: v, words: [], reached });
      return { t: true, f: false };
    }
    if (v === '-quit') {
      if (reached) this.quits = true;
      return { t: false, f: false };
    }
    if (v === '-empty' || v === '-false') return { t: false, f: true };
    if (/^-(?:true|prune|depth|d|xdev|mount|follow|noleaf|ignore_readdir_race|noignore_readdir_race|daystart|warn|nowarn)$/.test(v)) {
      return { t: true, f: false };
    }
    return either;
  }
}

/**
 * Security: find runs commands (`-exec`, `-execdir`, `-ok`, `-okdir`), deletes (`-delete`) and writes files
 * (`-fprint*`, `-fls`). The commands it would run are returned with `{}` as a sweep of the start folder, so that
 * `find ~ -type f -exec rm -f {} +` is judged as the wipe of the home folder it is, whatever rm's flags; when a
 * name test picks the files (`-name '*.pyc'`), `{}` is a file somewhere in the tree, a delete to ask about.
 */
function checkFind(args: Word[]): CheckResult {
  let i = 0;
  while (i < args.length && /^-[HLP]$|^-O\d$/.test(args[i]!.value ?? '')) i++;
  if (args[i]?.value === '-D') i += 2;
  let unknown: Word | undefined;
  // An unknown word is taken as what it could be at its emptiest (`find ~ $FILTERS -delete` is `find ~ -delete`
  // when the variable is empty): asked about in any case, refused when even that is a catastrophe.
  const known = (word: Word): Word[] => {
    if (!unsureFind(word)) return [word];
    unknown ??= word;
    if (word.glob && word.value !== undefined && couldBeDangerousTest(word)) return [literalWord('-delete')];
    const guess = word.guesses[0] ?? '';
    const parts = word.split ? guess.split(/\s+/).filter(Boolean) : [guess];
    return parts.map((part) => literalWord(part));
  };
  const starts: Word[] = [];
  for (; i < args.length; i++) {
    const word = args[i]!;
    if (!unsureFind(word) && /^[-(!),]/.test(word.value!) && word.value !== '-') break;
    starts.push(...known(word));
  }
  const tokens: Word[] = [];
  for (; i < args.length; i++) {
    tokens.push(...known(args[i]!));
    if (!FIND_EXEC.has(args[i]!.value ?? '')) continue;
    // The command it runs is kept as written: it is judged as a command of its own.
    for (i++; i < args.length && args[i]!.value !== ';' && args[i]!.value !== '+'; i++) {
      if (unsureFind(args[i]!)) unknown ??= args[i]!;
      tokens.push(args[i]!);
    }
    if (i < args.length) tokens.push(args[i]!);
  }
  const expression = new FindExpression(tokens);
  const parsed = expression.run();
  const dangerous = expression.actions.find((a) => a.kind !== 'print' || /^-f/.test(a.flag));
  const found: CheckResult | undefined = unknown
    ? dynamicArgument('find', unknown)
    : dangerous === undefined
      ? undefined
      : problem(
          'dangerous-flag',
          dangerous.kind === 'exec'
            ? `find ${dangerous.flag} runs a command on every file it finds.`
            : dangerous.kind === 'delete'
              ? 'find -delete deletes every file it finds.'
              : `find ${dangerous.flag} writes to a file.`,
        );
  const trees = starts.length > 0 ? starts : [literalWord('.')];
  // What cannot be parsed is taken at its worst: every action reaches every file. An action that reaches a file no
  // name test picks reaches the start folder itself too (the first file find visits), and, unless find stops at
  // the first file or goes no deeper than the starts, every file under it.
  const withTree = (reached: boolean) => !parsed || reached;
  const broad = (reached: boolean) => withTree(reached) && !expression.quits && !expression.onlyStarts;
  const prints = expression.actions.filter((a) => a.kind === 'print' && !/^-f/.test(a.flag));
  const implicitPrint = !expression.actions.some((a) => a.kind === 'exec' || a.kind === 'print');
  const printed = implicitPrint ? expression.canBeTrue : prints.some((a) => a.reached);
  const lists: Sweep[] =
    prints.length > 0 || implicitPrint ? trees.map((tree) => ({ tree, broad: broad(printed), withTree: withTree(printed), via: 'find' })) : [];
  const commands: Word[][] = [];
  for (const action of expression.actions) {
    if (action.kind === 'print') continue;
    for (const tree of trees) {
      const sweep: Sweep = { tree, broad: broad(action.reached), withTree: withTree(action.reached), via: `find ${action.flag}` };
      // `{}` stands for each file found: the start folder itself when nothing picks files out.
      const file = (text: string): Word => ({ ...literalWord(text.replaceAll('{}', sweep.withTree ? tree.value! : `${tree.value}/match`)), sweep });
      commands.push(action.kind === 'delete' ? [literalWord('rm'), file('{}')] : action.words.map((w) => (w.value?.includes('{}') ? file(w.value) : w)));
    }
  }
  if (!found) return { lists };
  return { ...found, commands, lists };
}

const SED_LONG = [
  'quiet', 'silent', 'debug', 'expression', 'file', 'follow-symlinks', 'in-place', 'line-length', 'null-data',
  'zero-terminated', 'posix', 'regexp-extended', 'sandbox', 'separate', 'unbuffered', 'binary', 'help', 'version',
];

/** sed prints unless told to edit in place (`-i`) or the script writes (`w`) or runs (`e`) something. */
function checkSed(args: Word[]): CheckResult {
  const scripts: string[] = [];
  let scriptGiven = false;
  let sandbox = false;
  let endOfOptions = false;
  let positional = 0;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!endOfOptions && unsure(word)) return dynamicArgument('sed', word);
    const v = word.value ?? '';
    if (!endOfOptions && v === '--') {
      endOfOptions = true;
      continue;
    }
    if (!endOfOptions && v.startsWith('--')) {
      // getopt accepts any unambiguous abbreviation (`--e` is `--expression`); anything else is refused by sed.
      const given = v.slice(2).split('=')[0]!;
      const matches = SED_LONG.filter((name) => name.startsWith(given));
      const name = matches.includes(given) ? given : matches.length === 1 ? matches[0]! : undefined;
      if (!given || !name) return problem('dangerous-flag', `sed ${v} is an option this check does not know.`);
      if (name === 'in-place') return problem('dangerous-flag', 'sed --in-place edits files.');
      if (name === 'file') return problem('dangerous-flag', 'sed -f reads its script from a file this check cannot see.');
      if (name === 'sandbox') sandbox = true;
      if (name === 'expression') {
        scriptGiven = true;
        const script = v.includes('=') ? v.slice(v.indexOf('=') + 1) : args[++i]?.value;
        if (script === undefined) return dynamicArgument('sed', args[i] ?? word);
        scripts.push(script);
      } else if (name === 'line-length' && !v.includes('=')) {
        i++;
      }
      continue;
    }
    if (!endOfOptions && v.startsWith('-') && v.length > 1) {
      for (let k = 1; k < v.length; k++) {
        const c = v[k]!;
        if (c === 'i') return problem('dangerous-flag', 'sed -i edits files in place.');
        if (c === 'f') return problem('dangerous-flag', 'sed -f reads its script from a file this check cannot see.');
        if (c === 'e' || c === 'l') {
          const attached = v.slice(k + 1);
          const value = attached !== '' ? attached : args[++i]?.value;
          if (value === undefined) return dynamicArgument('sed', args[i] ?? word);
          if (c === 'e') {
            scriptGiven = true;
            scripts.push(value);
          }
          break;
        }
      }
      continue;
    }
    if (!scriptGiven && positional === 0) {
      if (word.value === undefined) return dynamicArgument('sed', word);
      scripts.push(word.value);
      scriptGiven = true;
    }
    positional++;
  }
  const scan = scanSed(scripts.join('\n'));
  if (scan.problem && !sandbox) return problem('dangerous-flag', `${scan.problem}.`, { scripts: scan.commands });
  return sandbox ? OK : { reads: scan.reads };
}

const AWK_LONG = [
  'assign', 'field-separator', 'file', 'source', 'exec', 'include', 'load', 'sandbox', 'dump-variables', 'pretty-print',
  'profile', 'debug', 'lint', 'posix', 'traditional', 're-interval', 'non-decimal-data', 'bignum', 'characters-as-bytes',
  'copyright', 'gen-pot', 'help', 'version', 'optimize', 'no-optimize', 'use-lc-numeric', 'csv', 'characters-as-bytes',
];

/**
 * awk prints unless its program calls system(), pipes or redirects output. Options are read as getopt reads them
 * (clusters, abbreviations) so that `-bf prog.awk` or `--sou='…'` cannot slip a program past the check; a program
 * in a file (`-f`, `-E`, `-i`, `-l`) cannot be seen and asks.
 */
function checkAwk(args: Word[], program: string): CheckResult {
  let source: string | undefined;
  let sandbox = false;
  const unseen = (what: string) =>
    problem('dangerous-flag', `${program} ${what} loads a program (or writes a file) this check cannot see.`);
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (source !== undefined) continue; // input files and var=value assignments
    const v = word.value;
    if (v === undefined || word.split) return dynamicArgument(program, word);
    if (v === '--') {
      const next = args[++i];
      if (next && source === undefined) {
        if (next.value === undefined) return dynamicArgument(program, next);
        source = next.value;
      }
      continue;
    }
    if (v.startsWith('--')) {
      const given = v.slice(2).split('=')[0]!;
      const matches = AWK_LONG.filter((name) => name.startsWith(given));
      const name = matches.includes(given) ? given : matches.length === 1 ? matches[0]! : undefined;
      if (!given || !name) return problem('dangerous-flag', `${program} ${v} is an option this check does not know.`);
      if (['file', 'exec', 'include', 'load', 'dump-variables', 'pretty-print', 'profile', 'debug'].includes(name)) {
        return unseen(`--${name}`);
      }
      if (name === 'sandbox') sandbox = true;
      if (name === 'source') {
        source = v.includes('=') ? v.slice(v.indexOf('=') + 1) : args[++i]?.value;
        if (source === undefined) return dynamicArgument(program, args[i] ?? word);
      } else if ((name === 'assign' || name === 'field-separator') && !v.includes('=')) {
        i++;
      }
      continue;
    }
    if (v.startsWith('-') && v.length > 1) {
      for (let k = 1; k < v.length; k++) {
        const c = v[k]!;
        if ('fEilW'.includes(c)) return unseen(`-${c}`);
        if ('dopD'.includes(c)) return unseen(`-${c}`);
        if (c === 'S') sandbox = true;
        if (c === 'e') {
          const attached = v.slice(k + 1);
          source = attached !== '' ? attached : args[++i]?.value;
          if (source === undefined) return dynamicArgument(program, args[i] ?? word);
          break;
        }
        if (c === 'F' || c === 'v') {
          if (k === v.length - 1) i++;
          break;
        }
        if (!'bcCghLMnNOPrstVY'.includes(c)) return problem('dangerous-flag', `${program} -${c} is an option this check does not know.`);
      }
      continue;
    }
    source = v;
  }
  if (source === undefined) return OK;
  const scan = scanAwk(source);
  if (scan.problem && !sandbox) return problem('dangerous-flag', `${scan.problem}.`, { scripts: scan.commands });
  return OK;
}

function checkTee(args: Word[]): CheckResult {
  for (const word of args) {
    if (unsure(word)) return dynamicArgument('tee', word);
    const v = word.value!;
    if (v.startsWith('-') || v === '/dev/null' || v === '/dev/stdout' || v === '/dev/stderr') continue;
    return problem('not-read-only', `tee writes to ${short(word.text)}.`);
  }
  return OK;
}

function checkDate(args: Word[]): CheckResult {
  const { problem: p, positionals } = checkFlags(args, 'date', {
    valueShort: 'dfr',
    valueLong: ['date', 'file', 'reference'],
    badShort: 's',
    badLong: ['set'],
    badWhy: 'sets the system clock',
  });
  if (p) return { problem: p };
  if (positionals.some((w) => !w.value?.startsWith('+'))) {
    return problem('not-read-only', 'date with a date argument sets the system clock.');
  }
  return OK;
}

function checkHostname(args: Word[]): CheckResult {
  for (const word of args) {
    if (unsure(word)) return dynamicArgument('hostname', word);
    if (!/^-[aAdfiIsy]+$|^--(?:alias|all-fqdns|domain|fqdn|long|ip-address|all-ip-addresses|short|yp|nis)$/.test(word.value!)) {
      return problem('not-read-only', 'hostname with this argument changes the machine\'s name.');
    }
  }
  return OK;
}

function onlyWords(allowed: RegExp, what: string): Check {
  return (args, program) => {
    for (const word of args) {
      if (unsure(word)) return dynamicArgument(program, word);
      if (!allowed.test(word.value!)) return problem('not-read-only', `${program} ${short(word.text)} ${what}.`);
    }
    return OK;
  };
}

function checkSet(args: Word[]): CheckResult {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (unsure(word)) return dynamicArgument('set', word);
    const v = word.value!;
    if (v === '--' || v === '-') return OK; // the rest are positional parameters
    if (/^[-+]o$/.test(v)) {
      const name = args[i + 1]?.value;
      if (name === undefined) return OK;
      if (!/^(?:errexit|nounset|pipefail|xtrace|verbose|noclobber|noglob|errtrace|functrace|posix)$/.test(name)) {
        return problem('dangerous-flag', `set -o ${short(name)} changes how the shell runs what follows.`);
      }
      i++;
      continue;
    }
    if (/^[-+][befhmnuvxBCEHPTo]+$/.test(v)) {
      if (v.includes('o')) {
        const name = args[i + 1]?.value;
        if (name !== undefined && !/^(?:errexit|nounset|pipefail|xtrace|verbose|noclobber|noglob)$/.test(name)) {
          return problem('dangerous-flag', `set -o ${short(name)} changes how the shell runs what follows.`);
        }
        i++;
      }
      continue;
    }
    if (v.startsWith('-') || v.startsWith('+')) return problem('dangerous-flag', `set ${v} changes how the shell reads what follows.`);
    return OK; // positional parameters
  }
  return OK;
}

const FORMATTING_VARIABLES = new RegExp(
  String.raw`^(?:LANG|LANGUAGE|LC_[A-Z]+|TZ|COLUMNS|LINES|NO_COLOR|FORCE_COLOR|CLICOLOR|CLICOLOR_FORCE|TERM|POSIXLY_CORRECT|GREP_COLORS?|` +
    String.raw`LS_COLORS|LSCOLORS|TIME_STYLE|QUOTING_STYLE|BLOCK_SIZE|DF_BLOCK_SIZE|DU_BLOCK_SIZE|TABSIZE|DEBUG|CI|VERBOSE)$`,
);

/** Environment variables a command may be given (`LANG=C sort`): they change formatting, never what runs. */
export function safeEnvironmentVariable(name: string, value: string | undefined): boolean {
  if (FORMATTING_VARIABLES.test(name)) {
    return true;
  }
  // Turning a pager off is always fine; pointing it at a program is not.
  return /^(?:PAGER|GIT_PAGER|MANPAGER|SYSTEMD_PAGER)$/.test(name) && (value === 'cat' || value === '');
}

/** Variables already in a run_shell command's environment: setting one changes what every later program gets. */
const EXPORTED = new Set([
  'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TMPDIR', 'TERM', 'PAGER', 'GIT_PAGER', 'MANPAGER', 'SYSTEMD_PAGER',
  'GIT_TERMINAL_PROMPT', 'LESSSECURE',
]);

/**
 * Can this assignment change what runs? An exported one (`X=… cmd`, `export X=…`, `env X=…`) must be on the safe
 * list; a plain shell variable only matters when it is special to bash or already exported.
 */
export function riskyAssignment(name: string, value: string | undefined, exported: boolean): boolean {
  if (safeEnvironmentVariable(name, value)) return false;
  return exported || dangerousVariable(name) || EXPORTED.has(name);
}

const SPECIAL_VARIABLES = new RegExp(
  String.raw`^(?:PATH|HOME|SHELL|ENV|IFS|CDPATH|GLOBIGNORE|PROMPT_COMMAND|PS[0-9]|SHELLOPTS|BASHOPTS|EDITOR|VISUAL|TERMINFO.*|` +
    String.raw`HOSTALIASES|LOCALDOMAIN|RES_OPTIONS|TMPDIR|HISTFILE)$`,
  'i',
);
const PROGRAM_VARIABLE_PREFIXES = new RegExp(
  String.raw`^(?:BASH|LD_|DYLD_|GIT_|XDG_|LESS|SSH_|GCONV|MALLOC|NODE_|PYTHON|PERL|RUBY|JAVA|NPM_|npm_|CARGO|RUST|GO|DOCKER|KUBE|` +
    String.raw`AWS|GPG|GNUPG|PAGER|MANPAGER|SUDO)`,
  'i',
);

/** Shell variable names a command may set without changing what later commands run or load. */
export function dangerousVariable(name: string): boolean {
  return (
    SPECIAL_VARIABLES.test(name) ||
    PROGRAM_VARIABLE_PREFIXES.test(name) ||
    /PATH$|LIB|PRELOAD|PAGER|OPTIONS?$|OPTS?$|CONFIG|RC$|_HOME$|COMMAND|_CMD$|EXEC|PROG|HOOK|PROXY|EDITOR|BROWSER|SHELL/i.test(name)
  );
}

function checkRead(args: Word[]): CheckResult {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (unsure(word)) return dynamicArgument('read', word);
    const v = word.value!;
    if (/^-[ers]*[adinNptu]$/.test(v)) {
      if (v.endsWith('a')) {
        const name = args[i + 1]?.value ?? '';
        if (!/^[A-Za-z_]\w*$/.test(name) || dangerousVariable(name)) {
          return problem('dangerous-flag', `read -a ${short(name)} sets a variable that changes what later commands run.`);
        }
      }
      i++;
      continue;
    }
    if (/^-[ers]+$/.test(v)) continue;
    if (!/^[A-Za-z_]\w*$/.test(v) || dangerousVariable(v)) {
      return problem('dangerous-flag', `read ${short(v)} sets a variable that changes what later commands run.`);
    }
  }
  return OK;
}

/** printf -v assigns a variable; an array subscript in its name runs code (`printf -v 'a[$(id)]' x`). */
function checkPrintf(args: Word[]): CheckResult {
  const first = args[0];
  if (!first) return OK;
  if (first.value === undefined) return dynamicArgument('printf', first);
  if (/^-[^-]*v/.test(first.value)) return problem('dangerous-flag', 'printf -v assigns a variable (an array subscript there runs code).');
  return OK;
}

/** test -v evaluates a variable name; an array subscript there runs code. */
function checkTest(args: Word[], program: string): CheckResult {
  if (args.some((w) => w.value === '-v' || w.value === '-R')) {
    return problem('dangerous-flag', `${program} -v evaluates a variable name (an array subscript there runs code).`);
  }
  return OK;
}

const PIP_LISTING = new RegExp(
  String.raw`^(?:-[a-z]|--(?:outdated|uptodate|not-required|user|local|format=\w+|files|verbose|all|exclude-editable|include-editable))$|` +
    String.raw`^[\w.\[\]-]+$`,
);

/** pip only lists, shows or checks what is installed. */
function checkPip(args: Word[], program: string): CheckResult {
  const values = args.map((w) => w.value);
  if (values.length === 1 && (values[0] === '--version' || values[0] === '-V')) return OK;
  const verb = values[0];
  if (verb === undefined || !['list', 'show', 'freeze', 'check'].includes(verb)) {
    return problem('not-read-only', `${program} ${short(args.map((w) => w.text).join(' '))} installs packages or runs code.`);
  }
  for (const word of args.slice(1)) {
    if (unsure(word)) return dynamicArgument(program, word);
    if (!PIP_LISTING.test(word.value!)) {
      return problem('not-read-only', `${program} ${verb} ${short(word.text)} is not a plain listing.`);
    }
  }
  return OK;
}

/** `ps e` (BSD style) prints every process's environment: the gateway's token included. */
function checkPs(args: Word[]): CheckResult {
  for (const word of args) {
    if (word.value === undefined) return dynamicArgument('ps', word);
    const v = word.value;
    if ((!v.startsWith('-') && /e/.test(v)) || /^-[^-]*E/.test(v) || /environ|\benv\b/i.test(v)) {
      return problem('dangerous-flag', 'ps e shows the environment of every process, including secrets such as the gateway\'s token.');
    }
  }
  return OK;
}

const DOCKER_LISTING =
  /^(?:-[aqs]+|--(?:all|quiet|size|no-trunc|digests|format(?:=.*)?|filter(?:=.*)?|last(?:=\d+)?|latest)|-n|\d+|[\w{}.:=" -]+)$/;

/** docker only lists (ps, images, version, info); global options can point it at another daemon or config. */
function checkDocker(args: Word[]): CheckResult {
  const verb = args[0]?.value;
  if (verb === undefined || !['ps', 'images', 'version', 'info'].includes(verb)) {
    return problem(
      'not-read-only',
      `docker ${short(args.map((w) => w.text).join(' '))} starts, changes or reaches into containers (often as root).`,
    );
  }
  for (const word of args.slice(1)) {
    if (unsure(word)) return dynamicArgument('docker', word);
    if (!DOCKER_LISTING.test(word.value!)) {
      return problem('not-read-only', `docker ${verb} ${short(word.text)} is not a plain listing.`);
    }
  }
  return OK;
}

const SYSTEMCTL_OPTIONS = new RegExp(
  String.raw`^(?:--no-pager|--all|-a|--user|--system|--failed|--type=\S+|-t|--state=\S+|-l|--full|--plain|--no-legend|-q|--quiet|-n\d*|` +
    String.raw`--lines=\d+|-o|--output=\S+|--property=\S+|-p)$`,
);
const SYSTEMCTL_REPORTS = new RegExp(
  String.raw`^(?:status|list-units|list-unit-files|list-timers|list-sockets|list-dependencies|list-jobs|is-active|is-enabled|is-failed|` +
    String.raw`is-system-running|show|cat|get-default)$`,
);

/** systemctl only reports: status, list-*, is-*, show, cat (a unit's file). */
function checkSystemctl(args: Word[]): CheckResult {
  let verb: string | undefined;
  for (const word of args) {
    if (unsure(word)) return dynamicArgument('systemctl', word);
    const v = word.value!;
    if (v.startsWith('-')) {
      if (SYSTEMCTL_OPTIONS.test(v)) continue;
      return problem('dangerous-flag', `systemctl ${v} is not a plain status query.`);
    }
    if (verb === undefined) {
      verb = v;
      if (!SYSTEMCTL_REPORTS.test(v)) {
        return problem('not-read-only', `systemctl ${v} starts, stops or changes services or the machine.`);
      }
    } else if (!/^[\w@:.\\-]+$/.test(v)) {
      return problem('not-read-only', `systemctl ${verb} ${short(word.text)} is not a unit name.`);
    }
  }
  return OK;
}

/** A program whose first word is a verb: only the listed verbs (and then only plain words and options) read. */
function verbs(allowed: RegExp, what: string, rest: RegExp = /^(?:--?[\w-]+|[\w@.,/+:][\w@.,/+:-]*)$/): Check {
  return (args, program) => {
    const words = args.filter((w) => !(w.value ?? '').startsWith('-'));
    for (const word of args) if (unsure(word)) return dynamicArgument(program, word);
    const verb = words[0]?.value;
    if (verb !== undefined && !allowed.test(verb)) return problem('not-read-only', `${program} ${short(verb)} ${what}.`);
    const odd = args.find((w) => !rest.test(w.value!));
    if (odd) return problem('not-read-only', `${program} ${short(odd.text)} is not a plain query.`);
    return OK;
  };
}

/** Options only: `route -n`, `arp -a`, `stty -a` print; an operand changes something. */
function optionsOnly(allowed: RegExp, what: string): Check {
  return (args, program) => {
    for (const word of args) {
      if (unsure(word)) return dynamicArgument(program, word);
      if (!allowed.test(word.value!)) return problem('not-read-only', `${program} ${short(word.text)} ${what}.`);
    }
    return OK;
  };
}

/** Read-only programs and how their arguments are checked. */
const READ_ONLY = new Map<string, Check>([
  ...ANY_ARGUMENTS.map((name) => [name, () => OK] as [string, Check]),
  ['git', checkGit],
  ['ps', checkPs],
  ['history', optionsOnly(/^\d+$/, 'changes or writes the history')],
  ['hostnamectl', verbs(/^(?:status|show|hostname)$/, 'changes the machine\'s name or settings', /^(?:status|show|hostname|--\w[\w-]*)$/)],
  ['timedatectl', verbs(/^(?:status|show|list-timezones|timesync-status|show-timesync)$/, 'changes the clock or time zone')],
  ['localectl', verbs(/^(?:status|list-locales|list-keymaps|list-x11-keymap-\w+)$/, 'changes the locale')],
  ['sysctl', optionsOnly(/^(?:-[anNbehx]+|[\w.]+)$/, 'changes a kernel setting')],
  ['defaults', verbs(/^(?:read|read-type|domains|find)$/, 'changes settings')],
  ['diskutil', verbs(/^(?:list|info|activity|listFilesystems)$/, 'changes or erases disks')],
  [
    'brew',
    verbs(
      /^(?:list|ls|info|leaves|deps|uses|config|--version|--prefix|--cellar|--repository|search)$/,
      'installs, removes or changes packages',
    ),
  ],
  [
    'dpkg',
    optionsOnly(
      /^(?:-[lLsSp]|--(?:list|listfiles|status|search|print-avail|get-selections|print-architecture)|[\w.+:*][\w.+:*-]*)$/,
      'installs or removes packages',
    ),
  ],
  ['dpkg-query', () => OK],
  ['apt', verbs(/^(?:list|show|search|policy|depends|rdepends)$/, 'installs or removes packages')],
  ['apt-cache', verbs(/^(?:show|showpkg|policy|search|depends|rdepends|pkgnames|stats|madison)$/, 'changes the package cache')],
  [
    'rpm',
    optionsOnly(
      /^(?:-q[ailfdcR]*|--query|--all|--info|--list|--whatprovides|--whatrequires|[\w.+:*][\w.+:*-]*)$/,
      'installs, removes or verifies packages',
    ),
  ],
  ['route', optionsOnly(/^-[nveA]+$|^inet6?$/, 'changes the routing table')],
  ['arp', optionsOnly(/^-[anve]+$/, 'changes the ARP table')],
  ['stty', optionsOnly(/^(?:-a|-g|--all|--save|size)$/, 'changes terminal settings')],
  ['getent', (args) =>
    args.some((w) => /shadow/.test(w.value ?? w.text))
      ? problem('not-read-only', 'getent shadow prints password hashes.')
      : OK],
  ['docker', checkDocker],
  ['find', checkFind],
  ['sed', checkSed],
  ['awk', checkAwk],
  ['gawk', checkAwk],
  ['mawk', checkAwk],
  ['nawk', checkAwk],
  ['tee', checkTee],
  ['date', checkDate],
  ['hostname', checkHostname],
  ['set', checkSet],
  ['read', checkRead],
  [
    'sort',
    flags({
      valueShort: 'ktST',
      valueLong: [
        'key', 'field-separator', 'buffer-size', 'temporary-directory', 'parallel', 'files0-from', 'sort',
        'random-source', 'batch-size',
      ],
      badShort: 'o',
      badLong: ['output', 'compress-program'],
      badWhy: 'writes a file or runs a compression program',
    }),
  ],
  [
    'shuf',
    flags({
      valueShort: 'in',
      valueLong: ['input-range', 'head-count', 'random-source'],
      badShort: 'o',
      badLong: ['output'],
      badWhy: 'writes to a file',
    }),
  ],
  [
    'uniq',
    flags({
      valueShort: 'fsw',
      valueLong: ['skip-fields', 'skip-chars', 'check-chars'],
      maxPositionals: 1,
      positionalWhy: 'with a second file name writes its output to that file',
    }),
  ],
  ['xxd', flags({ valueShort: 'cglosn', maxPositionals: 1, positionalWhy: 'with a second file name writes to that file' })],
  [
    'tree',
    flags({
      valueShort: 'LPIHT',
      valueLong: ['filelimit', 'timefmt', 'sort', 'charset'],
      badShort: 'oR',
      badLong: ['output'],
      badWhy: 'writes files',
    }),
  ],
  [
    'file',
    flags({
      valueShort: 'efFmP',
      valueLong: ['exclude', 'separator', 'magic-file', 'files-from', 'parameter'],
      badShort: 'C',
      badLong: ['compile'],
      badWhy: 'writes a compiled magic file',
      globsSafe: true,
    }),
  ],
  [
    'iconv',
    flags({
      valueShort: 'ft',
      valueLong: ['from-code', 'to-code'],
      badShort: 'o',
      badLong: ['output'],
      badWhy: 'writes to a file',
    }),
  ],
  [
    'rg',
    flags({
      valueShort: 'ABCefgjmMrtTE',
      valueLong: [
        'after-context', 'before-context', 'context', 'regexp', 'file', 'glob', 'iglob', 'threads', 'max-count',
        'max-columns', 'type', 'type-not', 'encoding', 'sort', 'sortr', 'max-depth', 'max-filesize', 'color', 'colors',
        'ignore-file', 'path-separator', 'context-separator', 'field-match-separator', 'field-context-separator',
        'replace', 'type-add', 'type-clear', 'engine', 'dfa-size-limit', 'regex-size-limit', 'hyperlink-format',
      ],
      badLong: ['pre', 'pre-glob', 'hostname-bin'],
      badWhy: 'runs another program on every file',
    }),
  ],
  ['printf', checkPrintf],
  ['test', checkTest],
  ['[', checkTest],
  [
    'dmesg',
    flags({
      valueShort: 'flFsn',
      badShort: 'cCDEn',
      badLong: ['clear', 'read-clear', 'console-off', 'console-on', 'console-level'],
      badWhy: 'clears the kernel log or changes console logging',
    }),
  ],
  [
    'journalctl',
    flags({
      valueShort: 'uSUpotDMgF',
      valueLong: [
        'unit', 'user-unit', 'since', 'until', 'priority', 'output', 'identifier', 'directory', 'file', 'grep', 'field',
        'cursor', 'after-cursor', 'machine', 'namespace',
      ],
      badLong: [
        'vacuum-size', 'vacuum-time', 'vacuum-files', 'rotate', 'flush', 'sync', 'relinquish-var',
        'smart-relinquish-var', 'setup-keys', 'update-catalog',
      ],
      badWhy: 'deletes or rewrites the journal',
    }),
  ],
  [
    'ss',
    flags({
      valueShort: 'fAFD',
      valueLong: ['family', 'query', 'filter'],
      badShort: 'KD',
      badLong: ['kill', 'diag'],
      badWhy: 'closes connections or writes a dump file',
    }),
  ],
  ['mount', onlyWords(/^-l$/, 'mounts or changes a file system')],
  ['ifconfig', onlyWords(/^-[asv]$/, 'changes a network interface')],
  [
    'ip',
    onlyWords(
      /^(?:-(?:4|6|br|brief|c|color|s|stats|d|details|j|json|p|pretty|o|oneline)|a|addr|address|link|l|route|r|ro|neigh|n|show|list|ls)$/,
      'changes network settings',
    ),
  ],
  ['systemctl', checkSystemctl],
  ['env', onlyWords(/^(?:-0|--null|-i|--ignore-environment|-)$/, 'runs a command')],
  ['shopt', onlyWords(/^-[pq]$/, 'changes how the shell expands words')],
  ['yq', flags({ badShort: 'i', badLong: ['inplace', 'in-place'], badWhy: 'edits files in place' })],
  [
    'npm',
    onlyWords(
      /^(?:ls|list|ll|la|root|prefix|--version|-v|-g|--global|--all|-a|--depth=\d+|--json|--long|--parseable|-p)$/,
      'installs packages or runs scripts',
    ),
  ],
  ['pip', checkPip],
  ['pip3', checkPip],
]);

/** A read-only program's check, if the program is on the list. */
export function readOnlyCheck(program: string): Check | undefined {
  return READ_ONLY.get(program);
}

/** Programs and tools whose `--version` (and only that) is a harmless question. */
const VERSION_QUERY = new RegExp(
  String.raw`^(?:aws|gcloud|az|gh|brew|python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|perl[0-9.]*|ruby[0-9.]*|php[0-9.]*|java|javac|go|` +
    String.raw`rustc|cargo|gcc|g\+\+|cc|clang|clang\+\+|make|cmake|npm|npx|pnpm|yarn|pip[0-9.]*|pipx|uv|poetry|docker|podman|kubectl|git|` +
    String.raw`bash|zsh|fish|ksh|tmux|vim|nvim|emacs|tsc|swift|dotnet|gradle|mvn|terraform|ansible|code|curl|wget|ssh|openssl|sqlite3|` +
    String.raw`psql|mysql|jq|rg|sed|awk|gawk|grep|find|tar|gzip|zip|unzip|rsync|less|man)$`,
);

/**
 * Security: only spellings that print a version and exit. `-v` is not one in general — `bash -v`, `python -v` and
 * `ruby -v` go on to run whatever is piped into them.
 */
export function isVersionQuery(program: string, args: readonly Word[]): boolean {
  if (args.length !== 1 || !VERSION_QUERY.test(program)) return false;
  const arg = args[0]!.value;
  if (arg === '--version') return true;
  if (arg === '-v') return /^(?:node|nodejs|npm|npx|pnpm|yarn|perl[0-9.]*|php[0-9.]*|bun|gcc|cc|clang|make|tsc|rg|curl)$/.test(program);
  if (arg === '-V') return /^(?:python[0-9.]*|pypy[0-9.]*|deno|pip[0-9.]*|ssh|rustc|cargo|jq|sqlite3|psql|mysql|uv)$/.test(program);
  if (arg === 'version') return /^(?:go|docker|podman|kubectl|dotnet|terraform|poetry|openssl)$/.test(program);
  if (arg === '-version') return program === 'java' || program === 'javac';
  return false;
}

export const SHELLS = new Set([
  'sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'rbash', 'yash', 'posh', 'elvish', 'nu',
  'xonsh', 'pwsh', 'powershell',
]);

/** Programs that run code they are given (or that can open a shell from inside: pagers, editors, debuggers). */
export const INTERPRETER = new RegExp(
  String.raw`^(?:python[0-9.]*|pypy[0-9.]*|ipython[0-9]*|node|nodejs|deno|bun|perl[0-9.]*|ruby[0-9.]*|irb|php[0-9.]*|lua[0-9.]*|luajit|` +
    String.raw`tclsh[0-9.]*|wish|Rscript|R|julia|osascript|java|jshell|groovy|scala|kotlin|swift|ghci|runghc|runhaskell|elixir|iex|erl|` +
    String.raw`escript|guile|racket|sbcl|clisp|ocaml|expect|gdb|lldb|sqlite3|mysql|psql|bc|dc|ed|ex|vi|vim|nvim|view|vimdiff|nano|pico|` +
    String.raw`emacs|emacsclient|less|more|most|pg|man|info|ftp|tmux|screen|make|gmake|cmake|ninja|npm|npx|pnpm|pnpx|yarn|pip[0-9.]*|` +
    String.raw`pipx|uv|uvx|poetry|cargo|go|gcc|g\+\+|cc|clang|tsc|ts-node|tsx|jupyter|docker|podman|kubectl|ansible|ansible-playbook|` +
    String.raw`terraform|source|\.)$`,
);

export const NETWORK = new Set([
  'curl', 'wget', 'nc', 'ncat', 'netcat', 'socat', 'telnet', 'ssh', 'scp', 'sftp', 'ftp', 'tftp', 'rsync', 'openssl',
  'mail', 'mailx', 'sendmail', 'mutt', 'http', 'https', 'xh', 'httpie', 'aria2c', 'lftp', 'smbclient', 'dig',
  'nslookup', 'host', 'ping', 'traceroute', 'whois', 'nmap', 'gh', 'aws', 'gsutil', 'gcloud', 'az', 'rclone', 's3cmd',
  'curlie', 'wscat', 'websocat', 'cryptcat', 'pwncat', 'sbd',
]);

/** Tools that open raw connections: with a shell on the other end of a pipe, a reverse shell. */
export const RAW_SOCKET = new Set(['nc', 'ncat', 'netcat', 'socat', 'telnet', 'openssl', 'cryptcat', 'pwncat', 'sbd']);

export const MODIFIES_FILES = new Set([
  'rm', 'rmdir', 'mv', 'cp', 'ln', 'mkdir', 'touch', 'chmod', 'chown', 'chgrp', 'truncate', 'shred', 'install', 'dd',
  'tar', 'zip', 'unzip', 'gzip', 'gunzip', 'bzip2', 'bunzip2', 'xz', 'unxz', 'zstd', '7z', 'patch', 'split', 'csplit',
  'mkfifo', 'mknod', 'setfacl', 'chattr', 'rename', 'wipe', 'srm', 'unlink', 'trash', 'trash-put', 'sync', 'mktemp',
  'kill', 'pkill', 'killall', 'crontab', 'at', 'useradd', 'userdel', 'usermod', 'passwd', 'chpasswd', 'iptables',
  'ufw', 'apt', 'apt-get', 'dnf', 'yum', 'brew', 'snap', 'flatpak',
]);

export const PRIVILEGE = new Set(['sudo', 'doas', 'su', 'pkexec', 'runuser', 'sg', 'newgrp', 'setpriv', 'capsh', 'sudoedit']);

/** Commands that print the environment (tokens included, when there are any). */
export const DUMPS_ENVIRONMENT = new Set(['env', 'printenv', 'set', 'export', 'declare', 'typeset', 'compgen']);

/** Commands that only look at names and sizes, never at what a file holds. */
export const METADATA_ONLY = new Set([
  'ls', 'dir', 'vdir', 'stat', 'du', 'test', '[', 'realpath', 'readlink', 'basename', 'dirname', 'find', 'tree',
  'lsattr', 'getfacl', 'namei', 'pathchk', 'cd', 'pushd', 'which', 'type', 'echo', 'printf',
]);

/** Recursive readers: pointed at a folder holding Pincer's data, they read it. */
export function readsRecursively(program: string, args: Word[]): boolean {
  const values = args.map((w) => w.value ?? '');
  switch (program) {
    case 'grep':
    case 'egrep':
    case 'fgrep':
    case 'zgrep':
      return values.some((v) => /^-[^-]*[rR]/.test(v) || /^--(?:recursive|dereference-recursive|directories=recurse)$/.test(v));
    case 'rg':
      return true;
    case 'diff':
      return values.some((v) => /^-[^-]*r/.test(v) || v === '--recursive');
    case 'cat':
    case 'head':
    case 'tail':
    case 'strings':
    case 'wc':
    case 'md5sum':
    case 'sha256sum':
    case 'sha1sum':
      return false;
    default:
      return false;
  }
}

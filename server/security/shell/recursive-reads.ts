import { lstatSync } from 'node:fs';
import { posix } from 'node:path';
import { isWithin } from '../within.js';
import type { Script } from './context.js';
import { judgeWord, placeOf, realPath } from './operand-places.js';
import { gitDirectories, operandsOf } from './operands.js';
import { scanOptions, type ScannedOption } from './options.js';
import { short } from './programs/check.js';
import { readOnlyCheck } from './programs/index.js';
import { gitSubcommand, gitSubcommandAt, METADATA_ONLY } from './programs/readers.js';
import { askRule } from './rules.js';
import { workTreeTop, type WalkResult, type WalkSpec } from './secret-walk.js';
import { hasGlob, literalWord, type Sweep, type Word } from './words.js';

/**
 * Security: `cat .env` asks, so `grep -r SECRET .`, `rg -uu .`, `git grep -e SECRET` and `diff -rN proj empty` must
 * too when the folders they read hold a `.env` or a key — they print it just the same. Each recursive reader is read
 * for the folders it reads and how it walks them (hidden files, links, `--include`), and those folders are walked
 * (secret-walk.ts) for a file the direct-read check would ask about; the ask names that file. A walk too large to
 * finish asks too. Plain recursive reads of folders without secrets stay allowed.
 */

/** Folders a command reads every file under, and how it walks them. */
interface TreeRead {
  trees: Word[];
  spec: WalkSpec;
}

/** What a recursive read-only command reads, by its options; none for a command that reads no folder whole. */
function treesRead(program: string, args: Word[]): TreeRead[] {
  switch (program) {
    case 'grep':
    case 'egrep':
    case 'fgrep':
    case 'zgrep': {
      const o = operandsOf(program, args);
      if (o.recursive.length === 0) return [];
      const only = globFilter(valuesOf(o.options, ['--include']));
      return [{ trees: o.recursive, spec: { hidden: true, followsLinks: o.followsLinks, ...(only && { only }) } }];
    }
    case 'rg':
      return rgTrees(args);
    case 'diff': {
      // diff dereferences links unless told not to; without -r it still reads the files directly in a folder.
      const o = operandsOf(program, args);
      if (o.recursive.length > 0) return [{ trees: o.recursive, spec: { hidden: true, followsLinks: true } }];
      return [{ trees: o.paths, spec: { hidden: true, followsLinks: true, shallow: true } }];
    }
    case 'git': {
      const values = args.map((w) => w.value ?? '');
      const at = gitSubcommandAt(values);
      if (values[at] !== 'diff' || !values.includes('--no-index')) return [];
      // `git diff --no-index dir1 dir2` compares the folders file by file (links are compared as links).
      const trees = args.slice(at + 1).filter((w) => w.value === undefined || !w.value.startsWith('-'));
      return [{ trees, spec: { hidden: true, followsLinks: false } }];
    }
    default:
      return [];
  }
}

const RG_GRAMMAR = {
  short: 'ABCegjmMtTErf',
  long: [
    'after-context', 'before-context', 'context', 'regexp', 'glob', 'iglob', 'threads', 'max-count', 'max-columns',
    'type', 'type-not', 'encoding', 'sort', 'sortr', 'max-depth', 'max-filesize', 'color', 'colors', 'path-separator',
    'context-separator', 'replace', 'type-add', 'type-clear', 'engine', 'file', 'ignore-file', 'pre', 'pre-glob',
  ],
};

/** A few of rg's file types, for `rg -t ts`: a type this does not list reads every file. */
const RG_TYPES: Record<string, string[]> = {
  ts: ['*.ts', '*.tsx', '*.cts', '*.mts'],
  typescript: ['*.ts', '*.tsx', '*.cts', '*.mts'],
  js: ['*.js', '*.jsx', '*.vue', '*.cjs', '*.mjs'],
  py: ['*.py', '*.pyi'],
  python: ['*.py', '*.pyi'],
  rust: ['*.rs'],
  go: ['*.go'],
  md: ['*.markdown', '*.md', '*.mdown', '*.mdwn', '*.mkd', '*.mkdn', '*.mdx'],
  markdown: ['*.markdown', '*.md', '*.mdown', '*.mdwn', '*.mkd', '*.mkdn', '*.mdx'],
};

/**
 * rg: recursive by default, skipping hidden files unless `--hidden`, `-.` or `-uu`, and folders its ignore files
 * name (the plain names are followed: `node_modules/`). A file a glob (`-g`), a type (`-t`) or a `!` line in an ignore
 * file whitelists is searched even when hidden, so those read hidden files too.
 */
function rgTrees(args: Word[]): TreeRead[] {
  const { options } = scanOptions(args, RG_GRAMMAR);
  const has = (...flags: string[]) => options.some((o) => flags.includes(o.flag));
  // Names only, or no search at all.
  if (has('--files', '--type-list', '--version', '-V', '--help', '-h')) return [];
  const o = operandsOf('rg', args);
  const globs = valuesOf(options, ['-g', '--glob', '--iglob']);
  const positive = globs.filter((g) => g === undefined || !g.startsWith('!'));
  const types = valuesOf(options, ['-t', '--type']);
  const unrestricted = options.filter((x) => x.flag === '-u' || x.flag === '--unrestricted').length;
  const whitelisted = positive.length > 0 || types.length > 0 || has('--type-add', '--ignore-file', '--pre-glob');
  // `-u` and `--no-ignore` read no ignore file; the narrower `--no-ignore-vcs`… still read some, which may whitelist.
  const noIgnore = unrestricted > 0 || has('--no-ignore');
  const someIgnored = options.some((x) => x.flag.startsWith('--no-ignore-') || x.flag === '--no-require-git');
  const hidden = unrestricted >= 2 || has('--hidden', '-.') || whitelisted || (someIgnored && !noIgnore);
  let only: RegExp[] | undefined;
  if (positive.length > 0) only = globFilter(positive);
  else if (types.length > 0 && !has('--type-add', '--type-clear')) {
    const known = types.map((t) => (t === undefined ? undefined : RG_TYPES[t]));
    if (known.every((k) => k !== undefined)) only = globFilter(known.flat());
  }
  const ignoreFiles = !noIgnore && !someIgnored;
  return [{ trees: o.recursive, spec: { hidden, followsLinks: o.followsLinks, ignoreFiles, ...(only && { only }) } }];
}

function valuesOf(options: readonly ScannedOption[] | undefined, flags: readonly string[]): Array<string | undefined> {
  return (options ?? []).filter((o) => flags.includes(o.flag)).map((o) => o.value?.value);
}

/**
 * The names a set of globs (`--include=*.ts`, `-g '*.{ts,js}'`) may take, matched loosely — any case, `*` across
 * dots, braces as alternatives — so the filter errs towards reading. None when a glob is unknown or has a `/`.
 */
function globFilter(globs: ReadonlyArray<string | undefined>): RegExp[] | undefined {
  if (globs.length === 0) return undefined;
  const out: RegExp[] = [];
  for (const glob of globs) {
    if (glob === undefined || glob.includes('/') || glob.includes('\\')) return undefined;
    let source = '';
    let depth = 0;
    for (let i = 0; i < glob.length; i++) {
      const c = glob[i]!;
      if (c === '*') source += '.*';
      else if (c === '?') source += '.';
      else if (c === '{') {
        source += '(?:';
        depth++;
      } else if (c === '}' && depth > 0) {
        source += ')';
        depth--;
      } else if (c === ',' && depth > 0) source += '|';
      else if (c === '[') {
        const close = glob.indexOf(']', i + 2);
        if (close === -1) source += '\\[';
        else {
          const inner = glob.slice(i + 1, close).replace(/^[!^]/, '^').replace(/[\]\\]/g, '\\$&');
          source += `[${inner}]`;
          i = close;
        }
      } else source += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    }
    if (depth > 0) return undefined;
    try {
      out.push(new RegExp(`^${source}$`, 'i'));
    } catch {
      return undefined;
    }
  }
  return out;
}

/** How a path is shown in a reason: from the folder the command starts in, when both are in the same root. */
function shown(script: Script, path: string): string {
  const cwd = script.reader.cwd;
  const sameRoot = script.paths.roots.some((root) => isWithin(path, root) && isWithin(cwd, root));
  return sameRoot ? posix.relative(cwd, path) || '.' : path;
}

/** A real folder as a reason names it. */
function folderShown(script: Script, folder: string): string {
  return folder === script.reader.cwd ? 'the folder it runs in' : shown(script, folder);
}

/** A folder as a reason names it: `.` is where the command runs. */
function where(tree: Word): string {
  const text = tree.value ?? tree.text;
  return text === '.' || text === './' ? 'the folder it runs in' : short(tree.text, 40);
}

/** An unknown folder (`grep -r x "$DIR"`) is taken as the folder the command runs in. */
function orHere(word: Word): Word {
  if (word.value !== undefined || !word.guesses.includes('')) return word;
  return { ...word, guesses: word.guesses.map((g) => (g === '' ? '.' : g)) };
}

/**
 * Walks each folder inside the roots and says what it found: a secret asks (shell:secret-read, naming it), a folder
 * too large to walk asks (shell:too-complex). Answers what secret was found, for the checks that span a pipe.
 */
function judgeTrees(script: Script, label: string, read: TreeRead, how: (tree: Word) => string): string | undefined {
  for (const tree of read.trees) {
    const judged = judgeWord(orHere(tree), script.paths, script.bases, script.reader.globs);
    if (judged === 'too-many') continue; // asked for where the operand is judged
    for (const { real, place } of judged) {
      if (place !== 'inside') continue; // outside the roots asks, the data folder is refused, elsewhere
      const result = script.reader.walks.secretUnder(real, read.spec);
      if (reported(script, label, result, how(tree))) return result === 'too-many' ? undefined : result!.what;
    }
  }
  return undefined;
}

function reported(script: Script, label: string, result: WalkResult, how: string): boolean {
  if (result === undefined) return false;
  if (result === 'too-many') {
    script.push(askRule('too-complex', `${label} would read more files than this check looks through for keys and credentials: ${how}`));
  } else {
    script.push(askRule('secret-read', `${label} would read ${result.what} (${shown(script, result.path)}): ${how}`));
  }
  return true;
}

/**
 * A recursive read-only command (`grep -r`, `rg`, `git grep`, `diff -r`) or a reader handed the files of a sweep
 * (`find . | xargs cat`): asks when a file it would read is a secret. Answers the secret, if one was found.
 */
export function recursiveSecrets(script: Script, program: string, args: Word[]): string | undefined {
  if (!readOnlyCheck(program) || METADATA_ONLY.has(program)) return undefined;
  let secret: string | undefined;
  const label = program === 'git' ? `git ${gitSubcommand(args.map((w) => w.value ?? '')) ?? ''}`.trim() : program;
  for (const read of treesRead(program, args)) {
    secret ??= judgeTrees(script, label, read, (tree) =>
      read.spec.shallow ? `it reads the files in ${where(tree)}` : `it reads every file under ${where(tree)}`,
    );
  }
  if (program === 'git') secret ??= gitGrepSecrets(script, args);
  // `find . | xargs cat`, `find . -exec cat {} +`: each file found is opened, links inside the roots followed.
  const sweeps = new Map<string, Sweep>();
  for (const word of args) if (word.sweep) sweeps.set(word.sweep.tree.text, word.sweep);
  for (const sweep of sweeps.values()) {
    secret ??= judgeTrees(script, program, { trees: [sweep.tree], spec: { hidden: true, followsLinks: true } }, (tree) =>
      `it opens each file ${sweep.via} lists under ${where(tree)}`,
    );
  }
  return secret;
}

/**
 * A command that opens the names another printed (`ls -a | xargs cat`, `find . | while read f; do cat "$f"; done`):
 * every file under the folders listed (or, when the listing is not known, the folders the command runs in) may be
 * opened. `lists` are the trees the listing printed, when known.
 */
export function listedSecrets(script: Script, lists: readonly Sweep[] | undefined): string | undefined {
  const trees = lists?.length ? lists.map((s) => s.tree) : [literalWord('.')];
  return judgeTrees(script, 'The command', { trees, spec: { hidden: true, followsLinks: true } }, (tree) =>
    `it opens files named by a listing of ${where(tree)}`,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// git grep

const GIT_GREP_GRAMMAR = {
  short: 'efABCm',
  long: ['regexp', 'file', 'after-context', 'before-context', 'context', 'max-count', 'max-depth', 'threads'],
};

/**
 * git grep reads the files git tracks under the folder it runs in (or the pathspecs given): a tracked secret is read
 * like any other file, and is found in the repository's index. `--untracked`, `--no-index`, a revision or
 * submodules read more than the index says: the work tree is walked instead (every file but `.git`).
 */
function gitGrepSecrets(script: Script, args: Word[]): string | undefined {
  const values = args.map((w) => w.value ?? '');
  const at = gitSubcommandAt(values);
  if (values[at] !== 'grep') return undefined;
  const rest = args.slice(at + 1);
  const dashes = rest.findIndex((w) => w.value === '--');
  const before = dashes === -1 ? rest : rest.slice(0, dashes);
  const after = dashes === -1 ? [] : rest.slice(dashes + 1);
  const { positionals, options } = scanOptions(before, GIT_GREP_GRAMMAR);
  const has = (...flags: string[]) => options.some((o) => flags.includes(o.flag));
  const patternGiven = has('-e', '-f', '--regexp', '--file');
  const operands = patternGiven ? positionals : positionals.slice(1);
  const walkTree = has('--untracked', '--no-index', '--recurse-submodules');

  // Where git runs: the folder the command starts in, moved by each `git -C DIR`.
  const moved = gitDirectories(args).map((w) => w.value ?? '');
  const start = moved.reduce((at, dir) => (dir.startsWith('/') || dir.startsWith('~') ? dir : posix.join(at, dir)), '.');
  const judged = judgeWord(literalWord(start === '' ? '.' : start), script.paths, script.bases, script.reader.globs);
  if (judged === 'too-many') return undefined;
  for (const { real: here, place } of judged) {
    if (place !== 'inside') continue;
    // Before `--`, a word that names nothing on disk is a revision (`git grep x HEAD`): the work tree is walked.
    let revision = walkTree;
    const specs: string[] = [];
    for (const word of operands) {
      const v = word.value;
      if (v === undefined) revision = true;
      else if (v.startsWith(':') || hasGlob(v) || exists(posix.resolve(here, v))) specs.push(v);
      else revision = true;
    }
    for (const word of after) specs.push(word.value ?? ':');
    const top = workTreeTop(here);
    // `:/` and other magic reach past the folder git runs in (the whole repository); a glob stays under it.
    const whole = specs.some((s) => s.startsWith(':'));
    const folders = whole
      ? [top ?? here]
      : specs.length === 0
        ? [here]
        : specs.map((s) => (hasGlob(s) ? here : realPath(posix.resolve(here, s))));
    const label = 'git grep';
    if (!revision && top !== undefined && folders.every((f) => isWithin(f, top))) {
      const result = script.reader.walks.trackedSecret(top, folders.map((f) => posix.relative(top, f)));
      if (result !== 'unknown') {
        const how = whole
          ? 'it reads the files git tracks in the whole repository'
          : `it reads the files git tracks under ${folders.map((f) => folderShown(script, f)).join(', ')}`;
        if (reported(script, label, result, how)) {
          return result === 'too-many' ? undefined : result!.what;
        }
        continue;
      }
    }
    for (const folder of folders) {
      if (placeOf(folder, script.paths) !== 'inside') continue;
      const result = script.reader.walks.secretUnder(folder, { hidden: true, followsLinks: false, skipGitDirs: true });
      if (reported(script, label, result, `it reads every file under ${folderShown(script, folder)}`)) {
        return result === 'too-many' ? undefined : result!.what;
      }
    }
  }
  return undefined;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * What a command runs besides its own words: the files that decide what it does. `make` runs the recipes of the
 * Makefile, `npm test` the scripts of package.json, `pytest` every conftest.py on the way to its tests, `act` the
 * workflows in .github/workflows, `./build.sh` itself. Security: a client that may write files inside a root (it may,
 * unasked) can change what an innocent-looking command does; the approval card names such files when a client
 * wrote them recently (policy/provenance.ts), so the owner is not approving "make" blind.
 *
 * Paths are resolved from every folder the command may run in (its cwd and where a `cd` in the line went); files a
 * tool searches for upwards (package.json, conftest.py, Cargo.toml…) are named at each folder up to `/`. Which of
 * them exist does not matter here: only files a client wrote are ever shown.
 */
import { lstatSync } from 'node:fs';
import { posix } from 'node:path';
import type { RunFile } from '../../decision.js';
import type { LineReader, Script } from './context.js';
import { realPath } from './outside.js';
import { normalizeAbsolute } from './paths.js';
import { scanOptions, type OptionGrammar } from './options.js';
import type { Word } from './words.js';

/** Folders above a command's folder that upward searches look in: deep enough for any real tree. */
const MAX_LEVELS = 40;
/** Run files followed for one command line; past this, everything under the folders it runs in counts instead. */
const MAX_RUNS = 2000;

type Values = (string | undefined)[];

/** Files one command names at most (`pytest t1 … t9999`); past it, everything under its folder counts instead. */
const MAX_FOUND = 1000;

/** Collects the files one program invocation runs, from each folder it may start in. */
class Found {
  readonly files: RunFile[] = [];
  readonly #keys = new Set<string>();
  /** More than MAX_FOUND files were named. */
  overflow = false;
  constructor(
    readonly by: string,
    readonly home: string,
  ) {}

  /** A path as the program would open it from `dir`. */
  at(dir: string, text: string): string {
    if (text.startsWith('/')) return normalizeAbsolute(text);
    if (text === '~' || text.startsWith('~/')) return normalizeAbsolute(this.home + text.slice(1));
    return normalizeAbsolute(posix.resolve(dir, text));
  }

  file(path: string, by = this.by): void {
    this.#add({ path, by });
  }

  tree(path: string, names?: string[], by = this.by): void {
    this.#add({ path, by, tree: true, ...(names ? { names } : {}) });
  }

  /** What another collector (one labelled differently: `npm test`, `git commit`) found. */
  take(other: Found): void {
    for (const file of other.files) this.#add(file);
    if (other.overflow) this.overflow = true;
  }

  #add(file: RunFile): void {
    if (this.overflow) return;
    const key = runKey(file);
    if (this.#keys.has(key)) return;
    if (this.files.length >= MAX_FOUND) {
      this.overflow = true;
      return;
    }
    this.#keys.add(key);
    this.files.push(file);
  }

  /** `names` in `dir`. */
  names(dir: string, names: readonly string[]): void {
    for (const name of names) if (!this.overflow) this.file(posix.join(dir, name));
  }

  /** `names` in `dir` and in every folder above it (what a tool finds by searching upwards). */
  upwards(dir: string, names: readonly string[]): void {
    for (const folder of upFrom(dir)) if (!this.overflow) this.names(folder, names);
  }
}

/** A folder and the folders above it, nearest first. */
export function upFrom(dir: string): string[] {
  const out: string[] = [];
  let current = normalizeAbsolute(dir);
  for (let i = 0; i < MAX_LEVELS; i++) {
    out.push(current);
    const parent = posix.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return out;
}

/**
 * The files a program run with these words runs or reads its instructions from, from each of `bases` (the folders
 * it may start in). `program` is the name as written (`make`, `/usr/bin/make`, `./gradlew`).
 */
export function runsOf(program: string, args: readonly Word[], bases: readonly string[], home: string): RunFile[] {
  const name = posix.basename(program);
  const values: Values = args.map((w) => w.value);
  const out: RunFile[] = [];
  for (const base of new Set(bases)) {
    const found = new Found(name, home);
    // A program named by its path is a file someone could have written (`./build.sh`, `tools/make`).
    if (program.includes('/')) found.file(found.at(base, program), program);
    const handler = HANDLERS.get(name) ?? HANDLERS.get(name.replace(/[0-9.]+$/, ''));
    handler?.(found, base, args, values);
    out.push(...found.files);
    if (found.overflow) out.push({ path: base, by: name, tree: true });
  }
  return uniqueRuns(out);
}

/** The run files already noted for a line (before links are followed), to follow each one once. */
const noted = new WeakMap<LineReader, Set<string>>();

/**
 * Notes, for the line being read, what one of its simple commands runs. Security: a line built to name more files
 * than are followed (`make -C a1; … make -C a5000; make`) does not push the real one off the list: past the limit,
 * anything under the folders it runs in counts as what it runs.
 */
export function noteRuns(script: Script, program: string, args: readonly Word[]): void {
  const reader = script.reader;
  let seen = noted.get(reader);
  if (!seen) noted.set(reader, (seen = new Set()));
  const found = runsOf(program, args, script.bases, script.paths.home);
  if (found.length === 0) return;
  const everything = script.bases.map((base): RunFile => ({ path: base, by: 'the command', tree: true }));
  const add = (files: readonly RunFile[]) => {
    const unseen = files.filter((file) => !seen.has(runKey(file)));
    for (const file of unseen) seen.add(runKey(file));
    reader.runs.push(...realRuns(unseen));
  };
  const over = seen.size > MAX_RUNS;
  add(over ? everything : found);
  if (!over && seen.size > MAX_RUNS) add(everything);
}

/** Each run file with symlinks followed, and a link itself too (a client may have written either). */
export function realRuns(files: readonly RunFile[]): RunFile[] {
  const out: RunFile[] = [];
  const parents = new Map<string, string>();
  for (const file of files) {
    const folder = posix.dirname(file.path);
    let parent = parents.get(folder);
    if (parent === undefined) parents.set(folder, (parent = realPath(folder)));
    const named = posix.join(parent, posix.basename(file.path));
    out.push({ ...file, path: named });
    let link = false;
    try {
      link = lstatSync(named).isSymbolicLink();
    } catch {
      // Not there: only the name is known.
    }
    if (link) out.push({ ...file, path: realPath(named) });
  }
  return uniqueRuns(out);
}

function runKey(file: RunFile): string {
  return `${file.tree ? 'tree' : 'file'}\0${file.path}\0${file.names?.join('\0') ?? ''}`;
}

/** One entry per file (the first command that runs it names it). */
export function uniqueRuns(files: readonly RunFile[]): RunFile[] {
  const seen = new Map<string, RunFile>();
  for (const file of files) {
    const key = runKey(file);
    if (!seen.has(key)) seen.set(key, file);
  }
  return [...seen.values()];
}

type Handler = (found: Found, base: string, args: readonly Word[], values: Values) => void;

/** The first word that is not an option, with its index (the subcommand of npm, git, cargo…). */
function firstOperand(values: Values, grammar: OptionGrammar = { short: '', long: [] }): number {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === undefined) return -1;
    if (v === '--') return i + 1 < values.length ? i + 1 : -1;
    if (!v.startsWith('-') || v === '-') return i;
    if (v.startsWith('--')) {
      if (!v.includes('=') && grammar.long.includes(v.slice(2))) i++;
    } else if (v.length === 2 && grammar.short.includes(v[1]!)) {
      i++;
    }
  }
  return -1;
}

/** The values an option took, in order (`-C a -C b`, `--directory=c`). */
function optionValues(args: readonly Word[], grammar: OptionGrammar, flags: readonly string[]): string[] {
  return scanOptions(args, grammar)
    .options.filter((o) => flags.includes(o.flag))
    .map((o) => o.value?.value)
    .filter((v): v is string => v !== undefined);
}

/** Follows `-C DIR` style options, each relative to the one before. */
function chdirs(found: Found, base: string, dirs: readonly string[]): string {
  return dirs.reduce((dir, next) => found.at(dir, next), base);
}

// ---------------------------------------------------------------------------------------------------------------
// Build tools and task runners

const MAKE: OptionGrammar = {
  short: 'CfIoW',
  long: ['directory', 'file', 'makefile', 'include-dir', 'old-file', 'assume-old', 'what-if', 'new-file', 'assume-new'],
};

function make(found: Found, base: string, args: readonly Word[]): void {
  const dir = chdirs(found, base, optionValues(args, MAKE, ['-C', '--directory']));
  const files = optionValues(args, MAKE, ['-f', '--file', '--makefile']);
  if (files.length > 0) for (const file of files) found.file(found.at(dir, file));
  else found.names(dir, ['GNUmakefile', 'makefile', 'Makefile']);
}

const NINJA: OptionGrammar = { short: 'Cfjkldt', long: [] };

function ninja(found: Found, base: string, args: readonly Word[]): void {
  const dir = chdirs(found, base, optionValues(args, NINJA, ['-C']));
  const files = optionValues(args, NINJA, ['-f']);
  found.names(dir, files.length > 0 ? files : ['build.ninja']);
}

const CMAKE: OptionGrammar = { short: 'SBCDGTAPUj', long: ['build', 'preset', 'install', 'toolchain'] };

function cmake(found: Found, base: string, args: readonly Word[]): void {
  const { options, positionals } = scanOptions(args, CMAKE);
  const value = (flag: string) => options.find((o) => o.flag === flag)?.value?.value;
  const script = value('-P');
  if (script !== undefined) {
    found.file(found.at(base, script));
    return;
  }
  if (options.some((o) => o.flag === '--build' || o.flag === '--install')) return; // runs what configure generated
  const source = value('-S') ?? positionals[0]?.value ?? '.';
  found.tree(found.at(base, source), ['CMakeLists.txt', '*.cmake', 'CMakePresets.json', 'CMakeUserPresets.json']);
  const cache = value('-C');
  if (cache !== undefined) found.file(found.at(base, cache));
  const toolchain = options.find((o) => o.flag === '--toolchain')?.value?.value;
  if (toolchain !== undefined) found.file(found.at(base, toolchain));
}

const JUST: OptionGrammar = { short: 'fd', long: ['justfile', 'working-directory', 'set', 'shell', 'shell-arg', 'dotenv-filename', 'dotenv-path'] };

function just(found: Found, base: string, args: readonly Word[]): void {
  const files = optionValues(args, JUST, ['-f', '--justfile']);
  if (files.length > 0) for (const file of files) found.file(found.at(base, file));
  else found.upwards(base, ['justfile', 'Justfile', '.justfile', 'JUSTFILE']);
}

const RAKE: OptionGrammar = { short: 'fCIrRe', long: ['rakefile', 'directory', 'libdir', 'require', 'rakelibdir', 'execute'] };

function rake(found: Found, base: string, args: readonly Word[]): void {
  const dir = chdirs(found, base, optionValues(args, RAKE, ['-C', '--directory']));
  const files = optionValues(args, RAKE, ['-f', '--rakefile']);
  if (files.length > 0) for (const file of files) found.file(found.at(dir, file));
  for (const folder of upFrom(dir)) {
    if (files.length === 0) found.names(folder, ['Rakefile', 'rakefile', 'Rakefile.rb', 'rakefile.rb']);
    found.tree(posix.join(folder, 'rakelib'), ['*.rake']);
  }
}

const TASK: OptionGrammar = { short: 'td', long: ['taskfile', 'dir'] };

function task(found: Found, base: string, args: readonly Word[]): void {
  const dir = chdirs(found, base, optionValues(args, TASK, ['-d', '--dir']));
  const files = optionValues(args, TASK, ['-t', '--taskfile']);
  if (files.length > 0) for (const file of files) found.file(found.at(dir, file));
  else found.upwards(dir, ['Taskfile.yml', 'Taskfile.yaml', 'taskfile.yml', 'taskfile.yaml', 'Taskfile.dist.yml', 'Taskfile.dist.yaml']);
}

const GRADLE: OptionGrammar = { short: 'bcpIx', long: ['build-file', 'settings-file', 'project-dir', 'init-script', 'exclude-task'] };

function gradle(found: Found, base: string, args: readonly Word[]): void {
  const dir = chdirs(found, base, optionValues(args, GRADLE, ['-p', '--project-dir']));
  for (const file of optionValues(args, GRADLE, ['-b', '--build-file', '-c', '--settings-file', '-I', '--init-script'])) {
    found.file(found.at(dir, file));
  }
  found.names(dir, ['build.gradle', 'build.gradle.kts']);
  found.tree(posix.join(dir, 'buildSrc'));
  for (const folder of upFrom(dir)) {
    found.names(folder, ['settings.gradle', 'settings.gradle.kts', 'gradle.properties', 'gradlew']);
    found.tree(posix.join(folder, 'gradle'));
  }
}

const MAVEN: OptionGrammar = { short: 'fsDPlt', long: ['file', 'settings', 'global-settings', 'activate-profiles', 'log-file', 'toolchains'] };

function maven(found: Found, base: string, args: readonly Word[]): void {
  const file = optionValues(args, MAVEN, ['-f', '--file'])[0];
  const pom = file === undefined ? posix.join(base, 'pom.xml') : found.at(base, file);
  const dir = pom.endsWith('.xml') ? posix.dirname(pom) : pom;
  found.file(pom.endsWith('.xml') ? pom : posix.join(pom, 'pom.xml'));
  for (const folder of upFrom(dir)) {
    found.names(folder, ['pom.xml', 'mvnw']);
    found.tree(posix.join(folder, '.mvn'));
  }
  for (const settings of optionValues(args, MAVEN, ['-s', '--settings'])) found.file(found.at(base, settings));
}

// ---------------------------------------------------------------------------------------------------------------
// JavaScript package managers

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

// ---------------------------------------------------------------------------------------------------------------
// Python

const PYTEST: OptionGrammar = {
  short: 'kmcpo',
  long: [
    'rootdir', 'confcutdir', 'basetemp', 'deselect', 'ignore', 'ignore-glob', 'junitxml', 'junit-xml', 'override-ini',
    'log-file', 'log-level', 'log-format', 'cov', 'cov-report', 'config-file', 'maxfail', 'tb', 'durations', 'import-mode',
    'capture', 'pyargs', 'strict-markers', 'numprocesses', 'dist', 'timeout', 'cache-dir', 'doctest-glob',
  ],
};
const PYTHON_PROJECT = ['pytest.ini', '.pytest.ini', 'pyproject.toml', 'setup.cfg', 'tox.ini'];

function pytest(found: Found, base: string, args: readonly Word[]): void {
  const by = new Found('pytest', found.home);
  const { options, positionals } = scanOptions(args, PYTEST);
  const tests = positionals.map((w) => w.value).filter((v): v is string => v !== undefined && v !== '');
  for (const test of tests.length > 0 ? tests : ['.']) {
    if (by.overflow) break;
    const path = by.at(base, test.replace(/::.*$/, ''));
    const folder = /\.py$/.test(path) ? posix.dirname(path) : path;
    // pytest loads every conftest.py from the root down to the tests, and those in the folders it collects.
    by.upwards(folder, ['conftest.py', ...PYTHON_PROJECT]);
    by.tree(folder, ['conftest.py']);
  }
  by.upwards(base, ['conftest.py', ...PYTHON_PROJECT]);
  for (const option of options) {
    const value = option.value?.value;
    if (value === undefined) continue;
    if (option.flag === '-c' || option.flag === '--config-file') by.file(by.at(base, value));
    else if (option.flag === '--rootdir' || option.flag === '--confcutdir') by.names(by.at(base, value), ['conftest.py', ...PYTHON_PROJECT]);
    // `-p name` imports the module `name` from the folder pytest runs in.
    else if (option.flag === '-p' && /^[A-Za-z_][\w.]*$/.test(value)) by.names(base, modulePaths(value));
  }
  found.take(by);
}

/** Where `import a.b` finds a local module: a/b.py or a/b/__init__.py. */
function modulePaths(module: string): string[] {
  const path = module.split('.').join('/');
  return [`${path}.py`, `${path}/__init__.py`, `${path}/__main__.py`];
}

function tox(found: Found, base: string, args: readonly Word[]): void {
  const files = optionValues(args, { short: 'ce', long: ['conf', 'workdir', 'root'] }, ['-c', '--conf']);
  if (files.length > 0) for (const file of files) found.file(found.at(base, file));
  found.upwards(base, ['tox.ini', 'tox.toml', 'pyproject.toml', 'setup.cfg']);
  found.names(base, ['setup.py', 'conftest.py']);
}

function nox(found: Found, base: string, args: readonly Word[]): void {
  const files = optionValues(args, { short: 'fs', long: ['noxfile', 'sessions', 'session'] }, ['-f', '--noxfile']);
  found.names(base, files.length > 0 ? files : ['noxfile.py']);
}

function invoke(found: Found, base: string, args: readonly Word[]): void {
  const collections = optionValues(args, { short: 'cfr', long: ['collection', 'config', 'search-root'] }, ['-c', '--collection']);
  const root = optionValues(args, { short: 'cfr', long: ['collection', 'config', 'search-root'] }, ['-r', '--search-root'])[0];
  const dir = root === undefined ? base : found.at(base, root);
  for (const folder of upFrom(dir)) {
    found.names(folder, (collections.length > 0 ? collections : ['tasks']).flatMap(modulePaths));
    found.names(folder, ['invoke.yaml', 'invoke.yml', 'invoke.json', 'invoke.py']);
  }
}

const PIP: OptionGrammar = {
  short: 'rceti',
  long: ['requirement', 'constraint', 'editable', 'target', 'index-url', 'extra-index-url', 'find-links', 'prefix', 'root', 'src', 'upgrade-strategy', 'python', 'platform', 'cache-dir', 'log', 'config-settings', 'group'],
};

function pip(found: Found, base: string, args: readonly Word[], values: Values): void {
  const at = firstOperand(values, PIP);
  const sub = at === -1 ? undefined : values[at];
  if (sub !== 'install' && sub !== 'wheel' && sub !== 'download') return;
  const rest = args.slice(at + 1);
  const by = new Found(`pip ${sub}`, found.home);
  const { options, positionals } = scanOptions(rest, PIP);
  for (const option of options) {
    const value = option.value?.value;
    if (value === undefined) continue;
    if (['-r', '--requirement', '-c', '--constraint'].includes(option.flag)) by.file(by.at(base, value));
    if (option.flag === '-e' || option.flag === '--editable') localProject(by, base, value);
  }
  for (const word of positionals) if (word.value !== undefined) localProject(by, base, word.value);
  found.take(by);
}

/** A requirement that is a local folder (`.`, `./lib`, `file:../x`): its build files run when it is installed. */
function localProject(found: Found, base: string, requirement: string): void {
  const spec = requirement.replace(/^file:(?:\/\/)?/, '').replace(/\[.*\]$/, '');
  if (!(spec === '.' || spec === '..' || spec.includes('/'))) return;
  if (/^[a-z+]+:\/\//i.test(spec)) return;
  if (/\.(?:whl|zip|tar\.gz|tgz)$/.test(spec)) {
    found.file(found.at(base, spec));
    return;
  }
  found.names(found.at(base, spec), ['setup.py', 'pyproject.toml', 'setup.cfg']);
}

function uv(found: Found, base: string, args: readonly Word[], values: Values): void {
  const at = firstOperand(values, { short: 'p', long: ['python', 'directory', 'project', 'with', 'from'] });
  const sub = at === -1 ? undefined : values[at];
  if (sub === 'pip') {
    pip(found, base, args.slice(at + 1), values.slice(at + 1));
    return;
  }
  if (sub === 'run' || sub === 'sync' || sub === 'build' || sub === 'tool') {
    const by = new Found(`uv ${sub}`, found.home);
    by.upwards(base, ['pyproject.toml', 'uv.toml', 'setup.py', 'setup.cfg']);
    if (sub === 'run') scriptOperand(by, base, args.slice(at + 1), { short: 'p', long: ['python', 'with', 'from', 'group', 'extra', 'package', 'env-file'] });
    found.take(by);
  }
}

function poetry(found: Found, base: string, _args: readonly Word[], values: Values): void {
  const at = firstOperand(values, { short: 'C', long: ['directory', 'project'] });
  const sub = at === -1 ? undefined : values[at];
  if (sub === 'install' || sub === 'run' || sub === 'build' || sub === 'shell') found.upwards(base, ['pyproject.toml', 'poetry.toml']);
}

/** Python: a script file, `-m module` (pytest, pip, tox… have their own files), or `-c code` (nothing on disk). */
function python(found: Found, base: string, args: readonly Word[], values: Values): void {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === undefined) return;
    if (v === '-' || v === '--') return;
    if (v.startsWith('--')) {
      if (v === '--check-hash-based-pycs') i++;
      continue;
    }
    if (v.startsWith('-')) {
      const letters = v.slice(1);
      for (let k = 0; k < letters.length; k++) {
        const letter = letters[k]!;
        if (letter === 'c') return;
        if (letter === 'm') {
          const module = k < letters.length - 1 ? letters.slice(k + 1) : values[i + 1];
          const after = k < letters.length - 1 ? i + 1 : i + 2;
          if (module !== undefined) pythonModule(found, base, module, args.slice(after), values.slice(after));
          return;
        }
        if (letter === 'W' || letter === 'X') {
          if (k === letters.length - 1) i++;
          break;
        }
      }
      continue;
    }
    found.file(found.at(base, v));
    return;
  }
}

const PYTHON_MODULES: Readonly<Record<string, Handler>> = {
  pytest,
  'py.test': pytest,
  pip,
  pip3: pip,
  tox,
  nox,
  invoke,
};

function pythonModule(found: Found, base: string, module: string, args: readonly Word[], values: Values): void {
  const handler = PYTHON_MODULES[module];
  if (handler) {
    const by = new Found(module, found.home);
    handler(by, base, args, values);
    found.take(by);
    return;
  }
  if (module === 'build') {
    found.names(base, ['setup.py', 'pyproject.toml', 'setup.cfg']);
    return;
  }
  // A module in the folder it starts in comes first on the path: `python -m tools.release` runs tools/release.py.
  if (/^[A-Za-z_][\w.]*$/.test(module)) found.names(base, modulePaths(module));
}

// ---------------------------------------------------------------------------------------------------------------
// Other ecosystems

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

function docker(found: Found, base: string, args: readonly Word[], values: Values): void {
  const at = firstOperand(values, { short: 'Hc', long: ['host', 'context', 'config', 'log-level'] });
  let sub = at === -1 ? undefined : values[at];
  let rest = args.slice(at + 1);
  if ((sub === 'buildx' || sub === 'image' || sub === 'builder') && rest[0]?.value === 'build') {
    sub = 'build';
    rest = rest.slice(1);
  }
  if (sub === 'build') {
    const grammar: OptionGrammar = { short: 'ftm', long: ['file', 'tag', 'build-arg', 'target', 'platform', 'label', 'secret', 'ssh', 'cache-from', 'cache-to', 'output', 'network', 'memory', 'progress', 'iidfile', 'build-context', 'add-host', 'shm-size', 'ulimit', 'isolation', 'cgroup-parent', 'metadata-file', 'builder', 'attest', 'annotation', 'allow'] };
    const { options, positionals } = scanOptions(rest, grammar);
    const context = positionals[positionals.length - 1]?.value ?? '.';
    if (/^[a-z]+:\/\/|^git@|^-$/.test(context)) return;
    const dir = found.at(base, context);
    const by = new Found(`${found.by} build`, found.home);
    const files = options.filter((o) => o.flag === '-f' || o.flag === '--file').map((o) => o.value?.value).filter((v): v is string => v !== undefined);
    if (files.length > 0) for (const file of files) by.file(by.at(base, file));
    else by.names(dir, ['Dockerfile', 'Containerfile', 'dockerfile']);
    by.names(dir, ['.dockerignore']);
    found.take(by);
  } else if (sub === 'compose') {
    compose(found, base, rest, rest.map((w) => w.value), `${found.by} compose`);
  }
}

const COMPOSE: OptionGrammar = { short: 'fp', long: ['file', 'project-name', 'project-directory', 'profile', 'env-file', 'ansi', 'parallel', 'progress'] };

function compose(found: Found, base: string, args: readonly Word[], values: Values, label = 'docker-compose'): void {
  const at = firstOperand(values, COMPOSE);
  const sub = at === -1 ? undefined : values[at];
  if (sub === undefined || ['ps', 'ls', 'logs', 'config', 'version', 'images', 'top', 'port', 'events'].includes(sub)) return;
  const by = new Found(`${label} ${sub}`, found.home);
  const dir = chdirs(by, base, optionValues(args, COMPOSE, ['--project-directory']));
  const files = optionValues(args, COMPOSE, ['-f', '--file']);
  if (files.length > 0) for (const file of files) by.file(by.at(base, file));
  else {
    for (const folder of upFrom(dir)) {
      by.names(folder, ['compose.yaml', 'compose.yml', 'docker-compose.yml', 'docker-compose.yaml', 'compose.override.yaml', 'compose.override.yml', 'docker-compose.override.yml', 'docker-compose.override.yaml']);
    }
  }
  by.tree(dir, ['Dockerfile', 'Containerfile', '*.Dockerfile', 'Dockerfile.*']);
  found.take(by);
}

const ACT: OptionGrammar = { short: 'WCejsPa', long: ['workflows', 'directory', 'eventpath', 'job', 'secret', 'secret-file', 'var-file', 'env-file', 'platform', 'actor', 'input', 'input-file', 'container-options', 'env'] };

function act(found: Found, base: string, args: readonly Word[]): void {
  const dir = chdirs(found, base, optionValues(args, ACT, ['-C', '--directory']));
  const workflows = optionValues(args, ACT, ['-W', '--workflows']);
  if (workflows.length > 0) for (const path of workflows) found.tree(found.at(dir, path));
  else found.tree(posix.join(dir, '.github/workflows'));
  found.tree(posix.join(dir, '.github/actions'));
  found.names(dir, ['.actrc']);
  found.file(found.at(dir, '~/.actrc'));
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

function preCommit(found: Found, base: string, args: readonly Word[]): void {
  const files = optionValues(args, { short: 'c', long: ['config'] }, ['-c', '--config']);
  if (files.length > 0) for (const file of files) found.file(found.at(base, file));
  else found.upwards(base, ['.pre-commit-config.yaml', '.pre-commit-config.yml']);
}

// ---------------------------------------------------------------------------------------------------------------
// Shells and interpreters given a file

/** The first operand is a script file (`bash x.sh`, `node x.js`, `ruby x.rb`); options with values are skipped. */
function scriptOperand(found: Found, base: string, args: readonly Word[], grammar: OptionGrammar, code: readonly string[] = []): void {
  const values = args.map((w) => w.value);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === undefined) return;
    if (v === '--') {
      const next = values[i + 1];
      if (next !== undefined) found.file(found.at(base, next));
      return;
    }
    if (v === '-') return;
    if (code.includes(v) || code.some((flag) => v.startsWith(`${flag}=`))) return;
    if (v.startsWith('--')) {
      const name = v.slice(2).split('=')[0]!;
      if (!v.includes('=') && grammar.long.includes(name)) i++;
      continue;
    }
    if (v.startsWith('-')) {
      const letters = v.slice(1);
      if ([...letters].some((l) => code.includes(`-${l}`))) return;
      const valued = [...letters].findIndex((l) => grammar.short.includes(l));
      if (valued === letters.length - 1) i++;
      continue;
    }
    found.file(found.at(base, v));
    return;
  }
}

const SHELL_GRAMMAR: OptionGrammar = { short: 'oO', long: ['rcfile', 'init-file'] };

function shellScript(found: Found, base: string, args: readonly Word[]): void {
  const values = args.map((w) => w.value);
  // `bash -c '…'` runs its text (read as a nested script); `bash -s` reads its input.
  if (values.some((v) => v !== undefined && /^-[A-Za-z]*[cs][A-Za-z]*$/.test(v))) return;
  scriptOperand(found, base, args, SHELL_GRAMMAR);
  for (const rc of optionValues(args, { short: '', long: ['rcfile', 'init-file'] }, ['--rcfile', '--init-file'])) found.file(found.at(base, rc));
}

function sourced(found: Found, base: string, _args: readonly Word[], values: Values): void {
  const file = values[0];
  if (file !== undefined) found.file(found.at(base, file));
}

const NODE: OptionGrammar = {
  short: 'rC',
  long: ['require', 'import', 'loader', 'experimental-loader', 'env-file', 'env-file-if-exists', 'conditions', 'title', 'input-type', 'stack-size', 'max-old-space-size', 'inspect-port', 'test-reporter', 'test-reporter-destination', 'test-name-pattern', 'watch-path'],
};

function nodeScript(found: Found, base: string, args: readonly Word[]): void {
  // Modules preloaded with -r / --import / --loader, and --env-file (its NODE_OPTIONS can preload more).
  for (const option of scanOptions(args, NODE).options) {
    const value = option.value?.value;
    if (value === undefined) continue;
    const preload = ['-r', '--require', '--import', '--loader', '--experimental-loader'].includes(option.flag);
    if ((preload && /^\.{0,2}\//.test(value)) || option.flag === '--env-file' || option.flag === '--env-file-if-exists') {
      found.file(found.at(base, value));
    }
  }
  scriptOperand(found, base, args, NODE, ['-e', '--eval', '-p', '--print']);
}

const INTERPRETERS: Readonly<Record<string, { grammar: OptionGrammar; code: string[] }>> = {
  ruby: { grammar: { short: 'IrCEFKTWx', long: [] }, code: ['-e'] },
  perl: { grammar: { short: 'IMmlFDxC', long: [] }, code: ['-e', '-E'] },
  php: { grammar: { short: 'cdzt', long: [] }, code: ['-r', '-a'] },
  lua: { grammar: { short: 'l', long: [] }, code: ['-e'] },
  Rscript: { grammar: { short: '', long: [] }, code: ['-e'] },
  tsx: { grammar: NODE, code: ['-e', '--eval', '-p', '--print'] },
  'ts-node': { grammar: NODE, code: ['-e', '--eval', '-p', '--print'] },
  julia: { grammar: { short: 'JCtLp', long: ['project', 'threads', 'sysimage', 'load'] }, code: ['-e', '-E', '--eval', '--print'] },
};

function interpreted(found: Found, base: string, args: readonly Word[]): void {
  const spec = INTERPRETERS[found.by] ?? INTERPRETERS[found.by.replace(/[0-9.]+$/, '')];
  if (!spec) return;
  if (found.by === 'php') {
    const file = optionValues(args, { short: 'f', long: [] }, ['-f'])[0];
    if (file !== undefined) found.file(found.at(base, file));
  }
  scriptOperand(found, base, args, spec.grammar, spec.code);
}

const SHELL_NAMES = ['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'rbash', 'yash', 'posh'];

const HANDLERS: ReadonlyMap<string, Handler> = new Map<string, Handler>([
  ['make', make],
  ['gmake', make],
  ['bmake', make],
  ['ninja', ninja],
  ['cmake', cmake],
  ['just', just],
  ['rake', rake],
  ['task', task],
  ['gradle', gradle],
  ['gradlew', gradle],
  ['mvn', maven],
  ['mvnw', maven],
  ['npm', packageManager],
  ['npx', packageManager],
  ['pnpm', packageManager],
  ['pnpx', packageManager],
  ['yarn', packageManager],
  ['bun', packageManager],
  ['bunx', packageManager],
  ['deno', deno],
  ['pytest', pytest],
  ['py.test', pytest],
  ['tox', tox],
  ['nox', nox],
  ['invoke', invoke],
  ['inv', invoke],
  ['pip', pip],
  ['pip3', pip],
  ['uv', uv],
  ['poetry', poetry],
  ['cargo', cargo],
  ['go', go],
  ['git', git],
  ['direnv', direnv],
  ['docker', docker],
  ['podman', docker],
  ['docker-compose', (found, base, args, values) => compose(found, base, args, values)],
  ['podman-compose', (found, base, args, values) => compose(found, base, args, values, 'podman-compose')],
  ['act', act],
  ['bundle', bundle],
  ['composer', composer],
  ['pre-commit', preCommit],
  ['source', sourced],
  ['.', sourced],
  ['python', python],
  ['pypy', python],
  ['node', nodeScript],
  ['nodejs', nodeScript],
  ...SHELL_NAMES.map((name) => [name, shellScript] as [string, Handler]),
  ...['ruby', 'perl', 'php', 'lua', 'Rscript', 'tsx', 'ts-node', 'julia'].map((name) => [name, interpreted] as [string, Handler]),
]);

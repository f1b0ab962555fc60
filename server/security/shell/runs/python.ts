import { posix } from 'node:path';
import { scanOptions, type OptionGrammar } from '../options.js';
import type { Word } from '../words.js';
import { firstOperand, Found, type Handler, optionValues, upFrom, type Values } from './found.js';
import { scriptOperand } from './scripts.js';

/** Python: test runners, task runners and installers, and python itself with a script or `-m module`. */

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

export const PYTHON_RUNS: ReadonlyArray<readonly [string, Handler]> = [
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
  ['python', python],
  ['pypy', python],
];

import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunFile } from '../../../../server/decision.js';
import { ShellAnalyzer } from '../../../../server/security/shell/analyzer.js';
import { runsOf } from '../../../../server/security/shell/runs/index.js';
import { literalWord } from '../../../../server/security/shell/words.js';

/**
 * The map from what a command runs to the files that decide what it does (security/shell/runs/), on its own and
 * through the shell analyzer on a real disk: which Makefile `make -C sub` reads, which conftest.py files `pytest
 * tests/` loads, what a `cd` in the line changes, where a symbolic link leads; and which files a command writes
 * (the other half of provenance). Nothing here runs.
 */

const P = '/p/app';
const HOME = '/home/me';

/** runsOf for plain words (no quoting), from /p/app. */
function runs(command: string, bases: string[] = [P]): RunFile[] {
  const [program, ...args] = command.split(' ').filter(Boolean);
  return runsOf(program!, args.map(literalWord), bases, HOME);
}
const paths = (command: string, bases?: string[]) => runs(command, bases).map((r) => (r.tree ? `${r.path}/**${r.names ? `(${r.names.join(',')})` : ''}` : r.path));

interface Case {
  command: string;
  /** Files (or `folder/**(names)` trees) it must name. */
  names: string[];
  /** Files it must not name. */
  not?: string[];
  /** What the entries say runs them. */
  by?: string;
}

const CASES: Case[] = [
  { command: 'make', names: [`${P}/Makefile`, `${P}/makefile`, `${P}/GNUmakefile`], by: 'make' },
  { command: 'gmake all', names: [`${P}/Makefile`] },
  { command: 'make -C sub', names: [`${P}/sub/Makefile`], not: [`${P}/Makefile`] },
  { command: 'make -C sub -C deeper', names: [`${P}/sub/deeper/Makefile`] },
  { command: 'make --directory=sub', names: [`${P}/sub/Makefile`] },
  { command: 'make -f other.mk', names: [`${P}/other.mk`], not: [`${P}/Makefile`] },
  { command: 'make -fother.mk', names: [`${P}/other.mk`] },
  { command: 'make -C sub -f ../build.mk', names: [`${P}/build.mk`] },
  { command: 'make --file /abs/x.mk', names: ['/abs/x.mk'] },
  { command: 'npm test', names: [`${P}/package.json`, `${P}/.npmrc`, '/p/package.json', `${P}/node_modules/**`], by: 'npm test' },
  { command: 'npm run build', names: [`${P}/package.json`], by: 'npm run' },
  { command: 'npm test ', names: [`${P}/**(*.config.js,*.config.cjs,*.config.mjs,*.config.ts,*.config.cts,*.config.mts,.babelrc.js,.babelrc.cjs,.mocharc.js,.mocharc.cjs,.eslintrc.js,.eslintrc.cjs)`] },
  { command: 'npm install', names: [`${P}/package.json`, `${P}/node_modules/**`] },
  { command: 'npm --prefix web start', names: [`${P}/web/package.json`] },
  { command: 'npm ls', names: [], not: [`${P}/package.json`] },
  { command: 'npm --version', names: [], not: [`${P}/package.json`] },
  { command: 'npx jest', names: [`${P}/package.json`, `${P}/node_modules/**`] },
  { command: 'pnpm build', names: [`${P}/package.json`, `${P}/.pnpmfile.cjs`, `${P}/pnpm-workspace.yaml`] },
  { command: 'pnpm -C web test', names: [`${P}/web/package.json`] },
  { command: 'pnpm list', names: [], not: [`${P}/package.json`] },
  { command: 'yarn', names: [`${P}/package.json`, `${P}/.yarnrc.yml`, `${P}/.yarn/**`] },
  { command: 'yarn --cwd web test', names: [`${P}/web/package.json`] },
  { command: 'bun run dev', names: [`${P}/package.json`, `${P}/bunfig.toml`] },
  { command: 'bun run scripts/x.ts', names: [`${P}/scripts/x.ts`] },
  { command: 'pytest', names: [`${P}/conftest.py`, '/p/conftest.py', `${P}/pytest.ini`, `${P}/pyproject.toml`, `${P}/tox.ini`, `${P}/setup.cfg`] },
  { command: 'pytest tests/', names: [`${P}/tests/conftest.py`, `${P}/conftest.py`, '/conftest.py', `${P}/tests/**(conftest.py)`], by: 'pytest' },
  { command: 'pytest tests/test_a.py::test_one', names: [`${P}/tests/conftest.py`, `${P}/conftest.py`], not: [`${P}/tests/test_a.py/conftest.py`] },
  { command: 'pytest -c ci/pytest.ini', names: [`${P}/ci/pytest.ini`] },
  { command: 'pytest -p myplugin', names: [`${P}/myplugin.py`] },
  { command: 'python -m pytest tests', names: [`${P}/tests/conftest.py`], by: 'pytest' },
  { command: 'python3 -m pytest', names: [`${P}/conftest.py`] },
  { command: 'tox', names: [`${P}/tox.ini`, `${P}/pyproject.toml`, `${P}/setup.py`] },
  { command: 'tox -c other.ini', names: [`${P}/other.ini`] },
  { command: 'python setup.py install', names: [`${P}/setup.py`] },
  { command: 'pip install .', names: [`${P}/setup.py`, `${P}/pyproject.toml`, `${P}/setup.cfg`], by: 'pip install' },
  { command: 'pip install -e .', names: [`${P}/setup.py`, `${P}/pyproject.toml`] },
  { command: 'pip3 install -e ./lib', names: [`${P}/lib/setup.py`] },
  { command: 'pip install -r requirements.txt', names: [`${P}/requirements.txt`] },
  { command: 'python -m pip install .', names: [`${P}/setup.py`] },
  { command: 'pip install requests', names: [], not: [`${P}/setup.py`] },
  { command: 'python -m build', names: [`${P}/pyproject.toml`, `${P}/setup.py`] },
  { command: 'python -c print(1)', names: [] },
  { command: 'python -m tools.release', names: [`${P}/tools/release.py`, `${P}/tools/release/__main__.py`] },
  { command: 'python x.py', names: [`${P}/x.py`] },
  { command: 'python3 -u -W ignore scripts/run.py --flag', names: [`${P}/scripts/run.py`], not: [`${P}/ignore`] },
  { command: 'cargo build', names: [`${P}/**(build.rs,Cargo.toml)`, `${P}/Cargo.toml`, '/p/Cargo.toml', `${P}/.cargo/config.toml`, '/p/.cargo/config.toml'], by: 'cargo build' },
  { command: 'cargo test --manifest-path crates/a/Cargo.toml', names: [`${P}/crates/a/Cargo.toml`, `${P}/crates/a/**(build.rs,Cargo.toml)`] },
  { command: 'cargo run', names: [`${P}/Cargo.toml`] },
  { command: 'cargo --version', names: [] },
  { command: 'cargo tree', names: [] },
  { command: 'go generate ./...', names: [`${P}/**(*.go)`], by: 'go generate' },
  { command: 'go generate ./cmd/x', names: [`${P}/cmd/x/**(*.go)`] },
  { command: 'go run main.go', names: [`${P}/main.go`] },
  { command: 'go build ./...', names: [] },
  { command: 'git commit -m x', names: [`${P}/.git/hooks/**`, '/p/.git/hooks/**', `${P}/.husky/**`, `${P}/.pre-commit-config.yaml`, `${P}/.git/config`], by: 'git commit' },
  { command: 'git push', names: [`${P}/.git/hooks/**`] },
  { command: 'git -C sub commit', names: [`${P}/sub/.git/hooks/**`] },
  { command: 'git -c core.hooksPath=hooks commit', names: [`${P}/hooks/**`] },
  { command: 'git status', names: [] },
  { command: 'git branch', names: [] },
  { command: 'direnv allow', names: [`${P}/.envrc`, '/p/.envrc'] },
  { command: 'direnv exec sub make', names: [`${P}/sub/.envrc`] },
  { command: 'just', names: [`${P}/justfile`, `${P}/Justfile`, '/p/justfile'] },
  { command: 'just -f tasks.just build', names: [`${P}/tasks.just`] },
  { command: 'rake', names: [`${P}/Rakefile`, `${P}/rakelib/**(*.rake)`] },
  { command: 'gradle build', names: [`${P}/build.gradle`, `${P}/build.gradle.kts`, `${P}/settings.gradle`, `${P}/buildSrc/**`, `${P}/gradle/**`] },
  { command: './gradlew build', names: [`${P}/gradlew`, `${P}/build.gradle.kts`], by: './gradlew' },
  { command: 'mvn -f sub/pom.xml package', names: [`${P}/sub/pom.xml`, `${P}/sub/.mvn/**`] },
  { command: 'mvn test', names: [`${P}/pom.xml`, `${P}/.mvn/**`] },
  { command: 'docker build .', names: [`${P}/Dockerfile`, `${P}/Containerfile`], by: 'docker build' },
  { command: 'docker build -f ci/Dockerfile ctx', names: [`${P}/ci/Dockerfile`], not: [`${P}/ctx/Dockerfile`] },
  { command: 'docker buildx build -t x web', names: [`${P}/web/Dockerfile`] },
  { command: 'docker compose up', names: [`${P}/compose.yaml`, `${P}/docker-compose.yml`] },
  { command: 'docker ps', names: [] },
  { command: 'act', names: [`${P}/.github/workflows/**`, `${P}/.actrc`, `${HOME}/.actrc`], by: 'act' },
  { command: 'act -W .github/workflows/ci.yml', names: [`${P}/.github/workflows/ci.yml/**`] },
  { command: 'act -C sub', names: [`${P}/sub/.github/workflows/**`] },
  { command: './script.sh', names: [`${P}/script.sh`], by: './script.sh' },
  { command: 'scripts/deploy', names: [`${P}/scripts/deploy`] },
  { command: 'bash x.sh', names: [`${P}/x.sh`], by: 'bash' },
  { command: 'sh -e x.sh arg', names: [`${P}/x.sh`] },
  { command: 'bash -c ls', names: [] },
  { command: 'source env.sh', names: [`${P}/env.sh`] },
  { command: '. ./env.sh', names: [`${P}/env.sh`] },
  { command: 'node x.js', names: [`${P}/x.js`], by: 'node' },
  { command: 'node --require ./preload.js server.js', names: [`${P}/preload.js`, `${P}/server.js`] },
  { command: 'node --env-file=.env app.js', names: [`${P}/.env`, `${P}/app.js`] },
  { command: 'node -e 1', names: [] },
  { command: 'ruby -e 1', names: [] },
  { command: 'ruby tasks.rb', names: [`${P}/tasks.rb`] },
  { command: 'perl -I lib script.pl', names: [`${P}/script.pl`], not: [`${P}/lib`] },
  { command: 'deno run -A main.ts', names: [`${P}/main.ts`, `${P}/deno.json`] },
  { command: 'cmake -S . -B build', names: [`${P}/**(CMakeLists.txt,*.cmake,CMakePresets.json,CMakeUserPresets.json)`] },
  { command: 'ninja -C build', names: [`${P}/build/build.ninja`] },
  { command: 'bundle exec rspec', names: [`${P}/Gemfile`] },
  { command: 'pre-commit run', names: [`${P}/.pre-commit-config.yaml`] },
  { command: 'ls -la', names: [] },
  { command: 'cat Makefile', names: [] },
];

describe('what a command runs (runsOf)', () => {
  for (const c of CASES) {
    it(`${c.command} → ${c.names.length > 0 ? c.names.join(', ') : 'nothing'}`, () => {
      const found = paths(c.command);
      for (const name of c.names) expect(found).toContain(name);
      for (const name of c.not ?? []) expect(found).not.toContain(name);
      if (c.names.length === 0) expect(found).toEqual([]);
      if (c.by) expect(runs(c.command).find((r) => [r.path, `${r.path}/**`].some((p) => c.names[0]!.startsWith(p)))?.by).toBe(c.by);
    });
  }

  it('is resolved from every folder the command may start in', () => {
    expect(paths('make', ['/a', '/b'])).toEqual(expect.arrayContaining(['/a/Makefile', '/b/Makefile']));
  });

  it('stops going up at the top of the disk', () => {
    const found = paths('pytest');
    expect(found).toContain('/conftest.py');
    expect(found.filter((p) => p === '/conftest.py')).toHaveLength(1);
  });

  it('a dynamic argument names nothing it cannot know', () => {
    const dynamic = { text: '$F', value: undefined, guesses: [''], glob: false, split: true, dynamic: true };
    expect(runsOf('make', [literalWord('-f'), dynamic], [P], HOME).map((r) => r.path)).not.toContain(`${P}/`);
  });
});

// ---------------------------------------------------------------------------------------------------------------

let base: string;
let root: string;
let analyzer: ShellAnalyzer;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'pincer-shell-runs-')));
  root = join(base, 'root');
  for (const dir of [root, join(root, 'sub'), join(root, 'linked-target'), join(base, 'data')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(root, 'evil.mk'), 'all:\n\tid\n');
  symlinkSync('evil.mk', join(root, 'Makefile'));
  symlinkSync(join(root, 'linked-target'), join(root, 'linked'));
  analyzer = new ShellAnalyzer({ protectedPaths: [join(base, 'data')], roots: [root], home: join(base, 'home') });
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function subject(command: string, cwd = root) {
  return (await analyzer.analyze(command, cwd)).subject!;
}
const runPaths = async (command: string, cwd?: string) => ((await subject(command, cwd)).runs ?? []).map((r) => r.path);

describe('what a command line runs, through the analyzer', () => {
  it('a Makefile that is a link names the link and the file it leads to', async () => {
    const found = await runPaths('make');
    expect(found).toContain(join(root, 'Makefile'));
    expect(found).toContain(join(root, 'evil.mk'));
  });

  it('cd sub && make: the folder the line moves to', async () => {
    expect(await runPaths('cd sub && make')).toContain(join(root, 'sub', 'Makefile'));
  });

  it('a folder reached through a link is named by its real path', async () => {
    expect(await runPaths('make -C linked')).toContain(join(root, 'linked-target', 'Makefile'));
  });

  it('wrapped (env, timeout, nice, sudo) and nested (bash -c, a pipe into sh) commands count', async () => {
    for (const command of ['env CI=1 make', 'timeout 60 make', 'nice -n 5 make', 'sudo make', "bash -c 'make -C sub'", 'echo make | sh']) {
      const found = await runPaths(command);
      expect(found.some((p) => p.endsWith('/Makefile')), command).toBe(true);
    }
  });

  it('every command of a list is read', async () => {
    const found = await runPaths('npm test; pytest && ./run.sh');
    expect(found).toEqual(expect.arrayContaining([join(root, 'package.json'), join(root, 'conftest.py'), join(root, 'run.sh')]));
  });

  it('a read-only command runs nothing', async () => {
    const s = await subject('ls -la && cat Makefile && grep -r x .');
    expect(s.runs).toBeUndefined();
  });
});

describe('what a command line writes, through the analyzer', () => {
  const writes = async (command: string) => (await subject(command)).writes ?? [];

  it('a redirect, tee, sed -i and dd of= write their targets', async () => {
    expect(await writes('echo x > Makefile.new')).toEqual([join(root, 'Makefile.new')]);
    expect(await writes('echo x >> notes/a.txt')).toEqual([join(root, 'notes', 'a.txt')]);
    expect(await writes('echo x | tee package.json')).toEqual([join(root, 'package.json')]);
    expect(await writes("sed -i 's/a/b/' conftest.py")).toEqual([join(root, 'conftest.py')]);
    expect(await writes('dd if=a of=build.rs')).toEqual([join(root, 'build.rs')]);
  });

  it('cp, mv and ln write their target; into a folder, the names copied there', async () => {
    expect(await writes('cp evil.mk GNUmakefile')).toEqual([join(root, 'GNUmakefile')]);
    expect(await writes('mv a.mk b.mk sub/')).toEqual([join(root, 'sub', 'a.mk'), join(root, 'sub', 'b.mk')]);
    expect(await writes('ln -s evil.mk sub/Makefile')).toEqual([join(root, 'sub', 'Makefile')]);
    expect(await writes('cp -t sub x.py')).toEqual([join(root, 'sub', 'x.py')]);
  });

  it('a copy of a glob into a folder stands for the whole folder, and so does an rsync into one', async () => {
    expect(await writes('cp stuff/* sub')).toEqual([join(root, 'sub')]);
    expect(await writes('rsync -a template/ sub/')).toEqual([join(root, 'sub')]);
  });

  it('a write through a link is a write of the file it leads to', async () => {
    expect(await writes('echo x > Makefile')).toEqual([join(root, 'evil.mk')]);
  });

  it('rm, chmod, touch and mkdir change no instructions: not noted', async () => {
    expect(await writes('rm -f a; chmod +x run.sh; touch b; mkdir c')).toEqual([]);
  });

  it('writes to /dev/null and reads are not writes', async () => {
    expect(await writes('make > /dev/null 2>&1 < input.txt')).toEqual([]);
  });
});

describe('a line built to name more files than are followed', () => {
  it('pytest with thousands of test paths: everything under its folder counts instead', () => {
    const args = Array.from({ length: 5000 }, (_, i) => `t${i}`).join(' ');
    const found = runs(`pytest ${args}`);
    expect(found.length).toBeLessThan(1100);
    expect(found).toContainEqual({ path: P, by: 'pytest', tree: true });
  });

  it('thousands of make -C before the real make do not push its Makefile off the list', async () => {
    const stuffing = Array.from({ length: 800 }, (_, i) => `make -C d${i}`).join('; ');
    const s = await subject(`${stuffing}; make`);
    const found = s.runs ?? [];
    // Past the limit the whole folder the line runs in counts: a Makefile a client wrote there is still found.
    expect(found.some((r) => r.path === join(root, 'Makefile') || (r.tree === true && r.path === root))).toBe(true);
    expect(found.length).toBeLessThan(2100);
  });
});

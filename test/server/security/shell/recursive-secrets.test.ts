import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShellAnalyzer } from '../../../../server/security/shell/analyzer.js';

/**
 * Recursive reads of folders that hold secrets, on a real disk: `cat .env` asks, so `grep -r SECRET .` — which prints
 * the same file — must ask too, naming the file. A root with a `.env`, AWS credentials and an SSH key sits beside a
 * clean root laid out the same way without them, where the same commands stay allowed. Nothing here is run.
 */

let base: string;
/** Holds `.env`, `proj/.aws/credentials`, `proj/.ssh/id_ed25519`, `certs/server.key`, a git repository. */
let root: string;
/** The same layout, no secrets. */
let clean: string;
let outside: string;
let home: string;
let data: string;
let analyzer: ShellAnalyzer;

/** Secret files the reason may name in `root` (the first one a walk meets). */
const NAMED = /\((?:\.env|proj\/\.aws\/credentials|proj\/\.ssh\/id_ed25519|certs\/server\.key)\)/;

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, { cwd, stdio: 'ignore', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: home } });
}

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'pincer-shell-secrets-')));
  root = join(base, 'root');
  clean = join(base, 'clean');
  outside = join(base, 'outside');
  home = join(base, 'home');
  data = join(base, 'data');
  for (const dir of [home, data, outside]) mkdirSync(dir, { recursive: true });
  for (const r of [root, clean]) {
    write(join(r, 'src/app.ts'), '// TODO: SECRET handling\n');
    write(join(r, 'proj/README.md'), '# proj\n');
    write(join(r, 'proj/.config/settings.json'), '{}\n');
    mkdirSync(join(r, 'empty'), { recursive: true });
    mkdirSync(join(r, 'certs'), { recursive: true });
    write(join(r, 'certs/README.md'), 'certificates go here\n');
  }
  write(join(root, '.env'), 'SECRET=hunter2\n');
  write(join(root, 'proj/.aws/credentials'), '[default]\naws_secret_access_key=SECRET\n');
  write(join(root, 'proj/.ssh/id_ed25519'), '-----BEGIN OPENSSH PRIVATE KEY-----\nSECRET\n');
  write(join(root, 'certs/server.key'), '-----BEGIN PRIVATE KEY-----\nSECRET\n');
  // Spelled in capitals: file_read folds case, so the walk does too.
  write(join(root, 'upper/.ENV'), 'SECRET=1\n');
  write(join(root, 'upper/notes.txt'), 'notes\n');
  // A link out of the root, to a folder holding a secret: grep -r does not follow it, nor does the walk.
  write(join(outside, '.env'), 'SECRET=outside\n');
  write(join(root, 'links/readme.txt'), 'links\n');
  symlinkSync(outside, join(root, 'links/out'));
  // A link inside the root to a secret inside it: grep -R follows it.
  write(join(root, 'inner/readme.txt'), 'inner\n');
  symlinkSync(join(root, '.env'), join(root, 'inner/settings'));
  // A repository whose .env is ignored (untracked) and whose tracked files hold no secret, and one that tracks a key.
  for (const [name, tracked] of [['repo', false], ['leaky', true]] as const) {
    const repo = join(root, name);
    write(join(repo, 'src/main.ts'), '// TODO\n');
    write(join(repo, '.gitignore'), '.env\n');
    write(join(repo, '.env'), 'SECRET=repo\n');
    if (tracked) write(join(repo, 'deploy/id_rsa'), '-----BEGIN RSA PRIVATE KEY-----\n');
    git(repo, 'init', '-q');
    git(repo, 'add', '.');
  }
  write(join(clean, 'repo/src/main.ts'), '// TODO\n');
  git(join(clean, 'repo'), 'init', '-q');
  git(join(clean, 'repo'), 'add', '.');
  // More entries than the small analyzer below may visit.
  for (let i = 0; i < 40; i++) write(join(root, 'big', `file-${i}.txt`), `${i}\n`);
  analyzer = new ShellAnalyzer({ protectedPaths: [data], roots: [root, clean], home });
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

async function judge(command: string, cwd = root, using = analyzer) {
  const verdict = await using.analyze(command, cwd);
  return { decision: verdict.decision, rule: verdict.rule, reason: verdict.reason };
}

// ---------------------------------------------------------------------------------------------------------------

describe('a direct read of a secret asks (the baseline the recursive reads must meet)', () => {
  it.each(['cat .env', 'head proj/.aws/*', 'cat proj/.ssh/id_ed25519'])('%s', async (command) => {
    expect(await judge(command)).toMatchObject({ decision: 'ask', rule: 'shell:secret-read' });
  });

  it('folds case as file_read does: cat .ENV and cat upper/.ENV ask', async () => {
    expect(await judge('cat .ENV')).toMatchObject({ decision: 'ask', rule: 'shell:secret-read' });
    const verdict = await judge('cat upper/.ENV');
    expect(verdict).toMatchObject({ decision: 'ask', rule: 'shell:secret-read' });
  });

  it('asks for a file file_read would ask about that the shell list did not name (proj/credentials)', async () => {
    write(join(root, 'proj/credentials'), 'SECRET\n');
    try {
      const verdict = await judge('cat proj/credentials');
      expect(verdict).toMatchObject({ decision: 'ask', rule: 'shell:secret-read' });
      expect(verdict.reason).toContain('proj/credentials');
    } finally {
      rmSync(join(root, 'proj/credentials'));
    }
  });
});

/** Commands that read every file under their folders; each asks in `root`, and runs in `clean`. */
const RECURSIVE = [
  'grep -r SECRET .',
  'grep -r SECRET',
  'grep SECRET -r .',
  'grep -ra . proj',
  'grep -R SECRET proj',
  'grep --recursive SECRET proj',
  'grep -d recurse SECRET proj',
  'grep --directories=recurse SECRET proj',
  'egrep -rn "SECRET|KEY" .',
  'rg -uu .',
  'rg -uuu SECRET proj',
  'rg -u -u SECRET proj',
  'rg --hidden SECRET proj',
  'rg -. SECRET',
  'rg -g "*" SECRET proj',
  'rg SECRET certs',
  'git grep --no-index -e SECRET',
  'git grep --no-index SECRET proj',
  'diff -rN proj empty',
  'diff -r empty proj',
  'diff --recursive --new-file proj empty',
  'git diff --no-index proj empty',
  'find . -type f | xargs cat',
  'find proj -type f -print0 | xargs -0 grep SECRET',
  'ls -a | xargs cat',
  'timeout 5 grep -r SECRET proj',
  'grep -r SECRET proj | head -5',
  'cd proj && grep -r SECRET .',
];

describe('recursive reads of folders that hold secrets ask, naming the secret file', () => {
  it.each(RECURSIVE)('%s', async (command) => {
    const verdict = await judge(command);
    expect({ command, decision: verdict.decision, rule: verdict.rule }).toEqual({ command, decision: 'ask', rule: 'shell:secret-read' });
    expect(verdict.reason).toMatch(NAMED);
  });

  it('names the file a narrower read finds, relative to where the command runs', async () => {
    expect((await judge('grep -r SECRET certs')).reason).toContain('(certs/server.key)');
    expect((await judge('diff -rN certs empty')).reason).toContain('(certs/server.key)');
    expect((await judge('grep -r SECRET .', join(root, 'certs'))).reason).toContain('(server.key)');
    expect((await judge('rg SECRET certs')).reason).toContain('(certs/server.key)');
  });

  it('diff without -r reads the files directly in a folder: a secret there asks, one deeper does not', async () => {
    expect(await judge('diff -N proj/.aws empty')).toMatchObject({ decision: 'ask', rule: 'shell:secret-read' });
    expect(await judge('diff -N proj empty')).toMatchObject({ decision: 'allow', rule: 'shell:read-only' });
  });

  it('the walk folds case: grep -r through a folder holding .ENV asks', async () => {
    const verdict = await judge('grep -r SECRET upper');
    expect(verdict).toMatchObject({ decision: 'ask', rule: 'shell:secret-read' });
    expect(verdict.reason).toContain('(upper/.ENV)');
  });
});

describe('the same reads of folders without secrets stay allowed', () => {
  it.each([...RECURSIVE, 'grep -r TODO src', 'rg TODO', 'git grep TODO', 'find src | xargs cat'])('%s', async (command) => {
    const verdict = await judge(command, clean);
    expect({ command, decision: verdict.decision, rule: verdict.rule }).toEqual({ command, decision: 'allow', rule: 'shell:read-only' });
  });

  it.each(['grep -r TODO src', 'grep -rn SECRET --include=*.ts .', 'diff -r src src'])(
    'in the root that holds secrets, a read of a folder without them: %s',
    async (command) => {
      expect(await judge(command)).toMatchObject({ decision: 'allow', rule: 'shell:read-only' });
    },
  );

  it('a listing opened from a folder without secrets, in a root that holds them, is allowed', async () => {
    const verdict = await judge('find . -name "*.ts" | xargs wc -l', join(root, 'src'));
    expect(verdict).toMatchObject({ decision: 'allow', rule: 'shell:read-only' });
  });
});

describe('rg reads what rg reads', () => {
  it('skips hidden files and folders unless told otherwise', async () => {
    expect(await judge('rg SECRET proj')).toMatchObject({ decision: 'allow' });
    expect(await judge('rg SECRET upper')).toMatchObject({ decision: 'allow' });
    expect(await judge('rg SECRET', join(root, 'repo'))).toMatchObject({ decision: 'allow' });
    expect(await judge('rg -u SECRET proj')).toMatchObject({ decision: 'allow' });
  });

  it('a glob or type limits it to the files it names (rg -g "*.ts", rg -t ts); a glob that takes .env asks', async () => {
    expect(await judge('rg -g "*.ts" SECRET')).toMatchObject({ decision: 'allow' });
    expect(await judge('rg -t ts SECRET')).toMatchObject({ decision: 'allow' });
    expect(await judge('rg -g ".env*" SECRET')).toMatchObject({ decision: 'ask', rule: 'shell:secret-read' });
  });

  it('does not search what .gitignore leaves out in a repository (node_modules/), nor count it against the cap', async () => {
    const repo = join(root, 'ignoring');
    write(join(repo, '.gitignore'), 'node_modules/\n/dist\n');
    write(join(repo, 'src/index.ts'), '// TODO\n');
    write(join(repo, 'node_modules/pkg/server.pem'), 'SECRET\n');
    write(join(repo, 'dist/deploy/server.key'), 'SECRET\n');
    for (let i = 0; i < 40; i++) write(join(repo, 'node_modules/pkg', `f${i}.js`), '\n');
    // Outside a repository rg reads no .gitignore: the same layout is searched whole.
    const loose = join(root, 'loose');
    write(join(loose, '.gitignore'), 'vendor/\n');
    write(join(loose, 'vendor/server.pem'), 'SECRET\n');
    try {
      git(repo, 'init', '-q');
      const small = new ShellAnalyzer({ protectedPaths: [data], roots: [root, clean], home, scanLimit: 20 });
      expect(await judge('rg SECRET', repo, small)).toMatchObject({ decision: 'allow', rule: 'shell:read-only' });
      expect(await judge('rg SECRET ignoring')).toMatchObject({ decision: 'allow', rule: 'shell:read-only' });
      for (const command of ['rg -u SECRET', 'rg --no-ignore-vcs SECRET', 'grep -r SECRET .']) {
        const verdict = await judge(command, repo);
        expect({ command, decision: verdict.decision, rule: verdict.rule }).toEqual({ command, decision: 'ask', rule: 'shell:secret-read' });
      }
      expect((await judge('rg SECRET', loose)).reason).toContain('(vendor/server.pem)');
    } finally {
      rmSync(repo, { recursive: true, force: true });
      rmSync(loose, { recursive: true, force: true });
    }
  });

  it('a `!` line in an ignore file brings hidden files back, so it asks', async () => {
    const folder = join(root, 'whitelist');
    write(join(folder, '.env'), 'SECRET\n');
    write(join(folder, '.ignore'), '!.env\n');
    try {
      expect(await judge('rg SECRET whitelist')).toMatchObject({ decision: 'ask', rule: 'shell:secret-read' });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('git grep reads the files git tracks', () => {
  it('an ignored, untracked .env is not read: git grep runs', async () => {
    expect(await judge('git grep TODO', join(root, 'repo'))).toMatchObject({ decision: 'allow', rule: 'shell:read-only' });
    expect(await judge('git -C repo grep TODO')).toMatchObject({ decision: 'allow', rule: 'shell:read-only' });
  });

  it('a tracked key is read: git grep asks, naming it', async () => {
    const verdict = await judge('git grep -e SECRET', join(root, 'leaky'));
    expect(verdict).toMatchObject({ decision: 'ask', rule: 'shell:secret-read' });
    expect(verdict.reason).toContain('(deploy/id_rsa)');
    expect((await judge('git -C leaky grep SECRET')).reason).toContain('(leaky/deploy/id_rsa)');
    expect(await judge('git grep SECRET :/', join(root, 'leaky/src'))).toMatchObject({ decision: 'ask', rule: 'shell:secret-read' });
  });

  it('a pathspec away from the key is allowed', async () => {
    expect(await judge('git grep SECRET -- src', join(root, 'leaky'))).toMatchObject({ decision: 'allow' });
    expect(await judge('git grep SECRET', join(root, 'leaky/src'))).toMatchObject({ decision: 'allow' });
  });

  it('--untracked, --no-index and a revision read beyond the index: the work tree is walked', async () => {
    for (const command of ['git grep --untracked TODO', 'git grep --no-index TODO', 'git grep TODO HEAD']) {
      const verdict = await judge(command, join(root, 'repo'));
      expect({ command, decision: verdict.decision, rule: verdict.rule }).toEqual({ command, decision: 'ask', rule: 'shell:secret-read' });
      expect(verdict.reason).toContain('(.env)');
    }
  });
});

describe('the walk is bounded and stays inside the roots', () => {
  const small = () => new ShellAnalyzer({ protectedPaths: [data], roots: [root, clean], home, scanLimit: 20 });

  it('a folder with more entries than the cap asks (a walk that cannot finish cannot say yes)', async () => {
    const verdict = await judge('grep -r TODO big', root, small());
    expect(verdict).toMatchObject({ decision: 'ask', rule: 'shell:too-complex' });
    expect(verdict.reason).toMatch(/more files than this check looks through/);
    expect(await judge('grep -r TODO src', root, small())).toMatchObject({ decision: 'allow' });
    // The default cap is far above it.
    expect(await judge('grep -r TODO big')).toMatchObject({ decision: 'allow' });
  });

  it('a link out of the root is not followed: grep -r through it is allowed, and no outside file is named', async () => {
    expect(await judge('grep -r SECRET links')).toMatchObject({ decision: 'allow', rule: 'shell:read-only' });
    expect(await judge('rg -uu SECRET links')).toMatchObject({ decision: 'allow', rule: 'shell:read-only' });
    // grep -R follows links: where this one leads is judged as a read outside the roots, not as a secret there.
    const follows = await judge('grep -R SECRET links');
    expect(follows).toMatchObject({ decision: 'ask', rule: 'shell:outside-roots' });
    expect(follows.reason).not.toContain('.env');
  });

  it('a link that stays inside the root is followed by the readers that follow links', async () => {
    expect(await judge('grep -r SECRET inner')).toMatchObject({ decision: 'allow' });
    const verdict = await judge('grep -R SECRET inner');
    expect(verdict).toMatchObject({ decision: 'ask', rule: 'shell:secret-read' });
    expect(verdict.reason).toContain('inner/settings');
  });
});

import { existsSync, linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileAnalyzers } from '../../../server/policy/analyzers/files.js';
import { PolicyEngine } from '../../../server/policy/engine.js';
import { PathGuard, type PathAccess, type PathVerdict } from '../../../server/security/path-guard.js';
import { createFileDeleteTool } from '../../../server/tools/builtin/file-delete.js';
import { createFileListTool } from '../../../server/tools/builtin/file-list.js';
import { createFileReadTool } from '../../../server/tools/builtin/file-read.js';
import { createFileWriteTool } from '../../../server/tools/builtin/file-write.js';
import { ToolRegistry } from '../../../server/tools/registry.js';

/**
 * Every case goes through the guard only: nothing here reads, writes or deletes what a case names. Paths may use
 * {root} (first root), {root2}, {base} (the temp folder holding everything) and {out} (a folder outside the roots).
 */

let base: string;
let root: string;
let root2: string;
let out: string;
let dataDir: string;
let nestedData: string;
let guard: PathGuard;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'pincer-paths-')));
  root = join(base, 'root');
  root2 = join(base, 'root2');
  out = join(base, 'outside');
  dataDir = join(root, '.pincer');
  nestedData = join(root, 'var', 'pincer-data');
  const files: Record<string, string> = {
    'root/notes.txt': 'notes',
    'root/src/index.ts': 'export {};',
    'root/src/deep/nested/file.md': '# deep',
    'root/with space.txt': 'space',
    'root/ünïcödé-文件.txt': 'unicode',
    'root/a..b.txt': 'dots',
    'root/..hidden-ish': 'starts with two dots',
    'root/%2e%2e/x.txt': 'literally named %2e%2e',
    'root/~tilde.txt': 'literal tilde',
    'root/.git/hooks/pre-commit': '#!/bin/sh',
    'root/.git/config': '[core]',
    'root/sub/.git/config': '[core]',
    'root/.bashrc': 'alias ll=ls',
    'root/.env': 'API_KEY=inside-secret',
    'root/.env.example': 'API_KEY=',
    'root/id_rsa': 'PRIVATE KEY',
    'root/id_rsa.pub': 'ssh-ed25519 AAAA',
    'root/server.pem': 'CERT',
    'root/.npmrc': '//registry/:_authToken=x',
    'root/.aws/credentials': '[default]',
    'root/settings.json': '{}',
    'root/.vscodeish/settings.json': '{}',
    'root/my.git/hooks/x': 'not a git dir',
    'root/.pincer/token': 'gateway-token',
    'root/var/pincer-data/db': 'db',
    // A real folder named with two fullwidth full stops: inside the root here, "../outside" once normalised.
    'root/\uff0e\uff0e/outside/secret.txt': 'LOOKALIKE-FOLDER',
    'root2/other.txt': 'second root',
    'root-evil/secret.txt': 'SIBLING-SECRET',
    'outside/secret.txt': 'OUTSIDE-SECRET',
    'outside/hl-source.txt': 'HARDLINK-SECRET',
  };
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(join(base, file, '..'), { recursive: true });
    writeFileSync(join(base, file), content);
  }
  symlinkSync('notes.txt', join(root, 'link-in.txt'));
  symlinkSync('src', join(root, 'link-dir-in'));
  symlinkSync(join(out, 'secret.txt'), join(root, 'link-out.txt'));
  symlinkSync(out, join(root, 'link-dir-out'));
  symlinkSync('chain2', join(root, 'chain1'));
  symlinkSync(join(out, 'secret.txt'), join(root, 'chain2'));
  symlinkSync(join(out, 'nope.txt'), join(root, 'dangling-out'));
  symlinkSync(join(root, 'not-yet.txt'), join(root, 'dangling-in'));
  symlinkSync('loop-b', join(root, 'loop-a'));
  symlinkSync('loop-a', join(root, 'loop-b'));
  symlinkSync('.pincer', join(root, 'link-to-data'));
  symlinkSync('.git', join(root, 'gitlink'));
  symlinkSync('.env', join(root, 'innocent.txt'));
  symlinkSync('../root-evil', join(root, 'link-sibling'));
  symlinkSync('/etc', join(root, 'etc-link'));
  linkSync(join(out, 'hl-source.txt'), join(root, 'hardlink.txt'));
  guard = PathGuard.create({ roots: [root, root2], protectedDirs: [dataDir, nestedData] });
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

function fill(template: string): string {
  return template
    .replaceAll('{root2}', root2)
    .replaceAll('{root}', root)
    .replaceAll('{base}', base)
    .replaceAll('{out}', out);
}

type Row = [name: string, path: string, access: PathAccess, decision: 'allow' | 'ask' | 'deny', rule: string];

async function expectVerdict(path: string, access: PathAccess, decision: string, rule: string): Promise<PathVerdict> {
  const verdict = await guard.check(fill(path), access);
  expect({ decision: verdict.decision.decision, rule: verdict.decision.rule }).toEqual({ decision, rule });
  expect(verdict.decision.reason.length).toBeGreaterThan(30);
  return verdict;
}

describe('PathGuard: safe controls are allowed (an engine that blocks everything fails here)', () => {
  it.each<Row>([
    ['reads a plain file by relative path', 'notes.txt', 'read', 'allow', 'path:inside-root'],
    ['reads a plain file by absolute path', '{root}/notes.txt', 'read', 'allow', 'path:inside-root'],
    ['reads a nested file', 'src/deep/nested/file.md', 'read', 'allow', 'path:inside-root'],
    ['reads a file with ./ in front', './notes.txt', 'read', 'allow', 'path:inside-root'],
    ['reads through a .. that stays inside', 'src/../notes.txt', 'read', 'allow', 'path:inside-root'],
    ['reads with doubled slashes', 'src//index.ts', 'read', 'allow', 'path:inside-root'],
    ['reads a name with spaces', 'with space.txt', 'read', 'allow', 'path:inside-root'],
    ['reads a unicode name', 'ünïcödé-文件.txt', 'read', 'allow', 'path:inside-root'],
    ['reads a name with two dots inside it (a..b.txt)', 'a..b.txt', 'read', 'allow', 'path:inside-root'],
    ['reads a name that starts with two dots (..hidden-ish)', '..hidden-ish', 'read', 'allow', 'path:inside-root'],
    ['treats URL-encoded %2e%2e literally (a folder named so is inside)', '%2e%2e/x.txt', 'read', 'allow', 'path:inside-root'],
    ['reads a file literally named ~… through ./', './~tilde.txt', 'read', 'allow', 'path:inside-root'],
    ['treats a backslash as a separator inside the root', 'src\\index.ts', 'read', 'allow', 'path:inside-root'],
    ['reads through a symlink that points inside', 'link-in.txt', 'read', 'allow', 'path:inside-root'],
    ['reads through a symlinked folder that points inside', 'link-dir-in/index.ts', 'read', 'allow', 'path:inside-root'],
    ['reads a file in the second root by absolute path', '{root2}/other.txt', 'read', 'allow', 'path:inside-root'],
    ['reads a file:// URL inside the root', 'file://{root}/notes.txt', 'read', 'allow', 'path:inside-root'],
    ['reads .env.example (a template, not a secret)', '.env.example', 'read', 'allow', 'path:inside-root'],
    ['reads a public key', 'id_rsa.pub', 'read', 'allow', 'path:inside-root'],
    ['reads .git/config (reads of code-execution files are fine)', '.git/config', 'read', 'allow', 'path:inside-root'],
    ['reads a git hook', '.git/hooks/pre-commit', 'read', 'allow', 'path:inside-root'],
    ['reads .bashrc', '.bashrc', 'read', 'allow', 'path:inside-root'],
    ['reads a file that does not exist yet (the tool reports it missing)', 'missing.txt', 'read', 'allow', 'path:inside-root'],
    ['lists the root itself as "."', '.', 'list', 'allow', 'path:inside-root'],
    ['lists the root by absolute path', '{root}', 'list', 'allow', 'path:inside-root'],
    ['lists the root with a trailing slash', '{root}/', 'list', 'allow', 'path:inside-root'],
    ['lists a subfolder with a trailing slash', 'src/', 'list', 'allow', 'path:inside-root'],
    ['lists a secrets folder (names only)', '.aws', 'list', 'allow', 'path:inside-root'],
    ['lists the second root', '{root2}', 'list', 'allow', 'path:inside-root'],
    ['writes an existing file', 'notes.txt', 'write', 'allow', 'path:inside-root'],
    ['writes a new file in an existing folder', 'src/new.ts', 'write', 'allow', 'path:inside-root'],
    ['writes a new file in new nested folders', 'brand/new/dir/file.txt', 'write', 'allow', 'path:inside-root'],
    ['writes a new file through a symlinked folder that points inside', 'link-dir-in/new.ts', 'write', 'allow', 'path:inside-root'],
    ['writes a unicode name', 'новый файл.md', 'write', 'allow', 'path:inside-root'],
    ['writes settings.json outside any editor folder', 'settings.json', 'write', 'allow', 'path:inside-root'],
    ['writes in a folder whose name only starts like .vscode', '.vscodeish/settings.json', 'write', 'allow', 'path:inside-root'],
    ['writes in a my.git folder (not a .git folder)', 'my.git/hooks/x', 'write', 'allow', 'path:inside-root'],
    ['writes .env (not code; reading it is what asks)', '.env', 'write', 'allow', 'path:inside-root'],
    ['writes .gitignore (not a .git folder)', '.gitignore', 'write', 'allow', 'path:inside-root'],
    ['writes a CI workflow (runs remotely, not here)', '.github/workflows/ci.yml', 'write', 'allow', 'path:inside-root'],
    ['writes package.json', 'package.json', 'write', 'allow', 'path:inside-root'],
    ['writes a source file in node_modules (not .bin)', 'node_modules/pkg/readme.md', 'write', 'allow', 'path:inside-root'],
    ['reads a file called credentials.md (not a credentials file)', 'docs/credentials.md', 'read', 'allow', 'path:inside-root'],
    ['reads .env.test.example', '.env.test.example', 'read', 'allow', 'path:inside-root'],
  ])('%s', async (_name, path, access, decision, rule) => {
    await expectVerdict(path, access, decision, rule);
  });

  it('takes relative paths from the first root and reports root and relative path', async () => {
    const verdict = await guard.check('src/index.ts', 'read');
    expect(verdict).toMatchObject({ resolved: join(root, 'src/index.ts'), root, relative: 'src/index.ts' });
    expect((await guard.check('.', 'list')).relative).toBe('.');
    expect((await guard.check(join(root2, 'other.txt'), 'read'))).toMatchObject({ root: root2, relative: 'other.txt' });
  });

  it('resolves a symlink inside to its real target', async () => {
    expect((await guard.check('link-in.txt', 'read')).resolved).toBe(join(root, 'notes.txt'));
    expect((await guard.check('link-dir-in/new.ts', 'write')).resolved).toBe(join(root, 'src', 'new.ts'));
  });

  it('keeps %2e%2e/%2e%2e/etc/passwd inside the root (nothing decodes it)', async () => {
    const verdict = await expectVerdict('%2e%2e/%2e%2e/etc/passwd', 'read', 'allow', 'path:inside-root');
    expect(verdict.resolved).toBe(join(root, '%2e%2e', '%2e%2e', 'etc', 'passwd'));
  });
});

describe('PathGuard: escapes with ..', () => {
  it.each<Row>([
    ['blocks ../ out of the root', '../outside/secret.txt', 'read', 'deny', 'path:outside-roots'],
    ['blocks a long run of ../ to /etc/passwd', '../../../../../../../../etc/passwd', 'read', 'deny', 'path:outside-roots'],
    ['blocks .. after a real folder', 'src/../../outside/secret.txt', 'read', 'deny', 'path:outside-roots'],
    ['blocks .. in an absolute path', '{root}/../outside/secret.txt', 'read', 'deny', 'path:outside-roots'],
    ['blocks listing the parent with ..', '..', 'list', 'deny', 'path:outside-roots'],
    ['blocks writing with ../', '../outside/new.txt', 'write', 'deny', 'path:outside-roots'],
    ['blocks deleting with ../', '../outside/secret.txt', 'delete', 'deny', 'path:outside-roots'],
    ['refuses .. after a folder that does not exist', 'newdir/../../outside/x.txt', 'write', 'deny', 'path:invalid'],
    ['blocks .. taken from the real parent of a symlinked folder', 'link-dir-out/../root-evil/secret.txt', 'read', 'deny', 'path:outside-roots'],
    ['blocks .. after a symlink even when the text looks inside', 'link-dir-out/../notes.txt', 'write', 'deny', 'path:outside-roots'],
    ['allows .. after a symlink when the real parent leads back inside', 'link-dir-out/../root/notes.txt', 'read', 'allow', 'path:inside-root'],
  ])('%s', async (_name, path, access, decision, rule) => {
    await expectVerdict(path, access, decision, rule);
  });
});

describe('PathGuard: absolute paths and special files outside', () => {
  it.each<Row>([
    ['blocks /etc/passwd', '/etc/passwd', 'read', 'deny', 'path:outside-roots'],
    ['blocks /etc/shadow', '/etc/shadow', 'read', 'deny', 'path:outside-roots'],
    ['blocks a file in a folder outside', '{out}/secret.txt', 'read', 'deny', 'path:outside-roots'],
    ['blocks listing /', '/', 'list', 'deny', 'path:outside-roots'],
    ['blocks writing to /tmp', '/tmp/pincer-evil.txt', 'write', 'deny', 'path:outside-roots'],
    ['blocks /proc/self/root/… (a magic link to /)', '/proc/self/root/etc/passwd', 'read', 'deny', 'path:outside-roots'],
    ['blocks /proc/self/cwd/… ', '/proc/self/cwd/package.json', 'read', 'deny', 'path:outside-roots'],
    ['blocks /proc/self/environ', '/proc/self/environ', 'read', 'deny', 'path:outside-roots'],
    ['blocks /dev/zero', '/dev/zero', 'read', 'deny', 'path:outside-roots'],
    ['blocks writing /dev/sda', '/dev/sda', 'write', 'deny', 'path:outside-roots'],
    ['blocks a file:// URL outside', 'file:///etc/passwd', 'read', 'deny', 'path:outside-roots'],
    ['blocks a Windows drive path', 'C:\\Windows\\System32\\config\\SAM', 'read', 'deny', 'path:outside-roots'],
    ['blocks a UNC path', '\\\\server\\share\\secret.txt', 'read', 'deny', 'path:outside-roots'],
    ['blocks backslash traversal', '..\\..\\etc\\passwd', 'read', 'deny', 'path:outside-roots'],
    ['blocks mixed backslash traversal from a subfolder', 'src\\..\\..\\outside\\secret.txt', 'read', 'deny', 'path:outside-roots'],
  ])('%s', async (_name, path, access, decision, rule) => {
    await expectVerdict(path, access, decision, rule);
  });
});

describe('PathGuard: prefix siblings', () => {
  it.each<Row>([
    ['blocks a sibling folder with the root as prefix', '{base}/root-evil/secret.txt', 'read', 'deny', 'path:outside-roots'],
    ['blocks the sibling by relative path', '../root-evil/secret.txt', 'read', 'deny', 'path:outside-roots'],
    ['blocks writing into the sibling', '{base}/root-evil/new.txt', 'write', 'deny', 'path:outside-roots'],
    ['blocks listing the sibling', '{base}/root-evil', 'list', 'deny', 'path:outside-roots'],
    ['blocks a symlink to the sibling', 'link-sibling/secret.txt', 'read', 'deny', 'path:outside-roots'],
    ['blocks a sibling of the second root with its name as prefix', '{root2}-x/file', 'read', 'deny', 'path:outside-roots'],
  ])('%s', async (_name, path, access, decision, rule) => {
    await expectVerdict(path, access, decision, rule);
  });
});

describe('PathGuard: symlinks', () => {
  it.each<Row>([
    ['blocks reading a symlinked file that points out', 'link-out.txt', 'read', 'deny', 'path:outside-roots'],
    ['blocks reading through a symlinked folder that points out', 'link-dir-out/secret.txt', 'read', 'deny', 'path:outside-roots'],
    ['blocks listing a symlinked folder that points out', 'link-dir-out', 'list', 'deny', 'path:outside-roots'],
    ['blocks a symlink chain that ends outside', 'chain1', 'read', 'deny', 'path:outside-roots'],
    ['blocks a symlink to /etc', 'etc-link/passwd', 'read', 'deny', 'path:outside-roots'],
    ['blocks reading a dangling symlink that points out', 'dangling-out', 'read', 'deny', 'path:outside-roots'],
    ['refuses writing a dangling symlink that points out', 'dangling-out', 'write', 'deny', 'path:symlink-write'],
    ['refuses writing a dangling symlink that points inside', 'dangling-in', 'write', 'deny', 'path:symlink-write'],
    ['refuses writing a symlinked file that points out', 'link-out.txt', 'write', 'deny', 'path:symlink-write'],
    ['refuses writing through a symlink that points inside', 'link-in.txt', 'write', 'deny', 'path:symlink-write'],
    ['blocks writing a new file through a symlinked folder that points out', 'link-dir-out/new.txt', 'write', 'deny', 'path:outside-roots'],
    ['blocks deleting through a symlinked folder that points out', 'link-dir-out/secret.txt', 'delete', 'deny', 'path:outside-roots'],
    ['refuses a symlink loop', 'loop-a', 'read', 'deny', 'path:invalid'],
    ['asks to delete a symlink that points out (the link itself goes, not its target)', 'link-out.txt', 'delete', 'ask', 'path:delete'],
  ])('%s', async (_name, path, access, decision, rule) => {
    await expectVerdict(path, access, decision, rule);
  });

  it('a delete of a symlink resolves to the link itself, not to what it points at', async () => {
    expect((await guard.check('link-out.txt', 'delete')).resolved).toBe(join(root, 'link-out.txt'));
  });
});

describe('PathGuard: malformed paths', () => {
  it.each<Row>([
    ['refuses a NUL byte', 'notes.txt\0.png', 'read', 'deny', 'path:invalid'],
    ['refuses a NUL byte on write', 'new.txt\0', 'write', 'deny', 'path:invalid'],
    ['refuses an empty path', '', 'read', 'deny', 'path:invalid'],
    ['refuses a blank path', '   ', 'list', 'deny', 'path:invalid'],
    ['refuses a newline (log and approval spoofing)', 'notes\n.txt', 'write', 'deny', 'path:invalid'],
    ['refuses a leading space in front of an absolute path', ' /etc/passwd', 'read', 'deny', 'path:invalid'],
    ['refuses a trailing space', 'notes.txt ', 'write', 'deny', 'path:invalid'],
    ['refuses a bidi override (approval spoofing)', 'evil\u202Etxt.exe', 'write', 'deny', 'path:invalid'],
    ['refuses a path over 4096 characters', 'a/'.repeat(2100), 'read', 'deny', 'path:invalid'],
    ['refuses a name over 255 bytes', 'x'.repeat(300), 'write', 'deny', 'path:invalid'],
    ['refuses ~/.ssh/id_rsa', '~/.ssh/id_rsa', 'read', 'deny', 'path:home-shorthand'],
    ['refuses a bare ~', '~', 'list', 'deny', 'path:home-shorthand'],
    ["refuses ~user's home", '~root/.bashrc', 'write', 'deny', 'path:home-shorthand'],
    ['refuses ~ with a backslash', '~\\.aws\\credentials', 'read', 'deny', 'path:home-shorthand'],
    ['refuses a malformed file:// URL', 'file://evil-host/etc/passwd', 'read', 'deny', 'path:invalid'],
  ])('%s', async (_name, path, access, decision, rule) => {
    await expectVerdict(path, access, decision, rule);
  });

  it.each([
    ['undefined', undefined],
    ['a number', 42],
    ['null', null],
    ['an object', { path: 'notes.txt' }],
    ['an array', ['notes.txt']],
  ])('refuses a path that is %s', async (_name, value) => {
    const verdict = await guard.check(value, 'read');
    expect(verdict.decision).toMatchObject({ decision: 'deny', rule: 'path:invalid' });
  });
});

describe("PathGuard: Pincer's data directory", () => {
  it.each<Row>([
    ['blocks reading the data dir inside a root', '.pincer/token', 'read', 'deny', 'path:pincer-data'],
    ['blocks listing the data dir', '.pincer', 'list', 'deny', 'path:pincer-data'],
    ['blocks writing into the data dir', '.pincer/config.json', 'write', 'deny', 'path:pincer-data'],
    ['blocks deleting the data dir', '.pincer', 'delete', 'deny', 'path:pincer-data'],
    ['blocks a symlink into the data dir', 'link-to-data/token', 'read', 'deny', 'path:pincer-data'],
    ['blocks a differently-cased data dir (case-insensitive disks)', '.PINCER/token', 'read', 'deny', 'path:pincer-data'],
    ['blocks deleting a folder that contains the data dir', 'var', 'delete', 'deny', 'path:pincer-data'],
    ['blocks a nested data dir by absolute path', '{root}/var/pincer-data/db', 'read', 'deny', 'path:pincer-data'],
  ])('%s', async (_name, path, access, decision, rule) => {
    await expectVerdict(path, access, decision, rule);
  });
});

describe('PathGuard: files that run code ask before a write or delete', () => {
  it.each<Row>([
    ['asks for a git hook', '.git/hooks/pre-commit', 'write', 'ask', 'path:code-execution'],
    ['asks for a new git hook', '.git/hooks/post-checkout', 'write', 'ask', 'path:code-execution'],
    ['asks for a git hook spelled .GIT/hooks', '.GIT/hooks/pre-commit', 'write', 'ask', 'path:code-execution'],
    ['asks for .git/config spelled .Git/Config', '.Git/Config', 'write', 'ask', 'path:code-execution'],
    ['asks for .git/config', '.git/config', 'write', 'ask', 'path:code-execution'],
    ['asks for a nested repository config', 'sub/.git/config', 'write', 'ask', 'path:code-execution'],
    ['asks for .git/config reached through a symlinked folder', 'gitlink/config', 'write', 'ask', 'path:code-execution'],
    ['asks for a .git file (gitdir redirect)', 'sub2/.git', 'write', 'ask', 'path:code-execution'],
    ['asks for .VSCode/settings.json', '.VSCode/settings.json', 'write', 'ask', 'path:code-execution'],
    ['asks for .vscode/tasks.json', '.vscode/tasks.json', 'write', 'ask', 'path:code-execution'],
    ['asks for .idea run configurations', '.idea/workspace.xml', 'write', 'ask', 'path:code-execution'],
    ['asks for .cursor/mcp.json', '.cursor/mcp.json', 'write', 'ask', 'path:code-execution'],
    ['asks for .claude/settings.json (hooks)', '.claude/settings.json', 'write', 'ask', 'path:code-execution'],
    ['asks for .mcp.json', '.mcp.json', 'write', 'ask', 'path:code-execution'],
    ['asks for .bashrc', '.bashrc', 'write', 'ask', 'path:code-execution'],
    ['asks for .ZSHRC in capitals', '.ZSHRC', 'write', 'ask', 'path:code-execution'],
    ['asks for .profile', '.profile', 'write', 'ask', 'path:code-execution'],
    ['asks for .zshenv', '.zshenv', 'write', 'ask', 'path:code-execution'],
    ['asks for fish config', '.config/fish/config.fish', 'write', 'ask', 'path:code-execution'],
    ['asks for .envrc (direnv)', '.envrc', 'write', 'ask', 'path:code-execution'],
    ['asks for husky hooks', '.husky/pre-commit', 'write', 'ask', 'path:code-execution'],
    ['asks for ssh authorized_keys', '.ssh/authorized_keys', 'write', 'ask', 'path:code-execution'],
    ['asks for a Python .pth file', 'venv/lib/site-packages/evil.pth', 'write', 'ask', 'path:code-execution'],
    ['asks for .npmrc', '.npmrc', 'write', 'ask', 'path:code-execution'],
    ['asks for Mercurial hgrc', '.hg/hgrc', 'write', 'ask', 'path:code-execution'],
    ['asks for a pre-commit config', '.pre-commit-config.yaml', 'write', 'ask', 'path:code-execution'],
    ['asks for a command in node_modules/.bin', 'node_modules/.bin/tsc', 'write', 'ask', 'path:code-execution'],
    ['asks for a VS Code workspace file', 'project.code-workspace', 'write', 'ask', 'path:code-execution'],
    ['asks to delete a git hook (code rule named)', '.git/hooks/pre-commit', 'delete', 'ask', 'path:code-execution'],
  ])('%s', async (_name, path, access, decision, rule) => {
    await expectVerdict(path, access, decision, rule);
  });
});

describe('PathGuard: reading secrets asks', () => {
  it.each<Row>([
    ['asks for .env', '.env', 'read', 'ask', 'path:secret-file'],
    ['asks for .ENV in capitals', '.ENV', 'read', 'ask', 'path:secret-file'],
    ['asks for .env.local', '.env.local', 'read', 'ask', 'path:secret-file'],
    ['asks for an SSH private key', 'id_rsa', 'read', 'ask', 'path:secret-file'],
    ['asks for a .pem file', 'server.pem', 'read', 'ask', 'path:secret-file'],
    ['asks for .npmrc (tokens)', '.npmrc', 'read', 'ask', 'path:secret-file'],
    ['asks for .aws/credentials', '.aws/credentials', 'read', 'ask', 'path:secret-file'],
    ['asks for .netrc', '.netrc', 'read', 'ask', 'path:secret-file'],
    ['asks for a private key in .ssh', '.ssh/id_ed25519', 'read', 'ask', 'path:secret-file'],
    ['asks for an innocently named symlink to .env', 'innocent.txt', 'read', 'ask', 'path:secret-file'],
    ['asks for a hard link (its other name may be outside)', 'hardlink.txt', 'read', 'ask', 'path:hard-link'],
    // An append writes the old contents into a new single-named file, which a read then took unasked.
    ['asks to write to a hard link too', 'hardlink.txt', 'write', 'ask', 'path:hard-link'],
  ])('%s', async (_name, path, access, decision, rule) => {
    await expectVerdict(path, access, decision, rule);
  });
});

describe('PathGuard: deletes', () => {
  it.each<Row>([
    ['asks to delete a file', 'notes.txt', 'delete', 'ask', 'path:delete'],
    ['asks to delete a folder', 'src', 'delete', 'ask', 'path:delete'],
    ['asks to delete a file that does not exist (the tool reports it)', 'missing.txt', 'delete', 'ask', 'path:delete'],
    ['refuses to delete the root', '.', 'delete', 'deny', 'path:delete-root'],
    ['refuses to delete the root by absolute path', '{root}', 'delete', 'deny', 'path:delete-root'],
    ['refuses to delete the second root', '{root2}/', 'delete', 'deny', 'path:delete-root'],
    ['refuses to delete the root through src/..', 'src/..', 'delete', 'deny', 'path:delete-root'],
  ])('%s', async (_name, path, access, decision, rule) => {
    await expectVerdict(path, access, decision, rule);
  });
});

describe('PathGuard: look-alike characters that a later normaliser turns into an escape', () => {
  it.each<Row>([
    ['blocks ．．／．．／etc/passwd (fullwidth dots and slashes)', '\uff0e\uff0e\uff0f\uff0e\uff0e\uff0fetc/passwd', 'read', 'deny', 'path:lookalike'],
    ['blocks ..／..／x (plain dots, fullwidth slashes)', '..\uff0f..\uff0fx', 'read', 'deny', 'path:lookalike'],
    ['blocks ．．/secret (fullwidth dots, plain slash)', '\uff0e\uff0e/secret', 'read', 'deny', 'path:lookalike'],
    ['blocks ..∕..∕etc∕passwd (U+2215 division slash, Windows best-fit)', '..\u2215..\u2215etc\u2215passwd', 'read', 'deny', 'path:lookalike'],
    ['blocks ..∖..∖etc (U+2216 set minus, Windows best-fit backslash)', '..\u2216..\u2216etc', 'read', 'deny', 'path:lookalike'],
    ['blocks ..＼..＼etc (fullwidth backslash)', '..\uff3c..\uff3cetc', 'read', 'deny', 'path:lookalike'],
    ['blocks ..¥..¥etc (yen sign, a backslash in the Japanese code page)', '..\u00a5..\u00a5etc', 'read', 'deny', 'path:lookalike'],
    ['blocks ‥/outside (U+2025 two dot leader)', '\u2025/outside/secret.txt', 'read', 'deny', 'path:lookalike'],
    ['blocks 。。/outside (ideographic full stops)', '\u3002\u3002/outside/secret.txt', 'read', 'deny', 'path:lookalike'],
    ['blocks fullwidth ～/x (home shorthand once normalised)', '\uff5e/x', 'read', 'deny', 'path:lookalike'],
    ['blocks a fullwidth drive path Ｃ：＼Windows', '\uff23\uff1a\uff3cWindows\uff3csystem.ini', 'read', 'deny', 'path:lookalike'],
    ['blocks a fullwidth UNC path ＼＼server＼share', '\uff3c\uff3cserver\uff3cshare\uff3cx', 'read', 'deny', 'path:lookalike'],
    ['blocks a look-alike into the data directory (．pincer/token)', '\uff0epincer/token', 'read', 'deny', 'path:lookalike'],
    ['blocks a look-alike into a nested data directory (var／pincer-data)', 'var\uff0fpincer-data\uff0fdb', 'read', 'deny', 'path:lookalike'],
    ['blocks listing the parent through ．．', '\uff0e\uff0e', 'list', 'deny', 'path:lookalike'],
    ['blocks writing through ．．／', '\uff0e\uff0e\uff0foutside\uff0fnew.txt', 'write', 'deny', 'path:lookalike'],
    ['blocks a look-alike .. after a folder that does not exist (judged lexically)', 'newdir\uff0f\uff0e\uff0e\uff0f\uff0e\uff0e\uff0fx', 'write', 'deny', 'path:lookalike'],
    ['blocks deleting src／．． (the root once normalised)', 'src\uff0f\uff0e\uff0e', 'delete', 'deny', 'path:lookalike'],
    ['blocks deleting ． (the root once normalised)', '\uff0e', 'delete', 'deny', 'path:lookalike'],
    ['blocks an absolute path inside the root that climbs out with ．．', '{root}/\uff0e\uff0e/outside/secret.txt', 'read', 'deny', 'path:lookalike'],
  ])('%s', async (_name, path, access, decision, rule) => {
    await expectVerdict(path, access, decision, rule);
  });

  it('blocks a look-alike folder that really exists inside the root when its name folds into ..', async () => {
    // On this disk "．．/outside/secret.txt" is a file inside the root; normalised it is ../outside/secret.txt.
    expect(existsSync(join(root, '\uff0e\uff0e', 'outside', 'secret.txt'))).toBe(true);
    await expectVerdict('\uff0e\uff0e/outside/secret.txt', 'read', 'deny', 'path:lookalike');
    await expectVerdict('\uff0e\uff0e/outside', 'list', 'deny', 'path:lookalike');
    await expectVerdict('\uff0e\uff0e/outside/secret.txt', 'delete', 'deny', 'path:lookalike');
  });

  it.each<Row>([
    ['allows a fullwidth slash that stays inside (src／index.ts)', 'src\uff0findex.ts', 'read', 'allow', 'path:inside-root'],
    ['allows ．／notes.txt (./notes.txt once normalised)', '\uff0e\uff0fnotes.txt', 'read', 'allow', 'path:inside-root'],
    ['allows src／．．／notes.txt (stays inside once normalised)', 'src\uff0f\uff0e\uff0e\uff0fnotes.txt', 'read', 'allow', 'path:inside-root'],
    ['allows a fullwidth name with a fullwidth dot (ａ．ｂ.txt)', '\uff41\uff0e\uff42.txt', 'write', 'allow', 'path:inside-root'],
    ['allows ．．hidden (..hidden is a name, not a parent)', '\uff0e\uff0ehidden', 'read', 'allow', 'path:inside-root'],
    ['allows a look-alike .. after a missing folder that stays inside lexically', 'newdir\uff0f\uff0e\uff0e\uff0ffile.txt', 'write', 'allow', 'path:inside-root'],
    ['allows fullwidth letters without path syntax (ｎｏｔｅｓ)', '\uff4e\uff4f\uff54\uff45\uff53', 'write', 'allow', 'path:inside-root'],
    ['keeps the normal ask of a look-alike delete that stays inside', 'src\uff0fold.txt', 'delete', 'ask', 'path:delete'],
  ])('%s', async (_name, path, access, decision, rule) => {
    await expectVerdict(path, access, decision, rule);
  });

  it('names the look-alike characters and what the path would become', async () => {
    const { decision } = await guard.check('\uff0e\uff0e\uff0f\uff0e\uff0e\uff0fetc/passwd', 'read');
    expect(decision.reason).toContain('U+FF0E');
    expect(decision.reason).toContain('U+FF0F');
    expect(decision.reason).toContain('"../../etc/passwd"');
    expect(decision.reason).toMatch(/outside the allowed folders/);
    expect(decision.reason).toContain(root);
  });

  it('says a look-alike into the data directory reaches it', async () => {
    const { decision } = await guard.check('\uff0epincer/token', 'read');
    expect(decision.reason).toMatch(/data folder/);
    expect(decision.reason).toContain('".pincer/token"');
  });
});

describe('PathGuard: refusals say what to do', () => {
  it('outside-roots lists the roots and names config.json and PINCER_ROOTS', async () => {
    const { decision } = await guard.check('/etc/passwd', 'read');
    expect(decision.reason).toContain(root);
    expect(decision.reason).toContain(root2);
    expect(decision.reason).toContain('config.json');
    expect(decision.reason).toContain('PINCER_ROOTS');
  });

  it('a symlink escape says where the path really leads', async () => {
    const { decision } = await guard.check('link-dir-out/secret.txt', 'read');
    expect(decision.reason).toContain(`resolves to ${join(out, 'secret.txt')}`);
  });

  it('home shorthand tells the model to use an absolute or root-relative path', async () => {
    const { decision } = await guard.check('~/notes.txt', 'read');
    expect(decision.reason).toMatch(/absolute path/);
    expect(decision.reason).toContain(root);
  });

  it('a symlink write says to write to the real path instead', async () => {
    const { decision } = await guard.check('link-in.txt', 'write');
    expect(decision.reason).toMatch(/real file path/);
  });

  it('no reason echoes a control character from the path', async () => {
    const { decision } = await guard.check('a\u001b[31mred', 'write');
    expect(decision.reason).not.toMatch(/\u001b/);
  });
});

describe('PathGuard.create', () => {
  it('throws naming a root that does not exist', () => {
    const missing = join(base, 'no-such-root');
    expect(() => PathGuard.create({ roots: [missing], protectedDirs: [] })).toThrow(missing);
  });

  it('throws for a root that is a file', () => {
    expect(() => PathGuard.create({ roots: [join(root, 'notes.txt')], protectedDirs: [] })).toThrow(/not a folder/);
  });

  it('realpaths roots given through a symlink and drops duplicates', () => {
    const viaLink = join(base, 'root-link');
    symlinkSync(root, viaLink);
    const g = PathGuard.create({ roots: [viaLink, root], protectedDirs: [join(base, 'not-created-yet')] });
    expect(g.roots).toEqual([root]);
  });

  it('protects a data dir that does not exist yet', async () => {
    const g = PathGuard.create({ roots: [root], protectedDirs: [join(root, 'future-data')] });
    expect((await g.check('future-data/pincer.db', 'write')).decision.rule).toBe('path:pincer-data');
  });
});

describe('fileAnalyzers', () => {
  it.each([
    ['file_read', { path: 'notes.txt' }, 'allow', 'path:inside-root'],
    ['file_read', { path: '../outside/secret.txt' }, 'deny', 'path:outside-roots'],
    ['file_write', { path: 'notes.txt', content: 'x' }, 'allow', 'path:inside-root'],
    ['file_write', { path: 'link-in.txt', content: 'x' }, 'deny', 'path:symlink-write'],
    ['file_list', { path: '.' }, 'allow', 'path:inside-root'],
    ['file_list', { path: '/' }, 'deny', 'path:outside-roots'],
    ['file_delete', { path: 'notes.txt' }, 'ask', 'path:delete'],
    ['file_delete', { path: '.' }, 'deny', 'path:delete-root'],
    ['file_read', {}, 'deny', 'path:invalid'],
    ['file_read', { path: '\uff0e\uff0e\uff0fsecret' }, 'deny', 'path:lookalike'],
  ] as const)('%s %j → %s (%s)', async (tool, args, decision, rule) => {
    const analyzer = fileAnalyzers(guard)[tool]!;
    expect(await analyzer({ ...args })).toMatchObject({ decision, rule });
  });

  describe('file_list patterns', () => {
    const listing = async (pattern: unknown) => fileAnalyzers(guard).file_list!({ path: '.', pattern });

    it.each([
      ['blocks ../* (climbs out of the listed folder)', '../*'],
      ['blocks a/../../* (.. after a real segment)', 'a/../../*'],
      ['blocks src/**/../../* (.. after a globstar)', 'src/**/../../*'],
      ['blocks /etc/* (an absolute path)', '/etc/*'],
      ['blocks ~/* (home shorthand)', '~/*'],
      ['blocks C:\\* (a drive letter)', 'C:\\*'],
      ['blocks C:* (a drive-relative path)', 'C:*'],
      ['blocks \\\\server\\share\\* (a UNC prefix)', '\\\\server\\share\\*'],
      ['blocks //server/share/* (a UNC prefix with slashes)', '//server/share/*'],
      ['blocks \\Windows\\* (absolute on Windows)', '\\Windows\\*'],
      ['blocks ..\\* (backslash as separator)', '..\\*'],
      ['blocks \\.\\./* (escaped dots are still ..)', '\\.\\./*'],
      ['blocks {..,src}/* (.. in a brace alternative)', '{..,src}/*'],
      ['blocks {/etc,src}/* (absolute in a brace alternative)', '{/etc,src}/*'],
      ['blocks ．．/* (fullwidth dots)', '\uff0e\uff0e/*'],
      ['blocks ..／* (fullwidth slash)', '..\uff0f*'],
      ['blocks ～/* (fullwidth tilde)', '\uff5e/*'],
      ['blocks ..∕* (U+2215 division slash)', '..\u2215*'],
    ])('%s', async (_name, pattern) => {
      const decision = await listing(pattern);
      expect(decision).toMatchObject({ decision: 'deny', rule: 'path:pattern-escape' });
      expect(decision.reason).toMatch(/relative to that folder/);
      expect(decision.reason).toContain('"*.md"');
    });

    it.each([['*.md'], ['src/**/*.ts'], ['{a,b}.txt'], ['**/*'], ['a..b.txt'], ['..hidden-ish'], ['\\[draft\\]*.md'], ['\\*.txt'], ['.*'], ['\uff41*.md']])(
      'allows the harmless pattern %s',
      async (pattern) => {
        expect(await listing(pattern)).toMatchObject({ decision: 'allow', rule: 'path:inside-root' });
      },
    );

    it('says which look-alike characters a folded pattern uses and what it becomes', async () => {
      const { reason } = await listing('\uff0e\uff0e/*');
      expect(reason).toContain('U+FF0E');
      expect(reason).toContain('"../*"');
    });

    it('names the brace alternative that escapes', async () => {
      expect((await listing('{src,..}/*')).reason).toContain('"../*"');
    });

    it('lets a path refusal speak first when both are wrong', async () => {
      expect(await fileAnalyzers(guard).file_list!({ path: '/', pattern: '../*' })).toMatchObject({ rule: 'path:outside-roots' });
    });

    it('judges only path arguments: file_read has no pattern to check', async () => {
      expect(await fileAnalyzers(guard).file_read!({ path: 'notes.txt', pattern: '../*' })).toMatchObject({ decision: 'allow' });
    });
  });

  it('decide the built-in file tools in the policy engine', async () => {
    const registry = new ToolRegistry();
    const tools = [createFileReadTool(guard), createFileWriteTool(guard), createFileListTool(guard), createFileDeleteTool(guard)];
    for (const tool of tools) registry.register(tool);
    const engine = new PolicyEngine(fileAnalyzers(guard));
    const decide = (name: string, args: Record<string, unknown>) =>
      engine.decide({ tool: registry.get(name)!, arguments: args, client: 'test' });
    expect(await decide('file_read', { path: 'link-out.txt' })).toMatchObject({ decision: 'deny', rule: 'path:outside-roots' });
    expect(await decide('file_write', { path: '.git/hooks/pre-commit', content: '' })).toMatchObject({ decision: 'ask' });
    expect(await decide('file_list', { path: 'src' })).toMatchObject({ decision: 'allow' });
  });
});

describe('a look-alike path that stays inside a root gets the stricter verdict of the two spellings', () => {
  it('writing ".git／hooks／pre-commit" asks as writing the git hook would', async () => {
    const verdict = await guard.check('.git／hooks／pre-commit', 'write');
    expect([verdict.decision.decision, verdict.decision.rule]).toEqual(['ask', 'path:code-execution']);
  });
});

import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findCommand, loginShellPath, quoteForCmd } from '../../../../server/mcp/client/command-lookup.js';
import { tempDir } from '../../../helpers/gateway.js';

/**
 * How an imported stdio server's program is found: on macOS from the login shell's PATH (asked once, its banner
 * ignored), elsewhere from the PATH it has and the login shell's only when missing there, on Windows through PATHEXT
 * with `.cmd` shims run by cmd.exe with their arguments escaped; a missing program names the PATH searched.
 */

const work = tempDir('pincer-lookup-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

function program(dir: string, name: string, body = '#!/bin/sh\nexit 0\n'): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, body);
  chmodSync(file, 0o755);
  return file;
}

/** A login shell that prints a banner, counts how often it is asked, and runs the command with `path` as its PATH. */
function fakeLoginShell(name: string, path: string, extra = ''): { shell: string; asked: () => number } {
  const count = join(work, `${name}.count`);
  writeFileSync(count, '');
  const shell = program(join(work, 'shells'), name, `#!/bin/sh\necho >> '${count}'\necho 'Welcome to your shell!'\n${extra}PATH='${path}'\nexport PATH\n[ "$1" = "-ilc" ] || exit 9\nexec /bin/sh -c "$2"\n`);
  return { shell, asked: () => readFileSync(count, 'utf8').length };
}

const bare = '/usr/bin:/bin:/usr/sbin:/sbin';

describe('finding a server\'s program on macOS', () => {
  it('finds npx on the login shell\'s PATH that a desktop app does not get, and hands that PATH on', async () => {
    const brew = join(work, 'mac-brew', 'bin');
    const npx = program(brew, 'npx');
    const login = fakeLoginShell('zsh-mac', `${brew}:/usr/bin:/bin`);
    const found = await findCommand('npx', ['-y', 'pkg'], { platform: 'darwin', env: { PATH: bare }, loginShellPath: loginShellPath({ env: { HOME: work }, shell: login.shell }) });
    expect(found).toEqual({ command: npx, args: ['-y', 'pkg'], path: `${brew}:/usr/bin:/bin:/usr/sbin:/sbin`, verbatim: false });
  });

  it('asks the login shell once, whatever number of servers look', async () => {
    const dir = join(work, 'mac-once', 'bin');
    program(dir, 'uvx');
    const login = fakeLoginShell('zsh-once', dir);
    const ask = loginShellPath({ env: { HOME: work }, shell: login.shell });
    for (let i = 0; i < 3; i++) expect(await findCommand('uvx', [], { platform: 'darwin', env: { PATH: bare }, loginShellPath: ask })).toMatchObject({ command: join(dir, 'uvx') });
    expect(login.asked()).toBe(1);
  });

  it('a login shell that never answers is given up on: the program is looked for on the PATH there is', async () => {
    const login = fakeLoginShell('zsh-hangs', bare, 'exec sleep 60\n');
    const ask = loginShellPath({ env: { HOME: work }, shell: login.shell, timeoutMs: 300 });
    const found = await findCommand('uvx', [], { platform: 'darwin', env: { PATH: join(work, 'nowhere') }, loginShellPath: ask });
    expect(found).toEqual({ problem: expect.stringContaining('the command "uvx" was not found on the PATH'), path: join(work, 'nowhere') });
  });

  it('a login shell that fails gives no PATH', async () => {
    expect(await loginShellPath({ env: {}, shell: join(work, 'no-such-shell') })()).toBeUndefined();
  });
});

describe('finding a server\'s program on Linux', () => {
  it('uses the PATH it has and asks no login shell when the program is on it', async () => {
    const dir = join(work, 'linux', 'bin');
    const node = program(dir, 'node');
    const login = fakeLoginShell('bash-linux', bare);
    const found = await findCommand('node', ['server.js'], { platform: 'linux', env: { PATH: `${join(work, 'empty')}:${dir}` }, loginShellPath: loginShellPath({ env: {}, shell: login.shell }) });
    expect(found).toMatchObject({ command: node, args: ['server.js'], verbatim: false });
    expect(login.asked()).toBe(0);
  });

  it('asks the login shell when the program is missing, and says which PATH was searched when it is not there either', async () => {
    const login = fakeLoginShell('bash-missing', `${join(work, 'login-only')}:/bin`);
    const found = await findCommand('uvx', ['mcp-server-fetch'], { platform: 'linux', env: { PATH: join(work, 'own') }, loginShellPath: loginShellPath({ env: {}, shell: login.shell }) });
    expect(found).toEqual({
      problem: `the command "uvx" was not found on the PATH (searched: ${join(work, 'login-only')}:/bin:${join(work, 'own')}); install it, or give its full path as "command"`,
      path: `${join(work, 'login-only')}:/bin:${join(work, 'own')}`,
    });
    expect(login.asked()).toBe(1);
  });

  it('a file without the execute bit, a folder of the name and a relative PATH entry are not the program', async () => {
    const dir = join(work, 'not-programs');
    mkdirSync(join(dir, 'python'), { recursive: true });
    writeFileSync(join(dir, 'npx'), '#!/bin/sh\n');
    chmodSync(join(dir, 'npx'), 0o644);
    for (const name of ['python', 'npx']) {
      expect(await findCommand(name, [], { platform: 'linux', env: { PATH: `${dir}:relative/bin` } })).toMatchObject({ problem: expect.stringContaining(`"${name}" was not found`) });
    }
  });

  it('a path is used as it is, never searched for, and a missing one says so', async () => {
    const file = program(join(work, 'explicit'), 'server');
    expect(await findCommand(file, ['a'], { platform: 'linux', env: { PATH: '' } })).toEqual({ command: file, args: ['a'], path: '', verbatim: false });
    // Relative to where the server runs, not to where the gateway was started.
    expect(await findCommand('./server', [], { platform: 'linux', env: { PATH: '' }, cwd: join(work, 'explicit') })).toMatchObject({ command: file });
    expect(await findCommand(join(work, 'explicit', 'gone'), [], { platform: 'linux', env: { PATH: '/bin' } })).toMatchObject({
      problem: expect.stringMatching(/^the command ".*gone" does not exist or cannot be run/),
    });
  });
});

describe('finding a server\'s program on Windows', () => {
  const files = new Set([
    'C:\\Users\\me\\AppData\\Roaming\\npm\\npx.cmd',
    'C:\\Users\\me\\AppData\\Roaming\\npm\\npx',
    'C:\\Program Files\\nodejs\\node.exe',
    'C:\\Users\\me\\.local\\bin\\uvx.exe',
  ]);
  const env = {
    Path: 'C:\\Users\\me\\AppData\\Roaming\\npm;"C:\\Program Files\\nodejs";C:\\Users\\me\\.local\\bin',
    PATHEXT: '.COM;.EXE;.BAT;.CMD',
    ComSpec: 'C:\\Windows\\system32\\cmd.exe',
  };
  const lookup = { platform: 'win32' as const, env, isProgram: (file: string) => files.has(file), loginShellPath: () => Promise.reject(new Error('Windows has no login shell to ask')) };

  it('finds npx as npx.cmd through PATHEXT (not the extensionless shell script beside it) and runs it through cmd.exe', async () => {
    const found = await findCommand('npx', ['-y', '@modelcontextprotocol/server-memory@2026.8.31'], lookup);
    expect(found).toEqual({
      command: 'C:\\Windows\\system32\\cmd.exe',
      args: ['/d', '/s', '/c', '"C:\\Users\\me\\AppData\\Roaming\\npm\\npx.cmd ^^^"-y^^^" ^^^"@modelcontextprotocol/server-memory@2026.8.31^^^""'],
      path: env.Path,
      verbatim: true,
    });
  });

  it('without ComSpec (the server\'s environment does not pass it on), cmd.exe is the one in SystemRoot', async () => {
    const { ComSpec: _comSpec, ...rest } = env;
    const found = await findCommand('npx', [], { ...lookup, env: { ...rest, SYSTEMROOT: 'C:\\Windows' } });
    expect(found).toMatchObject({ command: 'C:\\Windows\\System32\\cmd.exe', verbatim: true });
  });

  it('starts an .exe directly, from a quoted PATH entry', async () => {
    expect(await findCommand('node', ['index.js'], lookup)).toEqual({ command: 'C:\\Program Files\\nodejs\\node.exe', args: ['index.js'], path: env.Path, verbatim: false });
    expect(await findCommand('uvx.exe', [], lookup)).toMatchObject({ command: 'C:\\Users\\me\\.local\\bin\\uvx.exe' });
  });

  it('a missing program names the PATH searched', async () => {
    expect(await findCommand('python', [], lookup)).toEqual({ problem: expect.stringContaining(`"python" was not found on the PATH (searched: ${env.Path})`), path: env.Path });
  });
});

describe('arguments for cmd.exe', () => {
  it('an argument that tries to end the quoting and run another command stays one escaped argument', () => {
    const quoted = quoteForCmd('x" & calc.exe & "', true);
    expect(quoted).not.toMatch(/(^|[^^])&/);
    expect(quoted).toBe('^^^"x\\^^^"^^^ ^^^&^^^ calc.exe^^^ ^^^&^^^ \\^^^"^^^"');
  });

  it('percent signs and pipes are escaped too, and trailing backslashes doubled before the closing quote', () => {
    expect(quoteForCmd('%PATH%|more', true)).toBe('^^^"^^^%PATH^^^%^^^|more^^^"');
    expect(quoteForCmd('C:\\dir\\', true)).toBe('^^^"C:\\dir\\\\^^^"');
    // The program's own path is read once, by cmd.exe only.
    expect(quoteForCmd('C:\\Program Files (x86)\\npx.cmd', false)).toBe('C:\\Program^ Files^ ^(x86^)\\npx.cmd');
  });
});

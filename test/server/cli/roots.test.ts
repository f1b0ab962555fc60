import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../../server/version.js';
import { BIN, freePort, runPincer, serve, type CliResult, type Served } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';

/**
 * The folders Pincer shares, as a person meets them on the command line: `pincer serve` (and `pincer mcp`) always
 * name them at start, a working folder that is Pincer's own or `/` or the home folder is not shared, a configured
 * root that is Pincer's own stops start-up, and `pincer roots` lists, adds and removes folders, beside a running
 * gateway or without one.
 */

describe('pincer serve names the folders it shares', () => {
  let dataDir: string;
  let workspace: string;
  let served: Served | undefined;

  beforeEach(() => {
    dataDir = tempDir();
    workspace = realpathSync(tempDir('pincer-roots-ws-'));
  });
  afterEach(async () => {
    if (served && served.child.exitCode === null) {
      served.child.kill('SIGKILL');
      await served.exited;
    }
    served = undefined;
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  it('started in a project folder, it names that folder', async () => {
    served = await serve(dataDir, await freePort(), workspace);
    expect(served.output()).toContain(`Folders file tools may touch: ${workspace}\n`);
  });

  it("started in its own package folder, it shares none, says why, and a client's file_write into plugins/ is refused", async () => {
    served = await serve(dataDir, await freePort(), PACKAGE_ROOT);
    expect(served.output()).toContain(
      `No folder is shared yet (the working folder ${PACKAGE_ROOT} is Pincer's own package folder (its code), so it is not shared by default)`,
    );
    const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
    const before = readFileSync(join(PACKAGE_ROOT, 'plugins', 'investment', 'index.js'));
    const res = await fetch(`${served.url}/tools/file_write/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'plugins/investment/index.js', content: 'import "node:child_process";' }),
    });
    expect(res.status).toBe(403);
    expect(readFileSync(join(PACKAGE_ROOT, 'plugins', 'investment', 'index.js')).equals(before)).toBe(true);
  });

  it('started in the home folder itself (HOME set to a temp folder), it shares none', async () => {
    served = await serve(dataDir, await freePort(), workspace, { HOME: workspace });
    expect(served.output()).toContain(`No folder is shared yet (the working folder ${workspace} is the home folder itself`);
  });

  it("a configured root that is Pincer's own stops start-up with one line naming the key, its source and the folder", async () => {
    for (const root of [join(PACKAGE_ROOT, 'plugins', 'investment'), PACKAGE_ROOT, dataDir]) {
      const result = await runPincer(['serve', '--data-dir', dataDir, '--port', String(await freePort())], { PINCER_ROOTS: root, PINCER_TOKEN: '' });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain(`pincer: Invalid configuration: roots (from PINCER_ROOTS) may not hold "${root}"`);
    }
  }, 60_000);
});

describe('pincer mcp names the folders on standard error', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = tempDir();
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it("started in '/' (as Claude Desktop starts it), the gateway it starts shares none and says so", async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--data-dir', dataDir, '--port', String(await freePort())], {
      cwd: '/',
      env: { ...process.env, PINCER_TOKEN: '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await until(() => /login link/.test(stderr), `pincer mcp to start:\n${stderr}`, 30_000);
      expect(stderr).toContain('No folder is shared yet (the working folder / is the top of the file system ("/"), so it is not shared by default)');
    } finally {
      child.stdin.end();
      await exited;
    }
  });
});

describe('pincer mcp beside a running gateway', () => {
  let dataDir: string;
  let workspace: string;
  let served: Served | undefined;
  beforeEach(() => {
    dataDir = tempDir();
    workspace = realpathSync(tempDir('pincer-roots-mcp-'));
  });
  afterEach(async () => {
    if (served && served.child.exitCode === null) {
      served.child.kill('SIGKILL');
      await served.exited;
    }
    for (const dir of [dataDir, workspace]) rmSync(dir, { recursive: true, force: true });
  });

  it("names the running gateway's folders when it forwards to it", async () => {
    const port = await freePort();
    served = await serve(dataDir, port, workspace);
    const child = spawn(process.execPath, [BIN, 'mcp', '--data-dir', dataDir, '--port', String(port)], {
      cwd: '/',
      env: { ...process.env, PINCER_TOKEN: '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await until(() => /forwarding/.test(stderr), `pincer mcp to forward:\n${stderr}`, 30_000);
      expect(stderr).toContain(`pincer mcp: forwarding to the gateway at http://127.0.0.1:${port}. Folders file tools may touch: ${workspace}`);
    } finally {
      child.stdin.end();
      await exited;
    }
  });
});

describe('pincer roots', () => {
  let dataDir: string;
  let project: string;
  let other: string;
  let port: number;
  let served: Served | undefined;
  const pincer = (...args: string[]): Promise<CliResult> => runPincer([...args, '--data-dir', dataDir, '--port', String(port)], { PINCER_TOKEN: '' });
  const saved = () => JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8')).roots as unknown;

  beforeEach(async () => {
    dataDir = tempDir();
    project = realpathSync(tempDir('pincer-roots-project-'));
    other = realpathSync(tempDir('pincer-roots-other-'));
    port = await freePort();
  });
  afterEach(async () => {
    if (served && served.child.exitCode === null) {
      served.child.kill('SIGKILL');
      await served.exited;
    }
    served = undefined;
    for (const dir of [dataDir, project, other]) rmSync(dir, { recursive: true, force: true });
  });

  it('with no gateway running: lists none (not the folder the command runs in), adds, refuses Pincer\'s own, removes', async () => {
    const listed = await pincer('roots');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^No folder is shared yet: /);

    const added = await pincer('roots', 'add', project);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(`Shared ${project}. Folders file tools may touch: ${project}`);
    expect(saved()).toEqual([project]);

    const again = await pincer('roots', 'add', project);
    expect(again.stdout).toContain(`${project} is already shared`);

    const refused = await pincer('roots', 'add', join(PACKAGE_ROOT, 'plugins'));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`may not hold "${join(PACKAGE_ROOT, 'plugins')}" (it is Pincer's bundled plugins folder`);
    expect(saved()).toEqual([project]);

    expect(JSON.parse((await pincer('roots', '--json')).stdout)).toEqual({ roots: [project] });

    const removed = await pincer('roots', 'remove', project);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toMatch(new RegExp(`^Stopped sharing ${project}\\. No folder is shared yet`));
    expect(saved()).toEqual([]);

    const missing = await pincer('roots', 'remove', other);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`${other} is not shared`);

    expect((await pincer('roots', 'share', project)).code).toBe(2);
  }, 120_000);

  it('beside a running gateway that shares none, adding a folder puts it to use at once', async () => {
    served = await serve(dataDir, port, PACKAGE_ROOT);
    const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
    const write = () =>
      fetch(`${served!.url}/tools/file_write/execute`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ path: 'notes.txt', content: 'shared' }),
      });
    expect((await write()).status).toBe(403);

    const added = await pincer('roots', 'add', project);
    expect(added.code, added.stderr).toBe(0);
    expect(await (await write()).json()).toMatchObject({ success: true });
    expect(readFileSync(join(project, 'notes.txt'), 'utf8')).toBe('shared');

    mkdirSync(join(other, 'sub'));
    expect((await pincer('roots', 'add', join(other, 'sub'))).code).toBe(0);
    expect((await pincer('roots')).stdout).toContain(`Folders file tools may touch: ${project}, ${join(other, 'sub')}`);
    expect((await pincer('roots', 'remove', project)).code).toBe(0);
    expect(saved()).toEqual([join(other, 'sub')]);
    expect(existsSync(join(other, 'sub', 'notes.txt'))).toBe(false);
  }, 120_000);
});

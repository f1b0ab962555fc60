import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/gateway.js';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const NODE_BUILD = join(dirname(createRequire(join(ROOT, 'package.json')).resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');

/**
 * The installed app's `pincer` command (scripts/packaging/pincer) in the layout the deb installs: /opt/Pincer/pincer
 * (the app executable), /opt/Pincer/resources/{pincer, app.asar, native/} and /usr/bin/pincer linked through
 * update-alternatives. The app executable is a stand-in that records what it was given and runs Node, as Electron
 * does with ELECTRON_RUN_AS_NODE=1; app.asar is a link to this checkout (the real one is an archive only Electron reads).
 */
describe.skipIf(process.platform === 'win32' || process.platform === 'darwin')('the packaged pincer command', () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function installed(): { root: string; bin: string; seen: string; resources: string } {
    const root = tempDir('pincer-installed-');
    made.push(root);
    const resources = join(root, 'opt/Pincer/resources');
    mkdirSync(join(resources, 'native'), { recursive: true });
    copyFileSync(join(ROOT, 'scripts/packaging/pincer'), join(resources, 'pincer'));
    chmodSync(join(resources, 'pincer'), 0o755);
    symlinkSync(ROOT, join(resources, 'app.asar'));
    // node_modules' Node build stands in for the Electron build: the stand-in runtime is Node.
    copyFileSync(NODE_BUILD, join(resources, 'native/better_sqlite3.node'));
    const seen = join(root, 'seen');
    const app = join(root, 'opt/Pincer/pincer');
    writeFileSync(
      app,
      `#!/bin/sh\nprintf 'ELECTRON_RUN_AS_NODE=%s\\nPINCER_SQLITE_BINDING=%s\\nscript=%s\\n' "$ELECTRON_RUN_AS_NODE" "$PINCER_SQLITE_BINDING" "$1" > '${seen}'\n[ "$ELECTRON_RUN_AS_NODE" = 1 ] || exit 99\nexec '${process.execPath}' "$@"\n`,
    );
    chmodSync(app, 0o755);
    mkdirSync(join(root, 'etc/alternatives'), { recursive: true });
    mkdirSync(join(root, 'usr/bin'), { recursive: true });
    symlinkSync(join(resources, 'pincer'), join(root, 'etc/alternatives/pincer'));
    symlinkSync(join(root, 'etc/alternatives/pincer'), join(root, 'usr/bin/pincer'));
    return { root, bin: join(root, 'usr/bin/pincer'), seen, resources };
  }

  it('follows the /usr/bin link chain and runs the CLI on the app executable as Node', async () => {
    const { bin, seen, resources } = installed();
    const { stdout } = await run(bin, ['--version'], { timeout: 20_000 });
    expect(stdout.trim()).toBe(VERSION);
    expect(readFileSync(seen, 'utf8').split('\n')).toEqual([
      'ELECTRON_RUN_AS_NODE=1',
      `PINCER_SQLITE_BINDING=${join(resources, 'native/better_sqlite3.node')}`,
      `script=${join(resources, 'app.asar/bin/pincer.js')}`,
      '',
    ]);
  });

  it('opens the data directory with the addon it ships, and passes arguments and exit codes through', async () => {
    const { bin, root } = installed();
    const dataDir = join(root, 'data');
    const { stdout, stderr } = await run(bin, ['token', 'create', 'claude-desktop', '--data-dir', dataDir], { timeout: 20_000 });
    expect(stdout.trim()).toMatch(/^pk_/);
    expect(stderr).toMatch(/Client "claude-desktop" created/);
    // An argument with a space arrives as one argument; the CLI's exit code comes back.
    await expect(run(bin, ['token', 'create', 'two words', '--data-dir', dataDir], { timeout: 20_000 })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('got "two words"'),
    });
  });

  it('says so when the app executable is not where the resources folder says', async () => {
    const { bin, root } = installed();
    rmSync(join(root, 'opt/Pincer/pincer'));
    await expect(run(bin, ['--version'], { timeout: 20_000 })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^pincer: the Pincer app executable was not found at /),
    });
  });
});

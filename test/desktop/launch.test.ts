import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appEnvironment, launchElectron, type Started } from '../../scripts/desktop/launch.mjs';
import { tempDir } from '../helpers/gateway.js';
import { until } from '../helpers/wait.js';

/** Stand-ins for the Electron executable (shell scripts): what a failed start and a running app look like from outside. */
describe.skipIf(process.platform === 'win32')('launchElectron', () => {
  const made: string[] = [];
  const running: Started[] = [];
  const fake = (body: string) => {
    const dir = tempDir('pincer-electron-');
    made.push(dir);
    const file = join(dir, 'electron');
    writeFileSync(file, `#!/bin/sh\n${body}\n`);
    chmodSync(file, 0o755);
    return { file, dir };
  };
  afterEach(async () => {
    for (const launch of running.splice(0)) {
      launch.child.kill('SIGKILL');
      await launch.exited;
    }
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('reports an Electron that exits with a failure as it starts, with its last error line', async () => {
    const { file } = fake(`echo "[1234:ERROR] starting" >&2\necho "error while loading shared libraries: libgtk-3.so.0" >&2\nexit 127`);
    const launch = await launchElectron({ electron: file, appDir: '/app', settleMs: 60_000 });
    expect(launch).toEqual({ started: false, reason: 'Electron exited with code 127 as it started: error while loading shared libraries: libgtk-3.so.0' });
  });

  it('reports one killed by a signal as it starts', async () => {
    const { file } = fake('kill -KILL $$');
    const launch = await launchElectron({ electron: file, appDir: '/app', settleMs: 60_000 });
    expect(launch).toEqual({ started: false, reason: 'Electron was killed by SIGKILL as it started' });
  });

  it('reports an executable that cannot be run', async () => {
    const { dir } = fake('exit 0');
    const launch = await launchElectron({ electron: join(dir, 'missing'), appDir: '/app', settleMs: 60_000 });
    expect(launch).toMatchObject({ started: false, reason: expect.stringMatching(/^Electron could not be run \(.*ENOENT/) });
  });

  it('takes a clean quit as the app\'s own answer (a second instance hands over to the first), not a failed start', async () => {
    const { file } = fake('exit 0');
    const launch = await launchElectron({ electron: file, appDir: '/app', settleMs: 60_000 });
    expect(launch.started).toBe(true);
    expect(await (launch as Started).exited).toEqual({ code: 0, signal: null });
  });

  it('counts an app still running after the settle time as started; it runs the app folder with the arguments', async () => {
    const { file, dir } = fake(`printf '%s\\n' "$@" > "$(dirname "$0")/argv"\nexec sleep 60`);
    const launch = await launchElectron({ electron: file, appDir: '/the/app', args: ['--port', '0'], settleMs: 200 });
    expect(launch.started).toBe(true);
    running.push(launch as Started);
    const argv = await until(() => existsSync(join(dir, 'argv')) && readFileSync(join(dir, 'argv'), 'utf8').trim(), 'the arguments');
    expect(argv.split('\n')).toEqual(['/the/app', '--port', '0']);
  });

  it('passes the gateway\'s V8 flags to the main process as one --js-flags switch before the app folder', async () => {
    const { file, dir } = fake(`printf '%s\\n' "$@" > "$(dirname "$0")/argv"\nexec sleep 60`);
    const launch = await launchElectron({ electron: file, appDir: '/the/app', args: ['--port', '0'], jsFlags: ['--a=1', '--b'], settleMs: 200 });
    running.push(launch as Started);
    const argv = await until(() => existsSync(join(dir, 'argv')) && readFileSync(join(dir, 'argv'), 'utf8').trim(), 'the arguments');
    expect(argv.split('\n')).toEqual(['--js-flags=--a=1 --b', '/the/app', '--port', '0']);
  });

  it('never passes ELECTRON_RUN_AS_NODE on: with it, Electron would run the main script as plain Node', async () => {
    expect(appEnvironment({ ELECTRON_RUN_AS_NODE: '1', PATH: '/bin' })).toEqual({ PATH: '/bin' });
    const { file, dir } = fake(`echo "as-node=\${ELECTRON_RUN_AS_NODE:-unset}" > "$(dirname "$0")/env"\nexit 0`);
    const launch = await launchElectron({ electron: file, appDir: '/app', env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, settleMs: 60_000 });
    await (launch as Started).exited;
    expect(readFileSync(join(dir, 'env'), 'utf8').trim()).toBe('as-node=unset');
  });
});

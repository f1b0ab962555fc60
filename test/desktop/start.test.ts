import { execFile } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort, leftovers, START, startHeadless, type Served } from '../helpers/cli.js';
import { PACKAGE_ROOT } from '../../server/version.js';

/**
 * `npm start` where the desktop app cannot run: one line saying why, then the same gateway, headless (docs/desktop.md).
 */
describe('npm start falls back to the headless gateway', () => {
  const { dir, keep } = leftovers('pincer-start-');
  let served: Served | undefined;

  it('without the Electron binary: exactly one line saying so, then the address and the login link, and it answers /health', async () => {
    const port = await freePort();
    // An empty folder as Electron's dist: what a machine that could not download the binary has.
    // Without a display too: with one, `npm start` would first try to fetch the binary (start-fetch.test.ts).
    served = keep(await startHeadless(['--port', String(port)], { PINCER_HOME: dir(), ELECTRON_OVERRIDE_DIST_PATH: dir(), DISPLAY: undefined, WAYLAND_DISPLAY: undefined }));

    const lines = served.output().split('\n');
    expect(lines[0]).toMatch(/^Pincer: the desktop app cannot start here: Electron's binary is not downloaded yet \(run "npx install-electron" to fetch it\)\. Running the headless gateway instead\.$/);
    expect(lines[1]).toMatch(new RegExp(`^Pincer \\S+ listening on http://127\\.0\\.0\\.1:${port}$`));
    expect(lines.filter((line) => /desktop app/.test(line))).toHaveLength(1);
    expect(served.output()).toMatch(/Dashboard login link \(one-time, 15 minutes\): http:\/\/127\.0\.0\.1:\d+\/auth\?code=\S+/);

    const health = await fetch(`${served.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });

    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
  });

  it('started from its own checkout (npm start there), it shares no folder, says so, and lets no client write its code', async () => {
    const home = dir();
    served = keep(await startHeadless(['--port', String(await freePort())], { PINCER_HOME: home, ELECTRON_OVERRIDE_DIST_PATH: dir() }, PACKAGE_ROOT));
    expect(served.output()).toContain(
      `No folder is shared yet (the working folder ${PACKAGE_ROOT} is Pincer's own package folder (its code), so it is not shared by default): ` +
        'file tools and run_shell refuse until you share one in the dashboard\'s Settings or with "pincer roots add DIR".',
    );
    const token = readFileSync(join(home, 'token'), 'utf8').trim();
    const before = readFileSync(join(PACKAGE_ROOT, 'plugins', 'investment', 'index.js'));
    const write = await fetch(`${served.url}/tools/file_write/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'plugins/investment/index.js', content: 'import "node:child_process";' }),
    });
    expect(write.status).toBe(403);
    expect(((await write.json()) as { error: { details: { rule: string } } }).error.details.rule).toBe('path:no-roots');
    expect(readFileSync(join(PACKAGE_ROOT, 'plugins', 'investment', 'index.js')).equals(before)).toBe(true);

    const health = await fetch(`${served.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });

    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
  });

  it.skipIf(process.platform === 'darwin' || process.platform === 'win32')(
    'without a display: says so, never runs Electron, and serves headless',
    async () => {
      // A stand-in Electron binary that leaves a mark if anything runs it.
      const dist = dir();
      const mark = join(dist, 'ran');
      writeFileSync(join(dist, 'electron'), `#!/bin/sh\ntouch '${mark}'\nsleep 30\n`);
      chmodSync(join(dist, 'electron'), 0o755);
      served = keep(await startHeadless(['--port', String(await freePort())], {
        PINCER_HOME: dir(),
        ELECTRON_OVERRIDE_DIST_PATH: dist,
        DISPLAY: undefined,
        WAYLAND_DISPLAY: undefined,
      }));

      const [first] = served.output().split('\n');
      expect(first).toBe('Pincer: the desktop app cannot start here: there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set). Running the headless gateway instead.');
      expect((await fetch(`${served.url}/health`)).status).toBe(200);
      expect(existsSync(mark)).toBe(false);
    },
  );

  it('passes its arguments to the gateway: a bad one stops it with the gateway\'s own message', async () => {
    const child = await startHeadlessExpectingExit(['--port', 'seventy'], { PINCER_HOME: dir(), ELECTRON_OVERRIDE_DIST_PATH: dir() });
    expect(child.code).toBe(2);
    expect(child.stdout.split('\n').filter(Boolean)).toHaveLength(1);
    expect(child.stderr).toMatch(/^pincer: .*port/m);
  });
});

/** `node bin/start.js ARGS` run to its end. */
function startHeadlessExpectingExit(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [START, ...args], { env: { ...process.env, PINCER_TOKEN: '', ...env }, timeout: 20_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

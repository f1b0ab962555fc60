import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, serve, START, type Served } from '../helpers/cli.js';
import { tempDir } from '../helpers/gateway.js';

/** `npm start` ARGS run to its end, as npm runs it (npm_lifecycle_event=start: the build step is on). */
function npmStart(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [START, ...args], { env: { ...process.env, PINCER_TOKEN: '', npm_lifecycle_event: 'start', ...env }, timeout: 20_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

/** What stops a start is told before anything is built: the checks need the configuration and the lock, no build. */
describe('npm start checks the port and the data folder before building', () => {
  const dirs: string[] = [];
  let blocker: Server | undefined;
  let served: Served | undefined;
  const dir = () => {
    const made = tempDir('pincer-start-');
    dirs.push(made);
    return made;
  };
  afterEach(async () => {
    if (blocker) await new Promise((r) => blocker!.close(r));
    blocker = undefined;
    if (served && served.child.exitCode === null) {
      served.child.kill('SIGKILL');
      await served.exited;
    }
    served = undefined;
    for (const made of dirs.splice(0)) rmSync(made, { recursive: true, force: true });
  });

  it('a port another program holds: says so at once with the npm start -- --port advice, builds nothing, exit 1', async () => {
    const port = await freePort();
    blocker = createServer();
    await new Promise<void>((r) => blocker!.listen(port, '127.0.0.1', r));
    const result = await npmStart(['--port', String(port)], { PINCER_HOME: dir() });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `Pincer: port ${port} on 127.0.0.1 is in use by another program (or a gateway of another data folder); choose another with "npm start -- --port ${port + 1}".\n`,
    );
  });

  it('a data folder a gateway already serves: names it and how to reach it, exit 1', async () => {
    const home = dir();
    served = await serve(home, await freePort());
    const result = await npmStart(['--port', String(await freePort())], { PINCER_HOME: home });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`Pincer: the data folder ${home} is in use by the gateway pid ${served.child.pid} on ${served.url}.`);
    expect(result.stderr).toContain('"npx pincer login-url"');
  });
});

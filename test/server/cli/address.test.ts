import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, runPincer, serve, type Served } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/gateway.js';

/**
 * CLI commands reach the gateway that serves the data folder on whatever port it was started with (its address is in
 * the folder's lock while it listens), not the configured or default one; a lock left by a killed gateway names
 * nobody, and the configured address is used again.
 */

const dirs: string[] = [];
const running: Served[] = [];
afterEach(async () => {
  for (const served of running.splice(0)) {
    if (served.child.exitCode === null && served.child.signalCode === null) {
      served.child.kill('SIGKILL');
      await served.exited;
    }
  }
  for (const made of dirs.splice(0)) rmSync(made, { recursive: true, force: true });
});

describe('the CLI finds the running gateway by its data folder', { timeout: 120_000 }, () => {
  it('login-url and mcp-servers reach a gateway started with --port, whatever port they are given; after kill -9 the configured one', async () => {
    const dataDir = tempDir();
    const root = tempDir('pincer-root-');
    dirs.push(dataDir, root);
    const port = await freePort();
    const served = await serve(dataDir, port, root, { PINCER_ROOTS: root });
    running.push(served);
    expect(served.url).toBe(`http://127.0.0.1:${port}`);
    const env = { PINCER_TOKEN: '', PINCER_PORT: '' };

    const plain = await runPincer(['login-url', '--data-dir', dataDir], env);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout.trim()).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/auth\\?code=\\S+$`));
    expect((await fetch(plain.stdout.trim(), { redirect: 'manual' })).status).toBe(303);
    // A port on the command line (the default's, say) does not send it elsewhere: the folder names its gateway.
    const otherPort = String(await freePort());
    const told = await runPincer(['login-url', '--data-dir', dataDir, '--port', otherPort], env);
    expect(told.stdout.trim().startsWith(`http://127.0.0.1:${port}/auth?code=`)).toBe(true);
    const fromEnv = await runPincer(['login-url', '--data-dir', dataDir], { ...env, PINCER_PORT: otherPort });
    expect(fromEnv.stdout.trim().startsWith(`http://127.0.0.1:${port}/auth?code=`)).toBe(true);
    const listed = await runPincer(['mcp-servers', '--data-dir', dataDir, '--port', otherPort], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^No MCP servers/);

    served.child.kill('SIGKILL');
    await served.exited;
    // The lock file it left names a process that is gone: nobody serves the folder, the configured port is printed.
    const stale = await runPincer(['login-url', '--data-dir', dataDir, '--port', otherPort], env);
    expect(stale.code, stale.stderr).toBe(0);
    expect(stale.stdout.trim().startsWith(`http://127.0.0.1:${otherPort}/auth?code=`)).toBe(true);
  });
});

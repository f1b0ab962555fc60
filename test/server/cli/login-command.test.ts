import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { loginCommand, pincerLaunch } from '../../../server/config/pincer-command.js';
import { PACKAGE_ROOT } from '../../../server/version.js';
import { freePort, serve, type Served } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/gateway.js';

const run = promisify(execFile);

/** The login screen shows the command the gateway names in GET /session: it must work typed in any folder. */
describe('the login command the gateway names', () => {
  const dirs: string[] = [];
  let served: Served | undefined;
  const dir = (prefix = 'pincer-login-') => {
    const made = tempDir(prefix);
    dirs.push(made);
    return made;
  };
  afterEach(async () => {
    if (served && served.child.exitCode === null) {
      served.child.kill('SIGKILL');
      await served.exited;
    }
    served = undefined;
    for (const made of dirs.splice(0)) rmSync(made, { recursive: true, force: true });
  });

  it('GET /session names it; typed in a shell in another folder it prints a link this gateway accepts', async () => {
    const home = dir();
    served = await serve(home, await freePort());
    const session = (await (await fetch(`${served.url}/session`)).json()) as { owner: boolean; login_command?: string };
    expect(session.owner).toBe(false);
    expect(session.login_command).toBe(`node ${join(PACKAGE_ROOT, 'bin', 'pincer.js')} login-url --data-dir ${home}`);

    const { stdout } = await run('sh', ['-c', session.login_command!], { cwd: dir('pincer-elsewhere-'), timeout: 20_000 });
    const link = stdout.trim();
    expect(link.startsWith(`${served.url}/auth?code=`)).toBe(true);
    expect((await fetch(link, { redirect: 'manual' })).status).toBe(303);
  });

  it('the default data folder is not named; a path with a space is quoted for the shell', () => {
    expect(loginCommand(join(homedir(), '.pincer'), '/opt/pincer')).toBe('node /opt/pincer/bin/pincer.js login-url');
    expect(loginCommand('/data/my pincer', '/opt/pincer')).toBe("node /opt/pincer/bin/pincer.js login-url --data-dir '/data/my pincer'");
  });

  it('the installed app names its own launcher, beside app.asar, for both the login command and MCP clients', () => {
    const resources = dir('pincer-resources-');
    mkdirSync(join(resources, 'app.asar'));
    const launcher = join(resources, process.platform === 'win32' ? 'pincer.cmd' : 'pincer');
    writeFileSync(launcher, '#!/bin/sh\n');
    const data = join(resources, 'data');
    expect(loginCommand(data, join(resources, 'app.asar'))).toBe(`${launcher} login-url --data-dir ${data}`);
    expect(pincerLaunch(join(resources, 'app.asar'))).toEqual({ command: launcher, args: [] });
  });
});

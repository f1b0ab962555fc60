import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, runPincer, serve, type Served } from '../helpers/cli.js';
import { tempDir } from '../helpers/gateway.js';

const ROOT = resolve(import.meta.dirname, '../..');
const NODE_BUILD = join(dirname(createRequire(join(ROOT, 'package.json')).resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');

/**
 * PINCER_SQLITE_BINDING: the installed app's `pincer` command runs on Electron's runtime and must open the database
 * with the Electron build of better-sqlite3 it ships, not node_modules' Node build.
 */
describe('pincer with PINCER_SQLITE_BINDING', () => {
  const made: string[] = [];
  let served: Served | undefined;
  const dir = () => {
    const path = tempDir('pincer-binding-');
    made.push(path);
    return path;
  };
  afterEach(async () => {
    if (served && served.child.exitCode === null) {
      served.child.kill('SIGKILL');
      await served.exited;
    }
    served = undefined;
    for (const path of made.splice(0)) rmSync(path, { recursive: true, force: true });
  });

  it.skipIf(process.platform !== 'linux')('serve loads the addon it names, not the one in node_modules', async () => {
    const binding = join(dir(), 'better_sqlite3.node');
    copyFileSync(NODE_BUILD, binding);
    served = await serve(dir(), await freePort(), undefined, { PINCER_SQLITE_BINDING: binding });
    expect((await fetch(`${served.url}/health`)).status).toBe(200);
    const maps = readFileSync(`/proc/${served.child.pid}/maps`, 'utf8');
    expect(maps).toContain(binding);
    expect(maps).not.toContain(NODE_BUILD);
  });

  it('every way the CLI opens the database uses it: a file that is no addon fails each one, naming it', async () => {
    const bogus = join(dir(), 'better_sqlite3.node');
    writeFileSync(bogus, 'not a shared library');
    const env = { PINCER_SQLITE_BINDING: bogus };
    const dataDir = dir();
    const port = String(await freePort());
    // The data directory directly (token), a gateway started for one command (call), and serve.
    for (const args of [['token', 'list'], ['call', 'calculate', '{"expression":"1+1"}'], ['serve']]) {
      const result = await runPincer([...args, '--data-dir', dataDir, '--port', port], env);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toContain(bogus);
    }
  });

  it('a path that does not exist, or is not absolute, stops the command with one line naming the variable', async () => {
    for (const binding of [join(dir(), 'missing.node'), 'native/better_sqlite3.node']) {
      const result = await runPincer(['token', 'list', '--data-dir', dir()], { PINCER_SQLITE_BINDING: binding });
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`pincer: PINCER_SQLITE_BINDING must be the absolute path of a better-sqlite3 addon (.node) that exists, got "${binding}"\n`);
    }
  });

  it('unset or empty, the package\'s own build is used', async () => {
    const result = await runPincer(['token', 'list', '--data-dir', dir()], { PINCER_SQLITE_BINDING: '' });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^CLIENT/);
  });
});

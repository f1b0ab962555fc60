import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pluginApiFile, writeApiShim } from '../../../server/plugins/discover.js';
import { childScript, PluginHost } from '../../../server/plugins/host.js';
import { ProcessRunner } from '../../../server/process/runner.js';
import { Sandbox, sandboxSupport, type SandboxSupport } from '../../../server/process/sandbox.js';
import { packagePath } from '../../../server/util/package-files.js';
import { tempDir } from '../../helpers/gateway.js';
import { entry, writePlugin } from './helpers.js';

/**
 * One plugin host on its own, with a plugin folder discovery would refuse (a link out of it): the sandbox is the
 * wall that holds even when the checks before it let something through.
 */

const support = sandboxSupport();
const available = support.kind === 'bubblewrap';
if (!available && process.env.CI) throw new Error(`CI must run the plugin sandbox tests, but: ${support.detail}`);

let dataDir: string;
let pluginsDir: string;
let dir: string;
const runner = new ProcessRunner({ warn: () => undefined });
const homeProbe = join(homedir(), `pincer-host-probe-${process.pid}`);

beforeAll(() => {
  dataDir = tempDir();
  pluginsDir = join(dataDir, 'plugins');
  mkdirSync(pluginsDir);
  writeApiShim(pluginsDir);
  writeFileSync(join(dataDir, 'owner-secret'), 'OWNER-SECRET');
  writeFileSync(homeProbe, 'HOME-SECRET');
  const body = `const fs = await import('node:fs'); const out = {};
    for (const name of ['readme.txt', 'home.txt']) {
      try { out[name] = fs.readFileSync(new URL('./' + name, import.meta.url), 'utf8'); } catch (e) { out[name] = e.code; } }
    return out;`;
  dir = writePlugin(pluginsDir, 'linked', { 'index.js': entry({ linked_read: { body } }) });
  symlinkSync(join(dataDir, 'owner-secret'), join(dir, 'readme.txt'));
  symlinkSync(homeProbe, join(dir, 'home.txt'));
});
afterAll(async () => {
  await runner.stopAll(0);
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(homeProbe, { force: true });
});

/** A host for the linked plugin, as the manager builds it, in the given sandbox. */
function host(sandboxed: SandboxSupport): PluginHost {
  return new PluginHost(
    {
      name: 'linked',
      dir,
      entryUrl: pathToFileURL(join(dir, 'index.js')).href,
      code: [`${dir}/*`, `${dirname(childScript())}/*`, packagePath('package.json'), pluginApiFile(), `${join(pluginsDir, 'node_modules', 'pincer')}/*`],
      read: [],
      write: [],
      childProcess: false,
      workers: false,
      addons: false,
      hidden: [dataDir],
      config: {},
    },
    {
      runner,
      sandbox: new Sandbox(sandboxed),
      fetch: () => Promise.reject(new Error('no network in this test')),
      log: () => undefined,
      onCrash: () => undefined,
      onRestarted: () => undefined,
    },
  );
}

async function readThroughLinks(sandboxed: SandboxSupport): Promise<unknown> {
  const plugin = host(sandboxed);
  try {
    expect((await plugin.start()).map((t) => t.name)).toEqual(['linked_read']);
    return await plugin.call('linked_read', {}, { callId: 'c_test', client: 'test', signal: new AbortController().signal });
  } finally {
    await plugin.stop();
  }
}

describe.skipIf(!available)('a link inside the plugin folder, past discovery', () => {
  it("reads neither the data folder's secret nor the home folder inside the sandbox", async () => {
    expect(await readThroughLinks(support)).toEqual({ 'readme.txt': 'ENOENT', 'home.txt': 'ENOENT' });
  });
});

it("without the sandbox, Node's permission model follows the same links (what the sandbox is there for)", async () => {
  expect(await readThroughLinks({ kind: 'none', detail: 'off in this test' })).toEqual({ 'readme.txt': 'OWNER-SECRET', 'home.txt': 'HOME-SECRET' });
});

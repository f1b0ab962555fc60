import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManifestError, readManifest } from '../../../server/plugins/manifest.js';
import { PACKAGE_ROOT } from '../../../server/version.js';
import { readJson, startGateway, type TestGateway } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';
import { writePlugin } from './helpers.js';

/**
 * A plugin's `permissions.write` may not reach Pincer's own folders: its code and bundled plugins (which run as
 * Pincer, unasked) or its data folder (tokens, database). Refused when the manifest is read, before any code runs.
 */

let base: string;
let data: string;
let own: string[];

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'pincer-manifest-own-')));
  data = join(base, 'data');
  mkdirSync(join(data, 'plugins'), { recursive: true });
  symlinkSync(join(PACKAGE_ROOT, 'plugins'), join(base, 'plugins-link'));
  own = [PACKAGE_ROOT, join(PACKAGE_ROOT, 'plugins'), data];
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** What reading a plugin's manifest with these permissions says is wrong, or undefined. */
function problem(write: string[], read: string[] = []): string | undefined {
  const dir = writePlugin(join(data, 'plugins'), 'writer', { 'index.js': 'export default {};' }, { permissions: { write, read } });
  try {
    readManifest(dir, 'writer', own, [data]);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ManifestError);
    return (error as Error).message;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('permissions.write', () => {
  it.each([
    ['a bundled plugin file', () => join(PACKAGE_ROOT, 'plugins', 'investment', 'index.js')],
    ["Pincer's server code", () => join(PACKAGE_ROOT, 'server')],
    ['the package folder itself', () => PACKAGE_ROOT],
    ['the data folder', () => data],
    ["the plugin's own folder inside the data folder", () => join(data, 'plugins', 'writer')],
    ['a folder that holds the package', () => dirname(PACKAGE_ROOT)],
    ['the whole file system', () => '/'],
    ['a symlink that leads into the bundled plugins', () => join(base, 'plugins-link', 'investment')],
  ])('into %s is refused, naming the path', (_name, path) => {
    const message = problem([path()]);
    expect(message).toContain(`permissions.write: "${path()}"`);
    expect(message).toMatch(/one of Pincer's own folders/);
  });

  it('~/ paths are expanded before the check (the home folder holding the data folder)', () => {
    const before = process.env.HOME;
    process.env.HOME = base;
    try {
      expect(problem(['~/'])).toMatch(/"~\/" holds one of Pincer's own folders/);
      expect(problem(['~/data/plugins'])).toMatch(/lies inside one of Pincer's own folders/);
      expect(problem(['~/elsewhere'])).toBeUndefined();
    } finally {
      process.env.HOME = before;
    }
  });

  it('a folder of its own elsewhere is fine', () => {
    expect(problem([join(base, 'plugin-cache')])).toBeUndefined();
  });
});

describe('permissions.read', () => {
  const readProblem = (read: string[]) => problem([], read);

  it('into the data folder, as written or through a link, is refused naming the path', () => {
    const link = join(base, 'data-link');
    symlinkSync(data, link);
    for (const path of [data, join(data, 'token'), link, join(link, 'pincer.db')]) {
      expect(readProblem([path])).toMatch(new RegExp(`permissions\\.read: "${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}" leads into Pincer's data folder`));
    }
  });

  it("Pincer's code, and a folder that holds the data folder, may be read (the sandbox empties the data folder there)", () => {
    expect(readProblem([join(PACKAGE_ROOT, 'server'), base])).toBeUndefined();
  });
});

describe('through the gateway', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await startGateway({}, { bundledPluginsDir: null });
  });
  afterAll(() => tg?.close());

  it('a user plugin asking to write into the data folder is failed with the reason, and runs nothing', async () => {
    writePlugin(join(tg.dataDir, 'plugins'), 'grabber', { 'index.js': 'throw new Error("top-level code ran");' }, { permissions: { write: [tg.dataDir] } });
    await tg.gateway.plugins.rescan();
    const plugin = await until(() => {
      const v = tg.gateway.plugins.get('grabber');
      return v && v.status !== 'loading' && v;
    }, 'the plugin to settle', 30_000);
    expect(plugin.status).toBe('failed');
    expect(plugin.reason).toContain("one of Pincer's own folders");
    expect(plugin.reason).not.toContain('top-level code ran');
    const listed = (await readJson(await tg.asOwner('/plugins'))).plugins.find((p: { name: string }) => p.name === 'grabber');
    expect(listed).toMatchObject({ status: 'failed' });
  });
});

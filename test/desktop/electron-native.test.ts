import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { exportsModuleAbi, moduleAbis, nativeBuildProblem, readAbi, type NativeStamp } from '../../scripts/desktop/electron.mjs';
import { dropNodedir, keepIfAbiMatches, prepare } from '../../scripts/electron-native.mjs';
import { tempDir } from '../helpers/gateway.js';
import { builtNative, fakeAddon, fakeCheckout, type FakeCheckout } from './checkout.js';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
/** node_modules' Node build of better-sqlite3, the one every test uses. */
const NODE_BUILD = join(dirname(createRequire(join(ROOT, 'package.json')).resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');

const made: string[] = [];
const dir = () => {
  const path = tempDir('pincer-native-');
  made.push(path);
  return path;
};
afterEach(() => {
  for (const path of made.splice(0)) rmSync(path, { recursive: true, force: true });
});

describe('the ABI check', () => {
  it("reads electron's abi_version: a bare number", () => {
    expect(readAbi(join(ROOT, 'node_modules/electron/abi_version'))).toBe('150');
    const junk = join(dir(), 'abi_version');
    writeFileSync(junk, 'v150-beta\n');
    expect(() => readAbi(junk)).toThrow(/does not hold an ABI number/);
  });

  it('finds node_register_module_v<ABI> in a file that has it, and only the exact ABI', () => {
    const file = join(dir(), 'addon.node');
    writeFileSync(file, fakeAddon('150'));
    expect(exportsModuleAbi(file, '150')).toBe(true);
    expect(exportsModuleAbi(file, '15')).toBe(false);
    expect(exportsModuleAbi(file, '115')).toBe(false);
    expect(moduleAbis(file)).toEqual(['150']);
  });

  it('finds no ABI in a Node-API addon or a file without the symbol', () => {
    const file = join(dir(), 'addon.node');
    writeFileSync(file, fakeAddon(undefined));
    expect(exportsModuleAbi(file, '150')).toBe(false);
    expect(moduleAbis(file)).toEqual([]);
  });

  it("tells node_modules' real better-sqlite3 build is Node's, not Electron's", () => {
    expect(exportsModuleAbi(NODE_BUILD, process.versions.modules)).toBe(true);
    expect(exportsModuleAbi(NODE_BUILD, '150')).toBe(false);
    expect(moduleAbis(NODE_BUILD)).toEqual([process.versions.modules]);
  });

  it('keeps a build with the right symbol and deletes one without it', () => {
    const right = join(dir(), 'right.node');
    writeFileSync(right, fakeAddon('150'));
    expect(keepIfAbiMatches(right, '150')).toBeUndefined();
    expect(existsSync(right)).toBe(true);

    const wrong = join(dir(), 'wrong.node');
    writeFileSync(wrong, fakeAddon('115'));
    expect(keepIfAbiMatches(wrong, '150')).toBe('the build registers node_register_module_v115, not node_register_module_v150; it was removed');
    expect(existsSync(wrong)).toBe(false);
  });
});

describe('whether native/electron can be used', () => {
  const wanted: NativeStamp = { electron: '45.5.0', abi: '150', betterSqlite3: '12.11.1', platform: process.platform, arch: process.arch };
  let checkout: FakeCheckout;
  const native = () => join(checkout.root, 'native/electron');

  it('is fine after a build for this Electron, better-sqlite3 and machine', () => {
    checkout = fakeCheckout();
    made.push(checkout.root);
    builtNative(checkout);
    expect(nativeBuildProblem(native(), wanted)).toBeUndefined();
  });

  it('is missing, or built for the wrong ABI, or stale', () => {
    checkout = fakeCheckout();
    made.push(checkout.root);
    expect(nativeBuildProblem(native(), wanted)).toBe('native/electron/better_sqlite3.node is not built');
    checkout.write('native/electron/better_sqlite3.node', fakeAddon('115'));
    expect(nativeBuildProblem(native(), wanted)).toBe("native/electron/better_sqlite3.node is not built for Electron's ABI 150 (it registers v115)");
    checkout.write('native/electron/better_sqlite3.node', fakeAddon('150'));
    expect(nativeBuildProblem(native(), wanted)).toMatch(/build\.json is missing/);
    builtNative(checkout, { betterSqlite3: '12.10.0' });
    expect(nativeBuildProblem(native(), wanted)).toBe('native/electron/better_sqlite3.node was built for betterSqlite3 12.10.0, not 12.11.1');
    builtNative(checkout, { platform: 'plan9' });
    expect(nativeBuildProblem(native(), wanted)).toMatch(/built for platform plan9/);
  });
});

describe('the Electron build before npm start', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  });

  it("removes npm's nodedir setting in every spelling, and nothing else", () => {
    const env: NodeJS.ProcessEnv = { npm_config_nodedir: '/usr', NPM_CONFIG_NODEDIR: '/usr', nodedir: '/usr', npm_config_node_gyp: 'x', PATH: '/bin' };
    expect(dropNodedir(env).sort()).toEqual(['NPM_CONFIG_NODEDIR', 'nodedir', 'npm_config_nodedir']);
    expect(env).toEqual({ npm_config_node_gyp: 'x', PATH: '/bin' });
  });

  it('does nothing at all without the Electron binary: no build, no native folder', async () => {
    const checkout = fakeCheckout();
    made.push(checkout.root);
    const lines: string[] = [];
    expect(await prepare({ root: checkout.root, env: { ELECTRON_OVERRIDE_DIST_PATH: dir() }, log: (l) => lines.push(l) })).toBe(0);
    expect(lines).toEqual([]);
    expect(existsSync(join(checkout.root, 'native'))).toBe(false);
  });

  it('leaves a current build alone', async () => {
    const checkout = fakeCheckout();
    made.push(checkout.root);
    builtNative(checkout);
    checkout.write('electron-dist/electron', 'binary');
    const lines: string[] = [];
    const env = { ELECTRON_OVERRIDE_DIST_PATH: join(checkout.root, 'electron-dist') };
    expect(await prepare({ root: checkout.root, env, log: (l) => lines.push(l) })).toBe(0);
    expect(lines).toEqual([]);
  });

  it('removes a build for the wrong ABI before building again, and reports a failed build without failing npm start', async () => {
    // The stand-in better-sqlite3 has no binding.gyp: @electron/rebuild finds nothing to compile (and fetches
    // nothing), so the build fails the way a real one can, after the wrong build is gone.
    const checkout = fakeCheckout();
    made.push(checkout.root);
    builtNative(checkout);
    checkout.write('native/electron/better_sqlite3.node', fakeAddon('115'));
    checkout.write('electron-dist/electron', 'binary');
    const lines: string[] = [];
    const env = { ELECTRON_OVERRIDE_DIST_PATH: join(checkout.root, 'electron-dist') };
    expect(await prepare({ root: checkout.root, env, log: (l) => lines.push(l) })).toBe(0);
    expect(existsSync(join(checkout.root, 'native/electron/better_sqlite3.node'))).toBe(false);
    expect(existsSync(join(checkout.root, 'native/.build'))).toBe(false);
    expect(lines.at(-1)).toMatch(/^electron-native: could not build better-sqlite3 for Electron: /);
    // `npm run dist` must not package without it.
    expect(await prepare({ root: checkout.root, env, require: true, log: () => {} })).toBe(1);
  });

  it("as npm's prestart step here: exits 0 without output and leaves node_modules' Node build as it was", async () => {
    const before = statSync(NODE_BUILD);
    const bytes = readFileSync(NODE_BUILD);
    const { stdout, stderr } = await run(process.execPath, [join(ROOT, 'scripts/electron-native.mjs')], {
      env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: dir() },
      timeout: 20_000,
    });
    expect(stdout + stderr).toBe('');
    const after = statSync(NODE_BUILD);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(readFileSync(NODE_BUILD).equals(bytes)).toBe(true);
  });
});

import { FuseV1Options, FuseVersion } from '@electron/fuses';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { afterPack, electronExecutable, FUSES, resourcesDir, type PackContext } from '../../scripts/fuses.mjs';
import { tempDir } from '../helpers/gateway.js';
import { fakeAddon } from './checkout.js';

/** Electron marks its fuse wire with this sentinel, then a version byte, a length byte and one byte per fuse. */
const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
const ON = 0x31;
const OFF = 0x30;

describe('the fuses the packaged app gets', () => {
  it('sets every V1 fuse explicitly, so a fuse a later Electron adds fails the build until it is decided', () => {
    expect(FUSES.version).toBe(FuseVersion.V1);
    expect(FUSES.strictlyRequireAllFuses).toBe(true);
    const named = Object.values(FuseV1Options).filter((v): v is number => typeof v === 'number');
    for (const fuse of named) expect(typeof FUSES[fuse as FuseV1Options], FuseV1Options[fuse]).toBe('boolean');
  });

  it('keeps RunAsNode on (the pincer command runs on the app runtime) and turns off what lets code in from outside', () => {
    expect(FUSES).toMatchObject({
      [FuseV1Options.RunAsNode]: true,
      [FuseV1Options.EnableCookieEncryption]: true,
      [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
      [FuseV1Options.EnableNodeCliInspectArguments]: false,
      [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: true,
      [FuseV1Options.OnlyLoadAppFromAsar]: true,
      [FuseV1Options.GrantFileProtocolExtraPrivileges]: false,
    });
  });
});

describe('the afterPack hook', () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** electron-builder's linux-unpacked folder, with a stand-in executable carrying Electron's default fuse wire. */
  function packedLinuxApp(addon: Buffer | undefined): PackContext {
    const appOutDir = tempDir('pincer-pack-');
    made.push(appOutDir);
    const context: PackContext = { appOutDir, electronPlatformName: 'linux', packager: { executableName: 'pincer', appInfo: { productFilename: 'Pincer' } } };
    // Electron 45's defaults: RunAsNode on, cookie encryption off, NODE_OPTIONS on, --inspect on, integrity off,
    // only-asar off, V8 snapshot off, file:// privileges on, WASM trap handlers on.
    const wire = Buffer.from([ON, OFF, ON, ON, OFF, OFF, OFF, ON, ON]);
    writeFileSync(electronExecutable(context), Buffer.concat([Buffer.alloc(4096, 7), Buffer.from(SENTINEL), Buffer.from([1, wire.length]), wire, Buffer.alloc(512, 7)]));
    // The bundled plugins, copied as extraResources with their `pincer/plugin` shim.
    const shim = join(resourcesDir(context), 'plugins', 'node_modules', 'pincer');
    mkdirSync(shim, { recursive: true });
    writeFileSync(join(shim, 'plugin.js'), "export * from '../../../dist/server/plugin-api.js';\n");
    if (addon) {
      mkdirSync(join(resourcesDir(context), 'native'), { recursive: true });
      writeFileSync(join(resourcesDir(context), 'native', 'better_sqlite3.node'), addon);
    }
    return context;
  }

  function wireOf(context: PackContext): number[] {
    const bytes = readFileSync(electronExecutable(context));
    const at = bytes.indexOf(SENTINEL) + SENTINEL.length;
    return [...bytes.subarray(at + 2, at + 2 + bytes[at + 1]!)];
  }

  it('writes the settings into the packaged executable', async () => {
    const context = packedLinuxApp(fakeAddon('150'));
    await afterPack(context, { abi: '150', builtOn: 'linux' });
    expect(wireOf(context)).toEqual([ON, ON, OFF, OFF, ON, ON, OFF, OFF, ON]);
  });

  it('points the bundled plugins at the API unpacked beside app.asar', async () => {
    const context = packedLinuxApp(fakeAddon('150'));
    await afterPack(context, { abi: '150', builtOn: 'linux' });
    const shim = readFileSync(join(resourcesDir(context), 'plugins', 'node_modules', 'pincer', 'plugin.js'), 'utf8');
    expect(shim).toContain("export * from '../../../app.asar.unpacked/dist/server/plugin-api.js';");
  });

  it('refuses to package an app without the Electron build of better-sqlite3, or with a build for Node', async () => {
    await expect(afterPack(packedLinuxApp(undefined), { abi: '150', builtOn: 'linux' })).rejects.toThrow(/native\/better_sqlite3\.node is missing/);
    await expect(afterPack(packedLinuxApp(fakeAddon('115')), { abi: '150', builtOn: 'linux' })).rejects.toThrow(/not built for Electron's ABI 150/);
  });

  it('refuses a native build made on another platform', async () => {
    await expect(afterPack(packedLinuxApp(fakeAddon('150')), { abi: '150', builtOn: 'darwin' })).rejects.toThrow(/was built on darwin, not linux/);
  });

  it("finds the executable and resources where electron-builder puts them on each platform", () => {
    const packager = { executableName: 'pincer', appInfo: { productFilename: 'Pincer' } };
    expect(electronExecutable({ appOutDir: '/out', electronPlatformName: 'linux', packager })).toBe(join('/out', 'pincer'));
    expect(electronExecutable({ appOutDir: '/out', electronPlatformName: 'win32', packager })).toBe(join('/out', 'Pincer.exe'));
    expect(electronExecutable({ appOutDir: '/out', electronPlatformName: 'darwin', packager })).toBe(join('/out', 'Pincer.app'));
    expect(resourcesDir({ appOutDir: '/out', electronPlatformName: 'darwin', packager })).toBe(join('/out', 'Pincer.app', 'Contents', 'Resources'));
    expect(resourcesDir({ appOutDir: '/out', electronPlatformName: 'win32', packager })).toBe(join('/out', 'resources'));
  });
});

import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** electron-builder's own loader and schema check (what `npm run dist` runs first), from its library. */
interface BuilderConfig {
  appId?: string;
  productName?: string;
  npmRebuild?: boolean;
  asarUnpack?: string[];
  afterPack?: string;
  files?: { from?: string; to?: string; filter?: string[] }[];
  extraResources?: { from?: string; to?: string; filter?: string[] }[];
  directories?: { output?: string };
  linux?: { target?: string[]; icon?: string; executableName?: string; extraResources?: { from?: string; to?: string }[] };
  deb?: { afterInstall?: string; afterRemove?: string };
  mac?: { target?: string[]; icon?: string; extraResources?: { from?: string; to?: string }[] };
  win?: { target?: string[]; icon?: string; extraResources?: { from?: string; to?: string }[] };
}
const builderConfig = createRequire(join(ROOT, 'package.json'))('app-builder-lib/out/util/config/config.js') as {
  getConfig(projectDir: string, configPath: string | null, configFromOptions: object | null): Promise<BuilderConfig>;
  validateConfiguration(config: BuilderConfig, debugLogger: { isEnabled: boolean; add(): void }): Promise<void>;
};

async function loadConfig(): Promise<BuilderConfig> {
  const config = await builderConfig.getConfig(ROOT, null, null);
  await builderConfig.validateConfiguration(config, { isEnabled: false, add: () => {} });
  return config;
}

describe('the electron-builder configuration', () => {
  it("is found and passes electron-builder's schema", async () => {
    const config = await loadConfig();
    expect(config).toMatchObject({ appId: expect.any(String), productName: 'Pincer', directories: { output: 'release' } });
  });

  it('packages the compiled main process that package.json names', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { main?: string; scripts: Record<string, string> };
    expect(pkg.main).toBe('dist/electron/main/index.js');
    expect(pkg.scripts['dist:prepare']).toMatch(/npm run build && node scripts\/electron-native\.mjs --require/);
    for (const script of ['dist', 'dist:linux', 'dist:mac', 'dist:win']) expect(pkg.scripts[script]).toMatch(/^npm run dist:prepare && electron-builder/);
  });

  it('never rebuilds node_modules: they keep the Node builds the tests need', async () => {
    expect((await loadConfig()).npmRebuild).toBe(false);
  });

  it('takes only the built app into app.asar: no tests, sources, bench or source maps', async () => {
    const filter = (await loadConfig()).files!.flatMap((set) => set.filter ?? []);
    expect(filter).toEqual(expect.arrayContaining(['package.json', 'bin/pincer.js', 'dist/server/**/*', 'dist/electron/**/*', 'dist/renderer/**/*', 'assets/tray/**/*', '!**/*.map']));
    expect(filter.filter((p) => !p.startsWith('!') && /^(test|bench|server|electron|renderer|scripts|dist\/bench)\b/.test(p))).toEqual([]);
  });

  it('unpacks native code, node-pty\'s helpers, and what other processes read from disk (the Python analyzer, the plugin process)', async () => {
    const unpack = (await loadConfig()).asarUnpack!;
    expect(unpack).toEqual(
      expect.arrayContaining(['**/*.node', '**/node_modules/node-pty/**/*', 'dist/server/security/python-analyzer.py', 'dist/server/plugins/**/*', 'dist/server/plugin-api.js']),
    );
  });

  it('ships the bundled plugins as real files beside app.asar', async () => {
    expect((await loadConfig()).extraResources).toContainEqual({ from: 'plugins', to: 'plugins', filter: ['**/*'] });
  });

  it('ships the Electron build of better-sqlite3 as resources/native and the pincer launcher for each platform', async () => {
    const config = await loadConfig();
    expect(config.extraResources).toContainEqual({ from: 'native/electron', to: 'native', filter: ['better_sqlite3.node'] });
    expect(config.linux!.extraResources).toContainEqual({ from: 'scripts/packaging/pincer', to: 'pincer' });
    expect(config.mac!.extraResources).toContainEqual({ from: 'scripts/packaging/pincer', to: 'pincer' });
    expect(config.win!.extraResources).toContainEqual({ from: 'scripts/packaging/pincer.cmd', to: 'pincer.cmd' });
    for (const file of ['scripts/packaging/pincer', 'scripts/packaging/deb-after-install.sh', 'scripts/packaging/deb-after-remove.sh']) {
      expect(statSync(join(ROOT, file)).mode & 0o111, `${file} is executable`).not.toBe(0);
    }
  });

  it('builds AppImage and deb, dmg and nsis, with the app icon', async () => {
    const config = await loadConfig();
    expect(config.linux!.target).toEqual(['AppImage', 'deb']);
    expect(config.mac!.target).toEqual(['dmg']);
    expect(config.win!.target).toEqual(['nsis']);
    for (const platform of [config.linux!, config.mac!, config.win!]) expect(platform.icon).toBe('assets/icon.png');
    expect(config.linux!.executableName).toBe('pincer');
  });

  it('flips the fuses after packing, with the hook it names, and links /usr/bin/pincer from the deb scripts', async () => {
    const config = await loadConfig();
    expect(config.afterPack).toBe('./scripts/fuses.mjs');
    const hook = (await import(join(ROOT, config.afterPack!))) as { afterPack: unknown; default: unknown };
    expect(typeof hook.afterPack).toBe('function');
    expect(hook.default).toBe(hook.afterPack);
    expect(config.deb).toEqual({ afterInstall: 'scripts/packaging/deb-after-install.sh', afterRemove: 'scripts/packaging/deb-after-remove.sh' });
    const install = readFileSync(join(ROOT, config.deb!.afterInstall!), 'utf8');
    expect(install).toMatch(/update-alternatives --install \/usr\/bin\/pincer pincer "\$cli" 100/);
    expect(install).toContain("cli='/opt/${sanitizedProductName}/resources/pincer'");
    // electron-builder fills in ${name} macros and fails on an unknown one: the scripts use only the ones it has.
    for (const script of [install, readFileSync(join(ROOT, config.deb!.afterRemove!), 'utf8')]) {
      expect([...new Set([...script.matchAll(/\$\{([A-Za-z]+)\}/g)].map((m) => m[1]))].sort()).toEqual(['executable', 'sanitizedProductName']);
    }
  });
});

/** The width and height in a PNG's IHDR chunk. */
function pngSize(file: string): [number, number] {
  const bytes = readFileSync(file);
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

describe('the icons', () => {
  it('has the app icon at 512 × 512 and each tray state at 16 × 16 and @2x', () => {
    expect(pngSize(join(ROOT, 'assets/icon.png'))).toEqual([512, 512]);
    for (const state of ['running', 'paused', 'pending']) {
      expect(pngSize(join(ROOT, `assets/tray/${state}.png`))).toEqual([16, 16]);
      expect(pngSize(join(ROOT, `assets/tray/${state}@2x.png`))).toEqual([32, 32]);
    }
  });
});

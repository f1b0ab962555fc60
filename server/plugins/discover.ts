import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { builtPath, packagePath } from '../util/package-files.js';
import { unpackedPath } from '../util/unpacked.js';

export type PluginOrigin = 'bundled' | 'user';

export interface FoundPlugin {
  name: string;
  dir: string;
  origin: PluginOrigin;
}

/** The plugins shipped with Pincer: `plugins/` at the package's root. */
export function bundledPluginsDir(): string {
  return packagePath('plugins');
}

/** The plugin API as the gateway ships it (`pincer/plugin`), as a plugin's process opens it. */
export function pluginApiFile(): string {
  return unpackedPath(builtPath('server', 'plugin-api.js'));
}

/**
 * Plugin folders: every sub-folder of each root, skipping `node_modules` and names starting with a dot (the
 * build cache, editors' folders). A user's plugin with a bundled plugin's name is refused by the manager.
 */
export function findPlugins(roots: { dir: string; origin: PluginOrigin }[]): FoundPlugin[] {
  const found: FoundPlugin[] = [];
  for (const { dir, origin } of roots) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith('.') || name === 'node_modules') continue;
      const path = join(dir, name);
      if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) found.push({ name, dir: path, origin });
    }
  }
  return found;
}

/**
 * Makes `import … from 'pincer/plugin'` resolve for plugins in the user's folder: a small package in its
 * node_modules that re-exports the API this gateway ships, rewritten at each start so it follows upgrades.
 * Bundled plugins resolve it through this package's own `exports`.
 */
export function writeApiShim(userDir: string): string {
  const shim = join(userDir, 'node_modules', 'pincer');
  mkdirSync(shim, { recursive: true });
  const api = pathToFileURL(pluginApiFile()).href;
  writeFileSync(join(shim, 'package.json'), `${JSON.stringify({ name: 'pincer', private: true, type: 'module', exports: { './plugin': './plugin.js' } }, null, 2)}\n`);
  writeFileSync(join(shim, 'plugin.js'), `// Written by Pincer at start: the plugin API of the running gateway.\nexport * from ${JSON.stringify(api)};\n`);
  return shim;
}

import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
 * node_modules that re-exports the API this gateway ships, written at each start (so it follows upgrades) and
 * before each plugin process starts. Security: every plugin imports it, and it is not part of any plugin's hash, so
 * it is never trusted as found: what differs from the gateway's text is written again. Bundled plugins resolve it
 * through the package's own `plugins/node_modules/pincer`.
 */
export function writeApiShim(userDir: string): string {
  const shim = join(userDir, 'node_modules', 'pincer');
  const isLink = (path: string) => lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true;
  // A link in its place would have the text written (and later read) elsewhere.
  for (const path of [join(userDir, 'node_modules'), shim]) if (isLink(path)) rmSync(path);
  mkdirSync(shim, { recursive: true });
  const api = pathToFileURL(pluginApiFile()).href;
  const files = {
    'package.json': `${JSON.stringify({ name: 'pincer', private: true, type: 'module', exports: { './plugin': './plugin.js' } }, null, 2)}\n`,
    'plugin.js': `// Written by Pincer at start: the plugin API of the running gateway.\nexport * from ${JSON.stringify(api)};\n`,
  };
  for (const [name, text] of Object.entries(files)) {
    const file = join(shim, name);
    if (isLink(file)) rmSync(file);
    let now: string | undefined;
    try {
      now = readFileSync(file, 'utf8');
    } catch {
      now = undefined;
    }
    if (now !== text) writeFileSync(file, text);
  }
  return shim;
}

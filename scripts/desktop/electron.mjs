// Where the desktop shell's pieces are in a development checkout, found without ever starting a download.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

/** The repository root (this file is scripts/desktop/electron.mjs). */
export const ROOT = resolve(import.meta.dirname, '../..');

/** The better-sqlite3 addon built for Electron; node_modules keeps the Node build the tests use. */
export const NATIVE_DIR_NAME = join('native', 'electron');
export const SQLITE_ADDON_NAME = 'better_sqlite3.node';
/** What the Electron build was made from, to know when it is stale. */
export const NATIVE_STAMP_NAME = 'build.json';

/** The Electron main process, compiled by `npm run build`. */
export const MAIN_ENTRY = join('dist', 'electron', 'main', 'index.js');

/**
 * @typedef {object} ElectronPackage
 * @property {string} dir     node_modules/electron
 * @property {string} version the Electron version, e.g. "45.5.0"
 * @property {string} abi     its NODE_MODULE_VERSION, e.g. "150"
 */

/**
 * The installed electron package, or undefined when it is not installed (`npm install --omit=dev`).
 * @param {string} [root]
 * @returns {ElectronPackage | undefined}
 */
export function electronPackage(root = ROOT) {
  let dir;
  try {
    dir = dirname(createRequire(join(root, 'package.json')).resolve('electron/package.json'));
  } catch {
    return undefined;
  }
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  return { dir, version, abi: readAbi(join(dir, 'abi_version')) };
}

/**
 * Reads electron's `abi_version` file: the bare number (no newline), e.g. `150`.
 * @param {string} file
 * @returns {string}
 */
export function readAbi(file) {
  const abi = readFileSync(file, 'utf8').trim();
  if (!/^\d+$/.test(abi)) throw new Error(`${file} does not hold an ABI number (found "${abi.slice(0, 40)}")`);
  return abi;
}

/**
 * Where the Electron executable is, as electron's own index.js finds it — path.txt (written by its installer), and
 * ELECTRON_OVERRIDE_DIST_PATH, which Electron honours — but without its fallback of downloading the binary there
 * and then: `npm start` must decide quickly and offline whether the desktop app can run.
 * @param {string} electronDir node_modules/electron
 * @param {NodeJS.ProcessEnv} env
 * @param {NodeJS.Platform} [platform]
 * @returns {{ path: string, present: boolean }}
 */
export function electronBinary(electronDir, env, platform = process.platform) {
  const pathFile = join(electronDir, 'path.txt');
  const recorded = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : undefined;
  const override = env.ELECTRON_OVERRIDE_DIST_PATH;
  // electron/index.js joins the override with path.txt's entry or a bare "electron"; without an override it needs
  // path.txt, which exists only once the binary has been downloaded.
  const path = override ? join(override, recorded || 'electron') : join(electronDir, 'dist', recorded || executableName(platform));
  return { path, present: existsSync(path) };
}

/**
 * @param {NodeJS.Platform} platform
 * @returns {string}
 */
function executableName(platform) {
  if (platform === 'darwin') return 'Electron.app/Contents/MacOS/Electron';
  if (platform === 'win32') return 'electron.exe';
  return 'electron';
}

/**
 * Whether a compiled addon was built for the runtime with this ABI: V8-API addons export
 * `node_register_module_v<ABI>` and the name is in the file's symbol table on every platform. A Node build
 * (v115 for Node 20) loaded into Electron (v150) fails with "was compiled against a different Node.js version".
 * @param {string} file
 * @param {string} abi
 * @returns {boolean}
 */
export function exportsModuleAbi(file, abi) {
  return readFileSync(file).includes(`node_register_module_v${abi}\0`);
}

/**
 * The ABIs a compiled addon registers for (normally one), read from its `node_register_module_v<N>` symbols.
 * @param {string} file
 * @returns {string[]}
 */
export function moduleAbis(file) {
  const text = readFileSync(file).toString('latin1');
  return [...new Set([...text.matchAll(/node_register_module_v(\d+)\0/g)].map((m) => /** @type {string} */ (m[1])))];
}

/**
 * @typedef {object} NativeStamp
 * @property {string} electron      Electron version
 * @property {string} abi
 * @property {string} betterSqlite3 better-sqlite3 version
 * @property {string} platform
 * @property {string} arch
 */

/**
 * What the Electron build of better-sqlite3 must have been made from, for this checkout and machine.
 * @param {ElectronPackage} electron
 * @param {string} [root]
 * @returns {NativeStamp}
 */
export function wantedStamp(electron, root = ROOT) {
  const sqlite = JSON.parse(readFileSync(createRequire(join(root, 'package.json')).resolve('better-sqlite3/package.json'), 'utf8'));
  return { electron: electron.version, abi: electron.abi, betterSqlite3: sqlite.version, platform: process.platform, arch: process.arch };
}

/**
 * Why the Electron build of better-sqlite3 in `nativeDir` cannot be used, or undefined when it can.
 * @param {string} nativeDir
 * @param {NativeStamp} wanted
 * @returns {string | undefined}
 */
export function nativeBuildProblem(nativeDir, wanted) {
  const addon = join(nativeDir, SQLITE_ADDON_NAME);
  if (!existsSync(addon)) return `${join(NATIVE_DIR_NAME, SQLITE_ADDON_NAME)} is not built`;
  if (!exportsModuleAbi(addon, wanted.abi)) {
    const found = moduleAbis(addon);
    return `${join(NATIVE_DIR_NAME, SQLITE_ADDON_NAME)} is not built for Electron's ABI ${wanted.abi} (it registers ${found.length ? found.map((a) => `v${a}`).join(', ') : 'no Node module symbol'})`;
  }
  /** @type {Partial<NativeStamp>} */
  let stamp = {};
  try {
    stamp = JSON.parse(readFileSync(join(nativeDir, NATIVE_STAMP_NAME), 'utf8'));
  } catch {
    return `${join(NATIVE_DIR_NAME, NATIVE_STAMP_NAME)} is missing or unreadable`;
  }
  for (const key of /** @type {(keyof NativeStamp)[]} */ (['electron', 'betterSqlite3', 'platform', 'arch'])) {
    if (stamp[key] !== wanted[key]) return `${join(NATIVE_DIR_NAME, SQLITE_ADDON_NAME)} was built for ${key} ${stamp[key] ?? '?'}, not ${wanted[key]}`;
  }
  return undefined;
}

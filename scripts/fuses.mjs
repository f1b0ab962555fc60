// electron-builder's afterPack hook: flips the packaged Electron's fuses (features compiled into the binary that
// only a rewrite of the binary can change) to the strictest settings Pincer works with, before the app is signed.
// It also refuses to package an app without the Electron build of better-sqlite3, which would not open its database,
// and points the bundled plugins' `pincer/plugin` at the packaged API.
import { flipFuses, FuseV1Options, FuseVersion } from '@electron/fuses';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { electronPackage, exportsModuleAbi, NATIVE_DIR_NAME, NATIVE_STAMP_NAME, ROOT, SQLITE_ADDON_NAME } from './desktop/electron.mjs';

/**
 * Every fuse of the V1 wire, set explicitly (`strictlyRequireAllFuses`: a fuse added by a later Electron fails the
 * build until it is decided here).
 * @type {import('@electron/fuses').FuseV1Config & { strictlyRequireAllFuses: true }}
 */
export const FUSES = {
  version: FuseVersion.V1,
  strictlyRequireAllFuses: true,
  // ON, deliberately: the installed `pincer` command (so MCP clients can run `pincer mcp`, and scripts `pincer call`)
  // runs the CLI on the app's own Node runtime, the app executable with ELECTRON_RUN_AS_NODE=1, and plugin hosts
  // will run the same way; there is no separate Node on a user's machine to rely on. The cost: anyone who can run
  // the executable with that variable gets a Node — but they could run any program as that user anyway.
  [FuseV1Options.RunAsNode]: true,
  // Cookies (the dashboard's owner session) are encrypted at rest with the OS keychain.
  [FuseV1Options.EnableCookieEncryption]: true,
  // Off: NODE_OPTIONS and --inspect would let another program's environment or arguments inject code or attach a
  // debugger to the process that holds the owner's session and decides approvals.
  [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
  [FuseV1Options.EnableNodeCliInspectArguments]: false,
  // app.asar is checked against the hash electron-builder embeds (macOS and Windows), and only app.asar is loaded:
  // a replaced or added app folder next to it is not run.
  [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: true,
  [FuseV1Options.OnlyLoadAppFromAsar]: true,
  // Electron's default; Pincer ships no browser-process V8 snapshot.
  [FuseV1Options.LoadBrowserProcessSpecificV8Snapshot]: false,
  // Off: pages loaded from file:// get no more than a browser gives them (the windows load the gateway's own
  // http://127.0.0.1 pages, not files).
  [FuseV1Options.GrantFileProtocolExtraPrivileges]: false,
  // Electron's default (on): WebAssembly (the shell-command parser) runs with guard pages instead of bounds checks.
  [FuseV1Options.WasmTrapHandlers]: true,
};

/**
 * @typedef {object} PackContext the part of electron-builder's AfterPackContext this hook reads
 * @property {string} appOutDir
 * @property {string} electronPlatformName "linux" | "darwin" | "mas" | "win32"
 * @property {{ executableName: string, appInfo: { productFilename: string } }} packager
 */

/**
 * The file whose fuses are flipped, where electron-builder puts it (the .app bundle on macOS: @electron/fuses finds
 * the Electron Framework inside).
 * @param {PackContext} context
 * @returns {string}
 */
export function electronExecutable({ appOutDir, electronPlatformName, packager }) {
  if (electronPlatformName === 'darwin' || electronPlatformName === 'mas') return join(appOutDir, `${packager.appInfo.productFilename}.app`);
  if (electronPlatformName === 'win32') return join(appOutDir, `${packager.appInfo.productFilename}.exe`);
  return join(appOutDir, packager.executableName);
}

/**
 * The packaged resources folder (native/ and the `pincer` launcher are copied there as extraResources).
 * @param {PackContext} context
 * @returns {string}
 */
export function resourcesDir({ appOutDir, electronPlatformName, packager }) {
  if (electronPlatformName === 'darwin' || electronPlatformName === 'mas') return join(appOutDir, `${packager.appInfo.productFilename}.app`, 'Contents', 'Resources');
  return join(appOutDir, 'resources');
}

/**
 * Fails the build when the packaged better-sqlite3 addon is missing, not built for this Electron, or built for
 * another platform (native code is not cross-compiled: package each platform on that platform).
 * @param {PackContext} context
 * @param {{ abi: string, builtOn?: string }} built Electron's ABI; the platform native/electron was built on
 */
export function checkPackagedAddon(context, { abi, builtOn }) {
  const addon = join(resourcesDir(context), 'native', SQLITE_ADDON_NAME);
  const again = 'run "node scripts/electron-native.mjs --require" (npm run dist does) before packaging';
  if (!existsSync(addon)) throw new Error(`${addon} is missing: ${again}`);
  if (!exportsModuleAbi(addon, abi)) throw new Error(`${addon} is not built for Electron's ABI ${abi}: ${again}`);
  const platform = context.electronPlatformName === 'mas' ? 'darwin' : context.electronPlatformName;
  if (builtOn && builtOn !== platform) throw new Error(`${addon} was built on ${builtOn}, not ${platform}: package for ${platform} on ${platform}`);
}

/**
 * Bundled plugins import `pincer/plugin` through plugins/node_modules/pincer, which in the repository re-exports
 * dist/server/plugin-api.js. In the package the plugins sit in resources/ and the API in resources/app.asar.unpacked.
 * @param {PackContext} context
 */
export function pointBundledPluginsAtApi(context) {
  const shim = join(resourcesDir(context), 'plugins', 'node_modules', 'pincer', 'plugin.js');
  if (!existsSync(shim)) throw new Error(`${shim} is missing: the bundled plugins were not copied into the package`);
  writeFileSync(shim, "// The packaged app's plugin API (unpacked beside app.asar).\nexport * from '../../../app.asar.unpacked/dist/server/plugin-api.js';\n");
}

/**
 * @param {PackContext} context
 * @param {{ abi?: string, builtOn?: string }} [built] default: the installed Electron's ABI, and the platform
 *   native/electron/build.json records
 */
export async function afterPack(context, built = {}) {
  const abi = built.abi ?? electronPackage()?.abi;
  if (!abi) throw new Error('the electron package is not installed, so its ABI is unknown');
  const builtOn = 'builtOn' in built ? built.builtOn : stampedPlatform();
  checkPackagedAddon(context, { abi, builtOn });
  pointBundledPluginsAtApi(context);
  // An arm64 Mac refuses to run a binary whose ad-hoc signature no longer matches; signing, if configured, follows.
  const mac = context.electronPlatformName === 'darwin' || context.electronPlatformName === 'mas';
  await flipFuses(electronExecutable(context), { ...FUSES, resetAdHocDarwinSignature: mac });
}

export default afterPack;

/** @returns {string | undefined} */
function stampedPlatform() {
  try {
    return JSON.parse(readFileSync(join(ROOT, NATIVE_DIR_NAME, NATIVE_STAMP_NAME), 'utf8')).platform;
  } catch {
    return undefined;
  }
}


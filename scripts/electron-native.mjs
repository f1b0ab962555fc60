#!/usr/bin/env node
// Builds better-sqlite3 for Electron into native/electron/, leaving node_modules' Node build (the tests') alone.
//
//   node scripts/electron-native.mjs            `npm start`: does nothing unless Electron's binary is here
//   node scripts/electron-native.mjs --require  `npm run dist`: builds whether or not, and fails loudly
//
// better-sqlite3 uses the V8 API, so Node 20 (ABI 115) and Electron (ABI 150 for 45) each need their own build.
// The build is made in a throw-away copy of the package, never in node_modules: a failed Electron rebuild deletes
// the package's build folder, and every test would then fail with "Could not locate the bindings file".
import { cpSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import {
  electronBinary,
  electronPackage,
  exportsModuleAbi,
  moduleAbis,
  NATIVE_DIR_NAME,
  NATIVE_STAMP_NAME,
  nativeBuildProblem,
  ROOT,
  SQLITE_ADDON_NAME,
  wantedStamp,
} from './desktop/electron.mjs';

/**
 * npm hands its `nodedir` setting to scripts as npm_config_nodedir; node-gyp would then compile against those
 * (Node's) headers while @electron/rebuild labels the result as Electron's: a build that loads in neither.
 * Removes the setting, in any spelling, from `env` (in place); returns the names removed.
 * @param {NodeJS.ProcessEnv} env
 * @returns {string[]}
 */
export function dropNodedir(env) {
  const names = Object.keys(env).filter((key) => /^(npm_config_)?nodedir$/i.test(key));
  for (const name of names) delete env[name];
  return names;
}

/**
 * Keeps the build only if it registers Electron's ABI; a wrong one is deleted, so it is never loaded.
 * @param {string} addon
 * @param {string} abi
 * @returns {string | undefined} the problem, when the build was wrong
 */
export function keepIfAbiMatches(addon, abi) {
  if (exportsModuleAbi(addon, abi)) return undefined;
  const found = moduleAbis(addon);
  rmSync(addon, { force: true });
  return `the build registers ${found.length ? found.map((a) => `node_register_module_v${a}`).join(', ') : 'no node_register_module symbol'}, not node_register_module_v${abi}; it was removed`;
}

/**
 * Builds better-sqlite3 for Electron with @electron/rebuild in `<native>/.build`, checks its ABI and moves it to
 * `<native>/electron/`, with a stamp saying what it was built from.
 * @param {{ root?: string, log?: (line: string) => void }} [options]
 */
export async function buildForElectron({ root = ROOT, log = console.log } = {}) {
  const electron = electronPackage(root);
  if (!electron) throw new Error('Electron is not installed (npm install without --omit=dev)');
  const wanted = wantedStamp(electron, root);
  const target = join(root, NATIVE_DIR_NAME);
  const work = join(dirname(target), '.build');
  rmSync(work, { recursive: true, force: true });
  const sqliteDir = dirname(createRequire(join(root, 'package.json')).resolve('better-sqlite3/package.json'));
  const copy = join(work, 'node_modules', 'better-sqlite3');
  // The sources only: the Node build stays where it is. The copy sits inside the checkout so @electron/rebuild
  // finds prebuild-install in the project's node_modules as it walks up.
  const nodeBuild = join(sqliteDir, 'build');
  cpSync(sqliteDir, copy, { recursive: true, filter: (from) => from !== nodeBuild && !from.startsWith(nodeBuild + sep) });
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'pincer-native-build', private: true, dependencies: { 'better-sqlite3': wanted.betterSqlite3 } }));

  // @electron/rebuild runs node-gyp with this process's environment.
  dropNodedir(process.env);
  log(`electron-native: building better-sqlite3 ${wanted.betterSqlite3} for Electron ${electron.version} (ABI ${electron.abi}) in ${NATIVE_DIR_NAME}/…`);
  const { rebuild } = await import('@electron/rebuild');
  await rebuild({ buildPath: work, projectRootPath: work, electronVersion: electron.version, onlyModules: ['better-sqlite3'], force: true, mode: 'sequential' });

  const built = join(copy, 'build', 'Release', SQLITE_ADDON_NAME);
  if (!existsSync(built)) throw new Error(`@electron/rebuild finished but left no ${SQLITE_ADDON_NAME}`);
  const wrong = keepIfAbiMatches(built, electron.abi);
  if (wrong) throw new Error(wrong);
  mkdirSync(target, { recursive: true });
  renameSync(built, join(target, SQLITE_ADDON_NAME));
  writeFileSync(join(target, NATIVE_STAMP_NAME), `${JSON.stringify(wanted, null, 2)}\n`);
  rmSync(work, { recursive: true, force: true });
  log(`electron-native: built ${join(NATIVE_DIR_NAME, SQLITE_ADDON_NAME)} (exports node_register_module_v${electron.abi}).`);
}

/**
 * What `npm start` (and `npm run dist`, with `require`) does before launching: nothing when the build is current,
 * nothing without Electron's binary (unless required), else the build. Returns the exit code.
 * @param {{ require?: boolean, root?: string, env?: NodeJS.ProcessEnv, log?: (line: string) => void }} [options]
 * @returns {Promise<number>}
 */
export async function prepare({ require = false, root = ROOT, env = process.env, log = console.log } = {}) {
  const electron = electronPackage(root);
  if (!electron) {
    if (require) log('electron-native: Electron is not installed; install the dev dependencies first.');
    return require ? 1 : 0;
  }
  // Checked before anything is built: without the binary the app cannot run, and the headers download the
  // build needs fails on the same machines.
  if (!require && !electronBinary(electron.dir, env).present) return 0;
  const target = join(root, NATIVE_DIR_NAME);
  const problem = nativeBuildProblem(target, wantedStamp(electron, root));
  if (!problem) return 0;
  log(`electron-native: ${problem}.`);
  const addon = join(target, SQLITE_ADDON_NAME);
  if (existsSync(addon) && !exportsModuleAbi(addon, electron.abi)) rmSync(addon, { force: true });
  try {
    await buildForElectron({ root, log });
    return 0;
  } catch (error) {
    rmSync(join(dirname(target), '.build'), { recursive: true, force: true });
    log(`electron-native: could not build better-sqlite3 for Electron: ${/** @type {Error} */ (error).message}`);
    return require ? 1 : 0;
  }
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  process.exitCode = await prepare({ require: process.argv.includes('--require') });
}

// `npm start` decides between the desktop app and the headless gateway (docs/desktop.md): the facts, then the decision.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { electronBinary, electronPackage, MAIN_ENTRY, NATIVE_DIR_NAME, nativeBuildProblem, ROOT, wantedStamp } from './electron.mjs';

/**
 * What the decision needs to know, gathered by desktopFacts (or written out by a test).
 * @typedef {object} DesktopFacts
 * @property {NodeJS.Platform} platform
 * @property {boolean} electronInstalled the electron package is in node_modules
 * @property {string | undefined} electron the Electron executable, when it is present
 * @property {boolean} display a window can be shown (always true off Linux and the BSDs)
 * @property {string | undefined} nativeProblem why the Electron build of better-sqlite3 cannot be used
 * @property {boolean} mainBuilt the compiled main process exists
 */

/**
 * @typedef {{ launch: true, electron: string } | { launch: false, reason: string }} DesktopPlan
 */

/**
 * Whether the desktop app can start, and if not, why — in words a person can act on.
 * @param {DesktopFacts} facts
 * @returns {DesktopPlan}
 */
export function desktopPlan(facts) {
  if (!facts.electronInstalled) return { launch: false, reason: 'Electron is not installed (dev dependencies were left out)' };
  if (!facts.electron) return { launch: false, reason: `Electron's binary is not downloaded yet (run "npx install-electron" to fetch it)` };
  if (!facts.display) return { launch: false, reason: 'there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set)' };
  if (facts.nativeProblem) return { launch: false, reason: `${facts.nativeProblem} ("npm start" builds it before launching: see its messages above)` };
  if (!facts.mainBuilt) return { launch: false, reason: `${MAIN_ENTRY} is not built (run "npm run build")` };
  return { launch: true, electron: facts.electron };
}

/**
 * Whether this session can show a window. macOS and Windows always have a desktop; elsewhere an X or Wayland
 * display must be named.
 * @param {NodeJS.Platform} platform
 * @param {NodeJS.ProcessEnv} env
 * @returns {boolean}
 */
export function hasDisplay(platform, env) {
  if (platform === 'darwin' || platform === 'win32') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/**
 * Looks at this checkout and environment; reads files, starts nothing and downloads nothing.
 * @param {{ root?: string, env?: NodeJS.ProcessEnv, platform?: NodeJS.Platform }} [where]
 * @returns {DesktopFacts}
 */
export function desktopFacts({ root = ROOT, env = process.env, platform = process.platform } = {}) {
  const electron = electronPackage(root);
  const binary = electron && electronBinary(electron.dir, env, platform);
  let nativeProblem;
  if (electron) {
    try {
      nativeProblem = nativeBuildProblem(join(root, NATIVE_DIR_NAME), wantedStamp(electron, root));
    } catch (error) {
      nativeProblem = `the Electron build of better-sqlite3 cannot be checked (${/** @type {Error} */ (error).message})`;
    }
  }
  return {
    platform,
    electronInstalled: Boolean(electron),
    electron: binary?.present ? binary.path : undefined,
    display: hasDisplay(platform, env),
    nativeProblem,
    mainBuilt: existsSync(join(root, MAIN_ENTRY)),
  };
}

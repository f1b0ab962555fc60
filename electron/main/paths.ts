import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app } from 'electron';
import type { TrayIcon } from './tray-menu.js';

/** The app's root: the repository in development, app.asar when packaged (this file is dist/electron/main/paths.js). */
const APP_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export const PRELOAD_FILE = fileURLToPath(new URL('../preload/preload.cjs', import.meta.url));

export function trayIconFile(icon: TrayIcon): string {
  return join(APP_ROOT, 'assets', 'tray', `${icon}.png`);
}

/**
 * better-sqlite3 built for Electron's ABI (node_modules keeps the Node build the tests and the CLI use):
 * `npm start` builds it into native/electron/, packaging ships it as a resource. Under plain Node (the shell's
 * tests) node_modules' own build is the right one.
 */
export function electronSqliteBinding(): string | undefined {
  if (!process.versions.electron) return undefined;
  return app.isPackaged ? join(process.resourcesPath, 'native', 'better_sqlite3.node') : join(APP_ROOT, 'native', 'electron', 'better_sqlite3.node');
}

/** Packaged, the bundled plugins are real files in resources/plugins; unpackaged, the gateway finds its own. */
export function bundledPluginsDir(): string | undefined {
  return app.isPackaged ? join(process.resourcesPath, 'plugins') : undefined;
}

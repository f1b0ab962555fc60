import { join } from 'node:path';
import { PACKAGE_ROOT } from '../version.js';

/** A file or folder of this package (the repository, or app.asar in the desktop app): `plugins/`, `package.json`. */
export function packagePath(...parts: string[]): string {
  return join(PACKAGE_ROOT, ...parts);
}

/** A file of the build, whether the gateway runs compiled or from its sources: `builtPath('renderer')`. */
export function builtPath(...parts: string[]): string {
  return join(PACKAGE_ROOT, 'dist', ...parts);
}

import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Compiled, this file is dist/server/util/package-files.js; run from the TypeScript sources (tests, tsx), it is not. */
const COMPILED = /[\\/]dist[\\/]server[\\/]/.test(fileURLToPath(import.meta.url));
const ROOT = fileURLToPath(new URL(COMPILED ? '../../../' : '../../', import.meta.url));

/** A file or folder of this package (the repository, or app.asar in the desktop app): `plugins/`, `package.json`. */
export function packagePath(...parts: string[]): string {
  return join(ROOT, ...parts);
}

/** A file of the build, whether the gateway runs compiled or from its sources: `builtPath('renderer')`. */
export function builtPath(...parts: string[]): string {
  return join(ROOT, 'dist', ...parts);
}

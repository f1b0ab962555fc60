import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { realOrResolved } from '../util/real-path.js';
import { isWithin } from './within.js';

export { realOrResolved };

/** The root folders of path-guard.ts: checked and realpath'd when they are set, and the one that holds a path. */

/** Root folders that went through PathGuard's checks (they exist, are folders, are realpath'd): only these can be put to use. */
export type CheckedRoots = readonly string[] & { readonly __checked: unique symbol };

/**
 * Realpaths roots and drops duplicates; refuses a root that is missing, not a folder, or at or inside a protected
 * or read-only folder. A root that contains one is fine: the folder inside it stays refused path by path.
 */
export function checkRoots(roots: readonly string[], protectedDirs: readonly string[], readOnlyDirs: readonly string[]): CheckedRoots {
  const real: string[] = [];
  for (const root of roots) {
    let resolved: string;
    try {
      resolved = realpathSync.native(path.resolve(root));
    } catch (error) {
      throw new Error(`The root folder "${root}" does not exist or cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
    }
    if (!statSync(resolved).isDirectory()) throw new Error(`The root "${root}" is not a folder.`);
    // Security: a root inside the data folder would offer tools the tokens, database and config to work on; the
    // protected check would refuse each path anyway, but a root there is never what the owner meant.
    const inside = protectedDirs.find((dir) => isWithin(resolved, dir, true));
    if (inside !== undefined) {
      throw new Error(`The root "${root}" is ${resolved === inside ? '' : 'inside '}Pincer's own data folder (${inside}), which no tool may touch; choose a folder outside it.`);
    }
    // Security: a root at or inside Pincer's code offers tools nothing to write there, only a way to run as Pincer.
    const code = readOnlyDirs.find((dir) => isWithin(resolved, dir, true));
    if (code !== undefined) {
      throw new Error(
        `The root "${root}" is ${resolved === code ? '' : 'inside '}Pincer's own code (${code}: its package or bundled plugins), which no tool may change; choose a folder of your own work.`,
      );
    }
    if (!real.includes(resolved)) real.push(resolved);
  }
  return real as readonly string[] as CheckedRoots;
}

/** The innermost root that holds a real path, if any. */
export function containingRoot(roots: readonly string[], resolved: string): string | undefined {
  let best: string | undefined;
  for (const root of roots) if (isWithin(resolved, root) && (best === undefined || root.length > best.length)) best = root;
  return best;
}



import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Where a path really leads: every link followed, or the resolved path when it does not exist (yet). Security checks
 * compare these, never the names as written: a link is how a folder is made to look like another.
 */
export function realOrResolved(path: string): string {
  const resolved = resolve(path);
  try {
    return realpathSync.native(resolved);
  } catch {
    return resolved;
  }
}

import path from 'node:path';

/**
 * Containment, the one check every path judgement rests on: `child` is within `folder` when it is the folder itself
 * or below it. Security: compared by whole path segments after `.`, `..`, repeated and trailing separators are
 * resolved, never as a string prefix — `/tmp/root-evil` is not inside `/tmp/root`, and `/tmp/root/../etc` is not
 * inside it either. Symlinks are not followed here: callers pass real paths when links matter (PathGuard and the
 * shell analysis resolve them first). `ignoreCase` compares as a case-insensitive disk would (Pincer's data folder
 * on macOS or Windows). Relative paths are taken from the working directory, as the file system would.
 */
export function isWithin(child: string, folder: string, ignoreCase = false): boolean {
  const fold = (p: string) => (ignoreCase ? path.resolve(p).toLowerCase() : p);
  const relative = path.relative(fold(folder), fold(child));
  if (relative === '') return true;
  // `..`, or `../x`: above the folder. A name that merely starts with two dots (`..cache`) is below it.
  if (relative === '..' || relative.startsWith(`..${path.sep}`)) return false;
  // On Windows a different drive comes back absolute.
  return !path.isAbsolute(relative);
}

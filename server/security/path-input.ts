import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { PolicyDecision } from '../decision.js';
import type { Target } from './inside-root.js';
import { homeShorthand, invalid, noRoots, outsideRoots, printable } from './path-refusals.js';
import { lstatOrNull, PathProblem, walk } from './path-walk.js';

/**
 * The path as a tool call gives it, read the way path-guard.ts judges it: its shape, as an absolute path, and
 * resolved as the kernel would resolve it for the kind of access.
 */

export type PathAccess = 'read' | 'write' | 'delete' | 'list';

export const MAX_PATH_LENGTH = 4096;

// Security: control characters (newlines, escapes, bidi overrides) in a name can make an approval prompt or the
// log show a different path from the one acted on.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** The path as a string worth resolving, or why it is not one. */
export function checkShape(input: unknown, roots: readonly string[]): string | PolicyDecision {
  if (typeof input !== 'string') return invalid('The path must be a string, for example "notes/todo.md".');
  if (input.trim() === '') return invalid('The path is empty. Give a file or folder path, for example "notes/todo.md" or "." for the root.');
  if (input.includes('\0')) return invalid('The path contains a NUL byte, which no real file name has. Remove it.');
  if (input.length > MAX_PATH_LENGTH) return invalid(`The path is ${input.length} characters long; the limit is ${MAX_PATH_LENGTH}.`);
  // " /etc/passwd" would otherwise be a folder named " " inside the root: never what the model meant.
  if (input.trim() !== input) {
    return invalid(`"${printable(input)}" starts or ends with white space. Remove it; file names here never need it.`);
  }
  if (input.startsWith('~')) {
    if (roots.length === 0) return noRoots(`"${printable(input)}"`);
    return homeShorthand(input, roots);
  }
  return input;
}

/** The path as an absolute one (a relative path starts at the first root), or why it cannot be one. */
export function absolutePath(shape: string, roots: readonly string[]): string | PolicyDecision {
  let absolute: string;
  const normalized = shape.replaceAll('\\', '/');
  if (/^file:\/\//i.test(normalized)) {
    try {
      absolute = fileURLToPath(normalized);
    } catch {
      return invalid(`"${printable(shape)}" is not a valid file:// URL. Pass a plain path instead.`);
    }
  } else if (/^[a-z]:(\/|$)/i.test(normalized)) {
    return outsideRoots(roots, `"${printable(shape)}"`, 'it is a Windows drive path, and this machine does not use drive letters');
  } else if (path.isAbsolute(normalized)) {
    absolute = normalized;
  } else {
    // A relative path starts at the first root; with none, there is nowhere it could lead.
    if (roots.length === 0) return noRoots(`"${printable(shape)}"`);
    absolute = `${roots[0]}/${normalized}`;
  }
  // A trailing slash names the same entry; dropping it keeps "link/" a link for write and delete.
  absolute = absolute.replace(/\/+$/, '') || '/';
  if (CONTROL.test(absolute)) return invalid(`"${printable(shape)}" contains control characters. Use a path without them.`);
  return absolute;
}

/**
 * Resolves the path as the kernel would. Read and list follow every link; write and delete act on the last name
 * itself: a symlink there is refused (write) or removed (delete), never followed. Fails closed: a path that cannot
 * be resolved is one nobody can vouch for.
 */
export async function resolveTarget(shape: string, absolute: string, access: PathAccess): Promise<Target | { decision: PolicyDecision }> {
  try {
    const lastName = path.basename(absolute);
    const followLast = access === 'read' || access === 'list' || lastName === '' || lastName === '.' || lastName === '..';
    if (followLast) {
      const { real, exists } = await walk(absolute);
      return { resolved: real, exists, finalIsLink: false };
    }
    if (Buffer.byteLength(lastName) > 255) throw new PathProblem('a name in the path is longer than 255 bytes.');
    const parent = await walk(path.dirname(absolute));
    const resolved = path.join(parent.real, lastName);
    if (!parent.exists) return { resolved, exists: false, finalIsLink: false };
    const stat = await lstatOrNull(resolved);
    return { resolved, exists: stat !== null, finalIsLink: stat?.isSymbolicLink() ?? false };
  } catch (error) {
    if (error instanceof PathProblem) return { decision: invalid(`"${printable(shape)}": ${error.message}`) };
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return { decision: invalid(`"${printable(shape)}" could not be resolved (${code}). Check the path with file_list.`) };
  }
}

/** A path as a person reads it: the root it lies in (shown muted) and the part below that root. */
export interface RootedPath {
  /** The root the path lies in; null when no root contains it (or the roots are unknown). */
  root: string | null;
  /** The path below the root ('.' for the root itself); the whole path when root is null. */
  relative: string;
}

const isAbsolute = (path: string) => path.startsWith('/') || path.startsWith('\\\\') || /^[A-Za-z]:[\\/]/.test(path);
const separatorOf = (path: string) => (path.includes('\\') && !path.includes('/') ? '\\' : '/');
const trimEnd = (path: string) => (path.length > 1 && /[\\/]$/.test(path) && !/^[A-Za-z]:[\\/]$/.test(path) ? path.slice(0, -1) : path);

/**
 * Splits `path` at the deepest root containing it. A relative path starts at the first root, as the file tools
 * read it. With no roots (the gateway did not say), the path is shown whole.
 */
export function relativeToRoot(path: string, roots: readonly string[]): RootedPath {
  if (roots.length === 0) return { root: null, relative: path };
  if (!isAbsolute(path)) {
    const relative = path.replace(/^\.[\\/]/, '');
    return { root: trimEnd(roots[0]!), relative: relative === '' ? '.' : relative };
  }
  const windows = /^[A-Za-z]:|^\\\\/.test(path);
  const same = (a: string, b: string) => (windows ? a.toLowerCase() === b.toLowerCase() : a === b);
  const clean = trimEnd(path);
  let best: RootedPath | null = null;
  for (const raw of roots) {
    const root = trimEnd(raw);
    if (same(clean, root)) return { root, relative: '.' };
    // A sibling with the root as prefix (/home/me/project-old for /home/me/project) is not inside it.
    const prefix = withSeparator(root);
    if (same(clean.slice(0, prefix.length), prefix) && (!best || root.length > best.root!.length)) {
      best = { root, relative: clean.slice(prefix.length) };
    }
  }
  return best ?? { root: null, relative: path };
}

/** The root with a separator after it, for showing "root/" before the relative part. */
export function withSeparator(root: string): string {
  const sep = separatorOf(root);
  return root.endsWith(sep) ? root : root + sep;
}

/**
 * Imports a renderer module at run time, out of tsc's sight.
 *
 * The renderer is built with bundler resolution, so its modules import each other without extensions
 * (`'../../lib/types'`). The root tsconfig checks test/ with NodeNext, which rejects such an import (TS2835) in every
 * renderer file a test imports statically, and it has no DOM lib. Vitest resolves them fine. So modules with no
 * relative imports (renderer/src/lib/*) are imported statically, and the others through this function, typed by the
 * test with the signatures it relies on.
 */
export async function importRenderer<T>(path: string): Promise<T> {
  const url = new URL(`../../renderer/src/${path}`, import.meta.url);
  return (await import(/* @vite-ignore */ url.href)) as T;
}

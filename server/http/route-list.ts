import type { Express } from 'express';

export interface RouteEntry {
  /** Upper case; ALL for a route that takes every method. */
  method: string;
  /** As declared, with its parameters (`/tools/:name/execute`). */
  path: string;
}

/** What Express 5's router keeps of a layer (not in its published types). */
interface Layer {
  rawPath?: unknown;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** Every route the app declares, routers mounted in it included, in the order they are matched. */
export function listRoutes(app: Express): RouteEntry[] {
  const routes: RouteEntry[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const path of paths.filter((p): p is string => typeof p === 'string')) {
          const full = prefix !== '' && path === '/' ? prefix : prefix + path;
          for (const method of Object.keys(layer.route.methods)) routes.push({ method: method === '_all' ? 'ALL' : method.toUpperCase(), path: full });
        }
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack, prefix + (typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : ''));
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return routes;
}

/**
 * The methods the declared routes take at a concrete path (`/tools/calculate/execute` → POST), with HEAD wherever
 * GET is (Express answers it). Matched as Express matches: case-insensitively, a trailing slash optional, a
 * `:param` standing for one non-empty segment and `*rest` / `{*rest}` for the remaining ones.
 */
export function methodsAt(routes: readonly RouteEntry[], path: string): string[] {
  const segments = splitPath(path);
  const methods = new Set<string>();
  for (const route of routes) {
    if (route.method !== 'ALL' && matches(splitPath(route.path), segments)) methods.add(route.method);
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods];
}

function splitPath(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.toLowerCase().split('/').slice(1);
}

function matches(pattern: readonly string[], segments: readonly string[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const part = pattern[i]!;
    if (/^(?:\*\w+|\{\*\w+\})$/.test(part)) return segments.length > i;
    const segment = segments[i];
    if (segment === undefined) return false;
    if (part.startsWith(':') ? segment === '' : part !== segment) return false;
  }
  return pattern.length === segments.length;
}

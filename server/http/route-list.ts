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
          for (const method of Object.keys(layer.route.methods)) routes.push({ method: method === '_all' ? 'ALL' : method.toUpperCase(), path: prefix + path });
        }
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack, prefix + (typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : ''));
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return routes;
}

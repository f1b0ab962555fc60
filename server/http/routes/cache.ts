import { Router } from 'express';
import { refuse } from '../../errors.js';
import type { CacheCleared, CacheReport } from '../../contract/cache.js';
import type { ResultCache } from '../../executor/cache.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { requireOwner } from '../identity.js';
import { badQuery, queryKeyProblems } from '../query.js';

/**
 * The result cache: anyone may see how it does; only the owner empties it (a client emptying it would only make
 * every other client's repeated reads slower and costlier).
 */
export function cacheRoutes(cache: ResultCache, registry: ToolRegistry): Router {
  const router = Router();

  router.get('/cache', (_req, res) => {
    const used = new Map(cache.toolStats().map((t) => [t.tool, t]));
    // Every tool that declares a cache is listed, used or not, with how long its answers are kept.
    const cacheable = registry.list().flatMap((t) => (t.definition.cache ? [[t.definition.name, t.definition.cache.ttl_s] as const] : []));
    const ttl = new Map(cacheable);
    const names = [...new Set([...ttl.keys(), ...used.keys()])].sort();
    const tools = names.map((tool) => ({
      ...(used.get(tool) ?? { tool, size: 0, hits: 0, misses: 0, evictions: 0, expirations: 0, hit_rate: null }),
      ttl_s: ttl.get(tool) ?? null,
    }));
    res.json({ ...cache.stats(), tools } satisfies CacheReport);
  });

  router.delete('/cache', requireOwner, (req, res) => {
    const query = req.query as Record<string, unknown>;
    const problems = queryKeyProblems(query, ['tool'], 'parameter');
    const tool = query.tool;
    if (tool !== undefined && (typeof tool !== 'string' || tool === '')) problems.push('tool must be a tool name');
    if (problems.length > 0) throw badQuery(problems);
    if (typeof tool === 'string' && !registry.get(tool) && !cache.toolStats().some((t) => t.tool === tool)) throw refuse.toolNotFound(tool);
    const cleared = cache.clear(tool as string | undefined);
    res.json({ cleared, tool: (tool as string | undefined) ?? null, cache: cache.stats() } satisfies CacheCleared);
  });

  return router;
}

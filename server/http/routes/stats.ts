import { Router } from 'express';
import { refuse } from '../../errors.js';
import type { ResultCache } from '../../executor/cache.js';
import type { Store } from '../../store/index.js';
import type { ToolRegistry } from '../../tools/registry.js';

const DAY_MS = 24 * 3600_000;
const BUCKET_MS = 3600_000;

export function statsRoutes(store: Store, registry: ToolRegistry, cache: ResultCache): Router {
  const router = Router();

  router.get('/stats', (_req, res) => {
    // Tools that are registered, and tools that are gone but still have history.
    const names = [...new Set([...registry.list().map((t) => t.definition.name), ...store.calls.toolNames()])].sort();
    const tools = names.map((name) => store.calls.toolStats(name));
    const sum = (pick: (t: (typeof tools)[number]) => number) => tools.reduce((n, t) => n + pick(t), 0);
    const since = Date.now() - DAY_MS;
    res.json({
      totals: {
        calls: sum((t) => t.calls),
        succeeded: sum((t) => t.succeeded),
        failed: sum((t) => t.failed),
        refused: sum((t) => t.refused),
        denied: sum((t) => t.denied),
        cache_hits: sum((t) => t.cache_hits),
      },
      tools,
      over_time: { since: new Date(since).toISOString(), bucket_s: BUCKET_MS / 1000, buckets: store.calls.overTime(since, BUCKET_MS) },
      cache: cache.stats(),
    });
  });

  router.get('/stats/tools/:name', (req, res) => {
    const name = req.params.name;
    if (!registry.get(name) && !store.calls.hasRun(name)) throw refuse.toolNotFound(name);
    res.json(store.calls.toolStats(name));
  });

  return router;
}

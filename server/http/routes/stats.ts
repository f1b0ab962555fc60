import { Router } from 'express';
import { refuse } from '../../errors.js';
import type { ResultCache } from '../../executor/cache.js';
import type { Store, TimeBucket } from '../../store/index.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { badQuery, queryKeyProblems } from '../query.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/**
 * Windows for "calls over time", each cut into a few dozen buckets so a chart has enough bars to show a shape
 * and few enough to read. `24h` in hours is the default (and what /stats answered before ranges existed).
 */
const RANGES = {
  '1h': { spanMs: HOUR_MS, bucketMs: MINUTE_MS },
  '24h': { spanMs: 24 * HOUR_MS, bucketMs: HOUR_MS },
  '7d': { spanMs: 7 * 24 * HOUR_MS, bucketMs: 6 * HOUR_MS },
} as const;

export type StatsRange = keyof typeof RANGES;
export const STATS_RANGES = Object.keys(RANGES) as StatsRange[];
const DEFAULT_RANGE: StatsRange = '24h';

export function statsRoutes(store: Store, registry: ToolRegistry, cache: ResultCache): Router {
  const router = Router();

  router.get('/stats', (req, res) => {
    const range = parseRange(req.query as Record<string, unknown>);
    // Tools that are registered, and tools that are gone but still have history.
    const names = [...new Set([...registry.list().map((t) => t.definition.name), ...store.calls.toolNames()])].sort();
    const tools = names.map((name) => store.calls.toolStats(name));
    const sum = (pick: (t: (typeof tools)[number]) => number) => tools.reduce((n, t) => n + pick(t), 0);
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
      over_time: overTime(store, range, Date.now()),
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

function parseRange(query: Record<string, unknown>): StatsRange {
  const problems = queryKeyProblems(query, ['range'], 'parameter');
  const range = query.range;
  if (typeof range === 'string' && !Object.hasOwn(RANGES, range)) problems.push(`range must be one of ${STATS_RANGES.join(', ')}, not "${range}"`);
  if (problems.length > 0) throw badQuery(problems, { allowed: { range: STATS_RANGES } });
  return (range as StatsRange | undefined) ?? DEFAULT_RANGE;
}

/**
 * Calls per bucket over the range, oldest first. Buckets are aligned to whole bucket lengths (the last one is
 * the one `now` falls in) and every bucket is present, zeros included, so a chart's time axis has no gaps.
 */
function overTime(store: Store, range: StatsRange, now: number) {
  const { spanMs, bucketMs } = RANGES[range];
  const count = spanMs / bucketMs;
  const since = Math.floor(now / bucketMs) * bucketMs - (count - 1) * bucketMs;
  const found = new Map(store.calls.overTime(since, bucketMs).map((b) => [b.at, b]));
  const buckets: TimeBucket[] = [];
  for (let i = 0; i < count; i++) {
    const at = new Date(since + i * bucketMs).toISOString();
    buckets.push(found.get(at) ?? { at, calls: 0, failed: 0 });
  }
  return { since: new Date(since).toISOString(), bucket_s: bucketMs / 1000, range, buckets };
}

import { Router } from 'express';
import { refuse } from '../../errors.js';
import type { ClientStatsReport, StatsRange, StatsReport } from '../../contract/stats.js';
import type { ResultCache } from '../../executor/cache.js';
import type { ClientStats, Store, TimeBucket, ToolStats } from '../../store/index.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { callView } from '../call-privacy.js';
import { identityOf } from '../identity.js';
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
} as const satisfies Record<StatsRange, { spanMs: number; bucketMs: number }>;

export type { StatsRange } from '../../contract/stats.js';
export const STATS_RANGES = Object.keys(RANGES) as StatsRange[];
const DEFAULT_RANGE: StatsRange = '24h';

export function statsRoutes(store: Store, registry: ToolRegistry, cache: ResultCache): Router {
  const router = Router();

  /**
   * The range (default the last 24 hours) bounds everything: the totals, the per-tool (or, with `by=client`,
   * per-client) figures and the chart; the cache figures are since the gateway started. A client limited to its own
   * calls gets the figures of its own calls only.
   */
  router.get('/stats', (req, res) => {
    const { range, by } = parseStatsQuery(req.query as Record<string, unknown>, ['range', 'by']);
    const only = ownCallsOf(store, res);
    const now = Date.now();
    const chart = overTime(store, range, now, only);
    // The chart's first bucket starts the range, so the totals are exactly what its bars add up to.
    const since = Date.parse(chart.since);
    const grouped: { clients: ClientStats[] } | { tools: ToolStats[] } =
      by === 'client'
        ? { clients: store.calls.clientNames(since).filter((client) => only === undefined || client === only).map((client) => store.calls.clientStats(client, since)) }
        : // Tools that are registered, and tools that are gone but still have history.
          { tools: toolNames(store, registry, only).map((name) => store.calls.toolStats(name, since, only)) };
    const rows: (ToolStats | ClientStats)[] = 'clients' in grouped ? grouped.clients : grouped.tools;
    const sum = (pick: (t: ToolStats | ClientStats) => number) => rows.reduce((n, t) => n + pick(t), 0);
    res.json({
      range,
      since: chart.since,
      totals: {
        calls: sum((t) => t.calls),
        succeeded: sum((t) => t.succeeded),
        failed: sum((t) => t.failed),
        refused: sum((t) => t.refused),
        denied: sum((t) => t.denied),
        cache_hits: sum((t) => t.cache_hits),
      },
      ...grouped,
      over_time: chart,
      cache: cache.stats(),
    } satisfies StatsReport | ClientStatsReport);
  });

  router.get('/stats/tools/:name', (req, res) => {
    const name = req.params.name;
    const query = req.query as Record<string, unknown>;
    const { range } = parseStatsQuery(query, ['range']);
    const only = ownCallsOf(store, res);
    if (!registry.get(name) && !store.calls.hasRun(name, only)) throw refuse.toolNotFound(name);
    // Without a range, all of the tool's history, as before ranges existed.
    res.json(store.calls.toolStats(name, query.range === undefined ? undefined : Date.now() - RANGES[range].spanMs, only) satisfies ToolStats);
  });

  return router;
}

const GROUPINGS = ['tool', 'client'] as const;

function parseStatsQuery(query: Record<string, unknown>, known: string[]): { range: StatsRange; by: (typeof GROUPINGS)[number] } {
  const problems = queryKeyProblems(query, known, 'parameter');
  const { range, by } = query;
  if (typeof range === 'string' && !Object.hasOwn(RANGES, range)) problems.push(`range must be one of ${STATS_RANGES.join(', ')}, not "${range}"`);
  if (typeof by === 'string' && !(GROUPINGS as readonly string[]).includes(by)) problems.push(`by must be one of ${GROUPINGS.join(', ')}, not "${by}"`);
  if (problems.length > 0) throw badQuery(problems, { allowed: { range: STATS_RANGES, by: GROUPINGS } });
  return { range: (range as StatsRange | undefined) ?? DEFAULT_RANGE, by: (by as (typeof GROUPINGS)[number] | undefined) ?? 'tool' };
}

/**
 * The client whose calls alone the caller's figures count, or undefined for every client's. Security: the figures
 * name other clients, their tools, error names and last call ids.
 */
function ownCallsOf(store: Store, res: Parameters<typeof identityOf>[0]): string | undefined {
  return callView(identityOf(res), (client) => store.clients.scopes(client)).calls;
}

function toolNames(store: Store, registry: ToolRegistry, client: string | undefined): string[] {
  return [...new Set([...registry.list().map((t) => t.definition.name), ...store.calls.toolNames(client)])].sort();
}

/**
 * Calls per bucket over the range, oldest first. Buckets are aligned to whole bucket lengths (the last one is
 * the one `now` falls in) and every bucket is present, zeros included, so a chart's time axis has no gaps.
 */
function overTime(store: Store, range: StatsRange, now: number, client: string | undefined) {
  const { spanMs, bucketMs } = RANGES[range];
  const count = spanMs / bucketMs;
  const since = Math.floor(now / bucketMs) * bucketMs - (count - 1) * bucketMs;
  const found = new Map(store.calls.overTime(since, bucketMs, client).map((b) => [b.at, b]));
  const buckets: TimeBucket[] = [];
  for (let i = 0; i < count; i++) {
    const at = new Date(since + i * bucketMs).toISOString();
    buckets.push(found.get(at) ?? { at, calls: 0, failed: 0 });
  }
  return { since: new Date(since).toISOString(), bucket_s: bucketMs / 1000, range, buckets };
}

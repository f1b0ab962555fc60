/** The result cache on the wire: `GET /cache`, `DELETE /cache[?tool=]`. */

/** Counters of one tool's cache use. */
export interface CacheCounters {
  hits: number;
  misses: number;
  evictions: number;
  expirations: number;
}

/** The cache as a whole. */
export interface CacheStats extends CacheCounters {
  size: number;
  max_entries: number;
  hit_rate: number | null;
}

/** One tool's part of the cache; `ttl_s` null for a tool that declares none (its answers are from before). */
export interface ToolCacheStats extends CacheCounters {
  tool: string;
  size: number;
  hit_rate: number | null;
  ttl_s: number | null;
}

/** `GET /cache`: the result cache as a whole and per tool (every tool that declares a cache, used or not). */
export interface CacheReport extends CacheStats {
  tools: ToolCacheStats[];
}

/** `DELETE /cache[?tool=]`: how many answers went, and the cache after. */
export interface CacheCleared {
  cleared: number;
  tool: string | null;
  cache: CacheStats;
}

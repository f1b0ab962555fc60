import type { CacheCounters, CacheStats } from '../contract/cache.js';

// The cache's figures are the wire contract's (GET /cache, GET /stats).
export type { CacheCounters, CacheStats } from '../contract/cache.js';

const emptyCounters = (): CacheCounters => ({ hits: 0, misses: 0, evictions: 0, expirations: 0 });

/** The tool a key belongs to: keys are `<tool>\0<arguments>\0<client>` (see callKey and Executor). */
function toolOf(key: string): string {
  const cut = key.indexOf('\u0000');
  return cut === -1 ? key : key.slice(0, cut);
}

function hitRate(c: CacheCounters): number | null {
  const lookups = c.hits + c.misses;
  return lookups === 0 ? null : c.hits / lookups;
}

/** LRU + TTL cache for results of read-only, idempotent tools. */
export class ResultCache {
  readonly #entries = new Map<string, { value: unknown; expiresAt: number }>();
  readonly #total = emptyCounters();
  readonly #byTool = new Map<string, CacheCounters>();
  #maxEntries: number;

  /** `maxEntries` 0 keeps nothing: every lookup misses. */
  constructor(maxEntries = 1000) {
    this.#maxEntries = maxEntries;
  }

  get hits(): number {
    return this.#total.hits;
  }
  get misses(): number {
    return this.#total.misses;
  }
  get evictions(): number {
    return this.#total.evictions;
  }
  get expirations(): number {
    return this.#total.expirations;
  }
  get maxEntries(): number {
    return this.#maxEntries;
  }

  get(key: string, now = Date.now()): { value: unknown } | undefined {
    const entry = this.#entries.get(key);
    if (!entry) {
      this.#count(key, 'misses');
      return undefined;
    }
    this.#entries.delete(key);
    if (entry.expiresAt <= now) {
      this.#count(key, 'expirations');
      this.#count(key, 'misses');
      return undefined;
    }
    this.#entries.set(key, entry); // most recently used goes last
    this.#count(key, 'hits');
    return { value: structuredClone(entry.value) };
  }

  /**
   * Keeps a copy, and `get` hands out copies: a caller (or the handler) that changes a result it was given must
   * not change the answer every later caller gets. A result that cannot be copied is simply not cached.
   */
  set(key: string, value: unknown, ttlMs: number, now = Date.now()): void {
    if (this.#maxEntries === 0) return;
    let copy: unknown;
    try {
      copy = structuredClone(value);
    } catch {
      return;
    }
    this.#entries.delete(key);
    this.#entries.set(key, { value: copy, expiresAt: now + ttlMs });
    this.#trim();
  }

  /** Changes the bound; entries over a smaller one are evicted, least recently used first. */
  resize(maxEntries: number): void {
    this.#maxEntries = maxEntries;
    this.#trim();
  }

  /** Drops one tool's entries (it was toggled or reloaded, or the owner cleared it) or everything; answers how many. */
  clear(tool?: string): number {
    if (tool === undefined) {
      const n = this.#entries.size;
      this.#entries.clear();
      return n;
    }
    let n = 0;
    for (const key of this.#entries.keys()) {
      if (toolOf(key) === tool) {
        this.#entries.delete(key);
        n++;
      }
    }
    return n;
  }

  /**
   * Removes every expired entry, counting each as an expiration. Without it an answer nobody asks for again would
   * hold its memory until enough newer ones pushed it out.
   */
  sweep(now = Date.now()): number {
    let n = 0;
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt <= now) {
        this.#entries.delete(key);
        this.#count(key, 'expirations');
        n++;
      }
    }
    return n;
  }

  /** Sweeps every `intervalMs` without keeping the process alive; call the answer to stop. */
  sweepEvery(intervalMs: number): () => void {
    const timer = setInterval(() => this.sweep(), intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  stats(): CacheStats {
    return { size: this.#entries.size, max_entries: this.#maxEntries, ...this.#total, hit_rate: hitRate(this.#total) };
  }

  /** Per tool that used the cache since the start: entries held now and its counters. */
  toolStats(): ({ tool: string; size: number; hit_rate: number | null } & CacheCounters)[] {
    const sizes = new Map<string, number>();
    for (const key of this.#entries.keys()) sizes.set(toolOf(key), (sizes.get(toolOf(key)) ?? 0) + 1);
    const tools = new Set([...this.#byTool.keys(), ...sizes.keys()]);
    return [...tools].sort().map((tool) => {
      const c = this.#byTool.get(tool) ?? emptyCounters();
      return { tool, size: sizes.get(tool) ?? 0, ...c, hit_rate: hitRate(c) };
    });
  }

  #trim(): void {
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
      this.#count(oldest, 'evictions');
    }
  }

  #count(key: string, counter: keyof CacheCounters): void {
    this.#total[counter]++;
    const tool = toolOf(key);
    let c = this.#byTool.get(tool);
    if (!c) this.#byTool.set(tool, (c = emptyCounters()));
    c[counter]++;
  }
}

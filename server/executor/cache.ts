/** LRU + TTL cache for results of read-only, idempotent tools. */
export class ResultCache {
  readonly #entries = new Map<string, { value: unknown; expiresAt: number }>();
  hits = 0;
  misses = 0;
  evictions = 0;
  expirations = 0;

  constructor(private readonly maxEntries = 1000) {}

  get(key: string, now = Date.now()): { value: unknown } | undefined {
    const entry = this.#entries.get(key);
    if (!entry) {
      this.misses++;
      return undefined;
    }
    this.#entries.delete(key);
    if (entry.expiresAt <= now) {
      this.expirations++;
      this.misses++;
      return undefined;
    }
    this.#entries.set(key, entry); // most recently used goes last
    this.hits++;
    return { value: structuredClone(entry.value) };
  }

  /**
   * Keeps a copy, and `get` hands out copies: a caller (or the handler) that changes a result it was given must
   * not change the answer every later caller gets. A result that cannot be copied is simply not cached.
   */
  set(key: string, value: unknown, ttlMs: number, now = Date.now()): void {
    let copy: unknown;
    try {
      copy = structuredClone(value);
    } catch {
      return;
    }
    this.#entries.delete(key);
    this.#entries.set(key, { value: copy, expiresAt: now + ttlMs });
    while (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
      this.evictions++;
    }
  }

  /** Drops one tool's entries (it was toggled or reloaded) or everything. */
  clear(tool?: string): void {
    if (tool === undefined) return this.#entries.clear();
    for (const key of this.#entries.keys()) if (key.startsWith(`${tool}\u0000`)) this.#entries.delete(key);
  }

  stats() {
    const lookups = this.hits + this.misses;
    return {
      size: this.#entries.size,
      max_entries: this.maxEntries,
      hits: this.hits,
      misses: this.misses,
      hit_rate: lookups === 0 ? null : this.hits / lookups,
      evictions: this.evictions,
      expirations: this.expirations,
    };
  }
}

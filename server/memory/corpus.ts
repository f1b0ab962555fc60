import { ftsPhrase, type IndexedMemory, type MemoryFilter, type MemoryStatistics, type MemoryStore } from '../store/memories.js';

/** BM25 parameters: the values FTS5's bm25() uses. */
export const K1 = 1.2;
export const B = 0.75;

/**
 * How many of one writer's matches are read and scored when ranking for a reader limited to that writer's memories:
 * up to this many the ranking is exact (see Corpus.#candidates past it). At 100,000 memories of one client this
 * costs about what FTS5's ranking of the same query costs the owner.
 */
const WRITER_POOL = 1000;

/**
 * The memories one search ranks over, with their statistics: every memory (a reader who sees them all), or one
 * writer's (a client limited to its own memories).
 *
 * Security: a score depends on corpus statistics — how many memories hold a term, how many there are, their
 * average length — and fuzzy and prefix matching on the vocabulary. Over every memory, a limited client's score for
 * a word would move when another client's private memory holds it, and another client's look-alike terms could push
 * its own out of the fuzzy candidates, so one client could learn what another's private memories say. For one
 * writer, everything comes from that writer's own counts (kept incrementally per writer in SQLite by triggers,
 * migration 009: a lookup of a few rows, like the corpus-wide counts, never a scan; the vocabulary lookups narrow
 * to the writer's terms before they cut), and ranking does not use FTS5's bm25(), whose statistics span the whole
 * index: the writer's matches (at most WRITER_POOL) are read and scored here with the same BM25 formula over the
 * writer's statistics. Which matches are read is decided from the writer's counts and memories alone too, so a
 * limited client's answers are exactly those of a gateway holding only its own memories.
 */
export class Corpus {
  readonly statistics: MemoryStatistics;

  constructor(
    private readonly store: MemoryStore,
    /** The only writer whose memories are ranked; undefined: every memory. */
    readonly writer: string | undefined,
  ) {
    this.statistics = writer === undefined ? store : store.ofWriter(writer);
  }

  /**
   * Memories matching the FTS5 query, best first by BM25 over `phrases` (the query's terms, one per phrase of
   * `match`, as FTS5 counts them), with the score (larger is better).
   */
  ranked(match: string, phrases: readonly string[], filter: MemoryFilter, limit: number): Array<IndexedMemory & { score: number }> {
    if (this.writer === undefined) return this.store.search(match, filter, limit, 'rank');
    const unique = [...new Set(phrases)];
    const df = this.statistics.documentFrequencies(unique);
    const found = this.#candidates(match, unique, df, this.#own(filter));
    if (found.length === 0) return [];
    const { docs, tokens } = this.statistics.corpus();
    const idf = new Map(unique.map((term) => [term, bm25Idf(docs, df.get(term) ?? 0)]));
    const averageLength = docs > 0 ? tokens / docs : 1;
    const best = found
      .map(({ id, terms }) => ({ id, score: bm25(terms, phrases, idf, averageLength) }))
      // Ties in the index's order, as FTS5 gives them.
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, limit);
    const scores = new Map(best.map((b) => [b.id, b.score]));
    return this.store.indexed(best.map((b) => b.id)).map((memory) => ({ ...memory, score: scores.get(memory.id)! }));
  }

  /**
   * What is scored, at most WRITER_POOL matches: every match when there are no more; else the matches holding the
   * query's rarest phrases (as many phrases as half the pool holds: BM25's best nearly always hold one), then the
   * newest of the rest. Each step reads the writer's own counts and memories only.
   */
  #candidates(match: string, phrases: readonly string[], df: Map<string, number>, filter: MemoryFilter): Array<{ id: number; terms: string[] }> {
    const rarest = phrases.filter((term) => df.has(term)).sort((a, b) => df.get(a)! - df.get(b)!);
    const picked: string[] = [];
    let holding = 0;
    for (const term of rarest) {
      if (holding + df.get(term)! > WRITER_POOL / 2) break;
      picked.push(term);
      holding += df.get(term)!;
    }
    if (picked.length === 0 || picked.length === rarest.length) return this.store.searchTerms(match, filter, WRITER_POOL);
    const rare = this.store.searchTerms(`(${match}) AND (${picked.map(ftsPhrase).join(' OR ')})`, filter, WRITER_POOL);
    const seen = new Set(rare.map((memory) => memory.id));
    const newest = this.store.searchTerms(match, filter, WRITER_POOL).filter((memory) => !seen.has(memory.id));
    return [...rare, ...newest.slice(0, WRITER_POOL - rare.length)];
  }

  /** Up to `limit` memories matching, in no particular order (the index's first matches), scored 0. */
  any(match: string, filter: MemoryFilter, limit: number): Array<IndexedMemory & { score: number }> {
    return this.store.search(match, this.#own(filter), limit, 'any');
  }

  /** Security: whatever the caller's filter, a writer's corpus holds only that writer's memories. */
  #own(filter: MemoryFilter): MemoryFilter {
    return this.writer === undefined ? filter : { ...filter, client: this.writer };
  }
}

/** FTS5's IDF: ln((N − n + 0.5) / (n + 0.5)), and a small positive value where that is not positive. */
function bm25Idf(docs: number, holding: number): number {
  const idf = Math.log((docs - holding + 0.5) / (holding + 0.5));
  return idf <= 0 ? 1e-6 : idf;
}

/** BM25 of one memory for these phrases, as FTS5's bm25() computes it (each phrase counted once per occurrence). */
function bm25(terms: readonly string[], phrases: readonly string[], idf: Map<string, number>, averageLength: number): number {
  const counts = new Map<string, number>();
  for (const term of terms) if (idf.has(term)) counts.set(term, (counts.get(term) ?? 0) + 1);
  const norm = K1 * (1 - B + (B * terms.length) / averageLength);
  let score = 0;
  for (const phrase of phrases) {
    const tf = counts.get(phrase);
    if (tf) score += (idf.get(phrase)! * tf * (K1 + 1)) / (tf + norm);
  }
  return score;
}

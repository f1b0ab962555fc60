import { ftsPhrase, type IndexedMemory, type MemoryFilter, type MemoryStatistics, type MemoryStore } from '../store/memories.js';
import type { Steps } from './steps.js';

/** BM25 parameters: the values FTS5's bm25() uses. */
export const K1 = 1.2;
export const B = 0.75;

/**
 * Security: denial of service. How many index entries (memories holding a term, summed over the terms) one index
 * query may read: FTS5 reads and ranks every entry of every term it is given, about half a microsecond each, in one
 * statement that nothing interrupts. 32 words each held by every one of 10,000 memories, or a part held by 200 common
 * terms, made one query of a second or more. Past this, the commonest terms are left out of the index query (they
 * weigh least in a ranking; the scoring still counts them where it reads a memory's terms). An entry holds a term's
 * places in its memory: in memories longer than ENTRY_TERMS terms on average, it counts for as many entries more.
 */
const MATCH_POSTINGS = 100_000;
const ENTRY_TERMS = 400;

/**
 * How many of one writer's matches are read and scored when ranking for a reader limited to that writer's memories:
 * up to this many the ranking is exact (see Corpus.#candidates past it). At 100,000 memories of one client this
 * costs about what FTS5's ranking of the same query costs the owner.
 */
const WRITER_POOL = 1000;

/**
 * Memories read (and their terms parsed) in one step: up to a few hundred thousand terms at the content limit, a few
 * milliseconds (see steps.ts).
 */
const READ_SLICE = 50;

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
   * `match`, as FTS5 counts them), with the score (larger is better). In steps: the memories are read a slice at a
   * time.
   */
  *ranked(match: string, phrases: readonly string[], filter: MemoryFilter, limit: number): Steps<Array<IndexedMemory & { score: number }>> {
    if (this.writer === undefined) return yield* this.#read(this.store.searchIds(match, filter, limit, 'rank'));
    const unique = [...new Set(phrases)];
    const df = this.statistics.documentFrequencies(unique);
    const found = yield* this.#candidates(match, unique, df, this.#own(filter));
    if (found.length === 0) return [];
    const { docs, tokens } = this.statistics.corpus();
    const idf = new Map(unique.map((term) => [term, bm25Idf(docs, df.get(term) ?? 0)]));
    const averageLength = docs > 0 ? tokens / docs : 1;
    const scored: Array<{ id: number; score: number }> = [];
    for (let at = 0; at < found.length; at += READ_SLICE) {
      yield;
      for (const { id, terms } of this.store.termsOf(found.slice(at, at + READ_SLICE))) scored.push({ id, score: bm25(terms, phrases, idf, averageLength) });
    }
    const best = scored
      // Ties in the index's order, as FTS5 gives them.
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, limit);
    return yield* this.#read(best);
  }

  /**
   * What is scored, at most WRITER_POOL matches' ids: every match when there are no more; else the matches holding
   * the query's rarest phrases (as many phrases as half the pool holds: BM25's best nearly always hold one), then the
   * newest of the rest. Each step reads the writer's own counts and memories only.
   */
  *#candidates(match: string, phrases: readonly string[], df: Map<string, number>, filter: MemoryFilter): Steps<number[]> {
    const rarest = phrases.filter((term) => df.has(term)).sort((a, b) => df.get(a)! - df.get(b)!);
    const picked: string[] = [];
    let holding = 0;
    for (const term of rarest) {
      if (holding + df.get(term)! > WRITER_POOL / 2) break;
      picked.push(term);
      holding += df.get(term)!;
    }
    const newestIds = (query: string) => this.store.searchIds(query, filter, WRITER_POOL, 'newest').map((row) => row.id);
    if (picked.length === 0 || picked.length === rarest.length) return newestIds(match);
    const rare = newestIds(`(${match}) AND (${picked.map(ftsPhrase).join(' OR ')})`);
    yield;
    const seen = new Set(rare);
    const newest = newestIds(match).filter((id) => !seen.has(id));
    return [...rare, ...newest.slice(0, WRITER_POOL - rare.length)];
  }

  /** Up to `limit` memories matching, in no particular order (the index's first matches), scored 0. */
  *any(match: string, filter: MemoryFilter, limit: number): Steps<Array<IndexedMemory & { score: number }>> {
    return yield* this.#read(this.store.searchIds(match, this.#own(filter), limit, 'any'));
  }

  /** The memories found, in the order given, with their scores: a slice at a time. */
  *#read(found: ReadonlyArray<{ id: number; score: number }>): Steps<Array<IndexedMemory & { score: number }>> {
    const memories: Array<IndexedMemory & { score: number }> = [];
    for (let at = 0; at < found.length; at += READ_SLICE) {
      yield;
      const slice = found.slice(at, at + READ_SLICE);
      const scores = new Map(slice.map((row) => [row.id, row.score]));
      for (const memory of this.store.indexed(slice.map((row) => row.id))) memories.push({ ...memory, score: scores.get(memory.id)! });
    }
    return memories;
  }

  /** How many index entries one index query over this corpus may read (see MATCH_POSTINGS). */
  matchPostings(): number {
    const { docs, tokens } = this.statistics.corpus();
    return MATCH_POSTINGS / Math.max(1, docs > 0 ? tokens / docs / ENTRY_TERMS : 1);
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

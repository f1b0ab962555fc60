import type { Statement } from 'better-sqlite3';

/**
 * The corpus statistics and vocabulary memory search scores with, read from the tables the triggers of migrations
 * 003, 007 and 009 keep in step with every write to `memories`: nothing here writes.
 */

/** Prepares a statement once per SQL text (MemoryStore's cache, shared with the statistics it hands out). */
export type Prepare = <P extends unknown[] = unknown[], R = unknown>(sql: string) => Statement<P, R>;

/**
 * The corpus statistics and vocabulary a search scores with: of every memory (MemoryStore itself), or of one
 * writer's memories only (MemoryStore.ofWriter), for a reader that sees only those.
 */
export interface MemoryStatistics {
  /** How many memories hold each term (absent: none). */
  documentFrequencies(terms: readonly string[]): Map<string, number>;
  /** Memories and the total number of indexed terms, for BM25's average document length. */
  corpus(): { docs: number; tokens: number };
  /**
   * Vocabulary terms that start with `prefix` (longer than it), the most frequent first: a range of the term index,
   * so only the terms with that prefix are read. `length` keeps only terms of that many characters. A prefix that
   * starts more than PREFIX_RANGE terms answers none: it completes to too much to mean anything.
   */
  termsWithPrefix(prefix: string, limit: number, length?: number): Array<{ term: string; docs: number }>;
  /**
   * Vocabulary terms holding `part` (three characters or more) anywhere, the most frequent first: those holding
   * every trigram of it that at most GRAM_HOLDERS terms hold (the trigram table narrows them down), then checked
   * whole. None when every trigram of it is that common.
   */
  termsContaining(part: string, limit: number, budget?: GramBudget): Array<{ term: string; docs: number }>;
  /**
   * How many vocabulary terms hold each gram, counted up to GRAM_HOLDERS + 1 (more than GRAM_HOLDERS: that many +
   * 1), the rows read taken from `budget` (a search's; a fresh one if none); once it is spent, the grams not yet counted answer GRAM_HOLDERS + 1 too.
   * Of the whole vocabulary, also for a writer: the trigram table is shared.
   */
  gramHolders(grams: readonly string[], budget?: GramBudget): Map<string, number>;
  /**
   * Vocabulary terms of `length[0]` to `length[1]` characters sharing at least `least` of `grams` (each 3
   * characters, from the padded query term), those sharing the most first, then the most frequent: the candidate
   * filter of the fuzzy search. Index ranges of the trigram table are read and counted, so the vocabulary is never
   * scanned.
   */
  termsSharingGrams(grams: readonly string[], least: number, length: [number, number], limit: number): Array<{ term: string; docs: number }>;
}

/** Sorts after every string that starts with what it follows (U+10FFFF is the last code point). */
const PAST_EVERY_CHARACTER = '\u{10FFFF}';

/**
 * Security: denial of service through the vocabulary. Any client may write memories, and so shape the vocabulary:
 * a gram or a prefix held by hundreds of thousands of terms would make every lookup of it read them all, on the
 * gateway's only thread. A trigram held by more terms than this narrows nothing down and is not read (the searches
 * leave it out of what they count); a prefix starting more terms than PREFIX_RANGE completes to nothing. The
 * benchmark's 100,000 memories (25,000 terms) hold no gram in more than 1,900 terms and no prefix in more than 900.
 */
export const GRAM_HOLDERS = 4000;
export const PREFIX_RANGE = 4000;

/**
 * Rows of the trigram table one search may still read (counting trigrams' holders, and reading them): a query of
 * 32 terms, each of 30 letters sharing its trigrams with the whole vocabulary, would otherwise read millions.
 */
export interface GramBudget {
  gramRows: number;
}

/** A search's GramBudget: an ordinary query reads a few thousand rows; this is about 25 ms of reading. */
export const GRAM_ROWS = 400_000;

/** The statistics of every memory (`writer` null) or of one writer's memories only (see MemoryStore.ofWriter). */
export class CorpusStatistics implements MemoryStatistics {
  readonly #prepare: Prepare;
  readonly #writer: string | null;

  constructor(prepare: Prepare, writer: string | null) {
    this.#prepare = prepare;
    this.#writer = writer;
  }

  documentFrequencies(terms: readonly string[]): Map<string, number> {
    const writer = this.#writer;
    const found = new Map<string, number>();
    if (terms.length === 0) return found;
    const rows =
      writer === null
        ? this.#prepare<[string], { term: string; docs: number }>('SELECT term, docs FROM memory_terms WHERE term IN (SELECT value FROM json_each(?))').all(
            JSON.stringify(terms),
          )
        : this.#prepare<[string, string], { term: string; docs: number }>(
            'SELECT term, docs FROM memory_writer_terms WHERE writer = ? AND term IN (SELECT value FROM json_each(?))',
          ).all(writer, JSON.stringify(terms));
    for (const row of rows) found.set(row.term, row.docs);
    return found;
  }

  corpus(): { docs: number; tokens: number } {
    type Corpus = { docs: number; tokens: number };
    if (this.#writer === null) return this.#prepare<[], Corpus>('SELECT docs, tokens FROM memory_stats WHERE id = 1').get()!;
    return this.#prepare<[string], Corpus>('SELECT docs, tokens FROM memory_writer_stats WHERE writer = ?').get(this.#writer) ?? { docs: 0, tokens: 0 };
  }

  termsWithPrefix(prefix: string, limit: number, length?: number): Array<{ term: string; docs: number }> {
    const writer = this.#writer;
    // At most PREFIX_RANGE + 1 terms of the range are read, whatever their length: the range is what costs.
    const params = { prefix, past: `${prefix}${PAST_EVERY_CHARACTER}`, scan: PREFIX_RANGE + 1, writer };
    const range = this.#prepare<[typeof params], { term: string; docs: number }>(
      `SELECT term, docs FROM ${writer === null ? 'memory_terms WHERE' : 'memory_writer_terms WHERE writer = @writer AND'}
       term > @prefix AND term < @past LIMIT @scan`,
    ).all(params);
    if (range.length > PREFIX_RANGE) return [];
    return range
      .filter((row) => length === undefined || [...row.term].length === length)
      // Stable: ties keep the index's order, as ORDER BY docs did.
      .sort((a, b) => b.docs - a.docs)
      .slice(0, limit);
  }

  gramHolders(grams: readonly string[], budget: GramBudget = { gramRows: GRAM_ROWS }): Map<string, number> {
    const count = this.#prepare<[string, number], { n: number }>('SELECT count(*) AS n FROM (SELECT 1 FROM memory_term_grams WHERE gram = ? LIMIT ?)');
    const holders = new Map<string, number>();
    for (const gram of grams) {
      if (holders.has(gram)) continue;
      const n = budget.gramRows > 0 ? count.get(gram, GRAM_HOLDERS + 1)!.n : GRAM_HOLDERS + 1;
      if (budget.gramRows > 0) budget.gramRows -= n;
      holders.set(gram, n);
    }
    return holders;
  }

  termsContaining(part: string, limit: number, budget: GramBudget = { gramRows: GRAM_ROWS }): Array<{ term: string; docs: number }> {
    const writer = this.#writer;
    // The trigrams common beyond GRAM_HOLDERS are left out: the others still narrow down, and instr() checks whole.
    const holders = this.gramHolders(trigramsOf(part), budget);
    const grams = [...holders].filter(([, n]) => n <= GRAM_HOLDERS).map(([gram]) => gram);
    budget.gramRows -= grams.reduce((sum, gram) => sum + holders.get(gram)!, 0);
    if (grams.length === 0 || budget.gramRows < 0) return [];
    const params = { grams: JSON.stringify(grams), count: grams.length, part, limit, writer };
    return this.#prepare<[typeof params], { term: string; docs: number }>(
      `SELECT t.term, ${writer === null ? 't.docs' : 'w.docs'} AS docs FROM (
         SELECT term FROM memory_term_grams WHERE gram IN (SELECT value FROM json_each(@grams)) GROUP BY term HAVING count(*) = @count
       ) g ${writer === null ? 'JOIN' : 'CROSS JOIN'} memory_terms t ON t.id = g.term ${WRITER_JOIN(writer)} WHERE instr(t.term, @part) > 0 ORDER BY docs DESC LIMIT @limit`,
    ).all(params);
  }

  termsSharingGrams(grams: readonly string[], least: number, length: [number, number], limit: number): Array<{ term: string; docs: number }> {
    const writer = this.#writer;
    if (grams.length === 0) return [];
    const params = { grams: JSON.stringify([...new Set(grams)]), least: Math.max(1, least), shortest: length[0], longest: length[1], limit, writer };
    return this.#prepare<[typeof params], { term: string; docs: number }>(
      `SELECT t.term, ${writer === null ? 't.docs' : 'w.docs'} AS docs FROM (
         SELECT term, count(*) AS shared FROM memory_term_grams WHERE gram IN (SELECT value FROM json_each(@grams))
         GROUP BY term HAVING shared >= @least
       ) g ${writer === null ? 'JOIN' : 'CROSS JOIN'} memory_terms t ON t.id = g.term ${WRITER_JOIN(writer)} WHERE length(t.term) BETWEEN @shortest AND @longest
       ORDER BY g.shared DESC, docs DESC LIMIT @limit`,
    ).all(params);
  }
}

/**
 * Narrows a vocabulary query to the terms one writer's memories hold, with that writer's counts. A CROSS JOIN keeps
 * SQLite's join order: the few terms the trigram ranges found, each looked up for the writer, never every term of
 * the writer scanned (which a planner's guess made 10× slower at 100,000 memories of one writer).
 */
const WRITER_JOIN = (writer: string | null) => (writer === null ? '' : 'CROSS JOIN memory_writer_terms w ON w.writer = @writer AND w.term = t.term');

/** The unpadded trigrams of a text, in order. */
function trigramsOf(text: string): string[] {
  const chars = [...text];
  const grams: string[] = [];
  for (let i = 0; i + 3 <= chars.length; i++) grams.push(chars.slice(i, i + 3).join(''));
  return grams;
}

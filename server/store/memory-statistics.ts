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
   * so only the terms with that prefix are read. `length` keeps only terms of that many characters.
   */
  termsWithPrefix(prefix: string, limit: number, length?: number): Array<{ term: string; docs: number }>;
  /**
   * Vocabulary terms holding `part` (three characters or more) anywhere, the most frequent first: those holding
   * every trigram of it (the trigram table narrows them down), then checked whole.
   */
  termsContaining(part: string, limit: number): Array<{ term: string; docs: number }>;
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
    const params = { prefix, past: `${prefix}${PAST_EVERY_CHARACTER}`, length: length ?? null, limit, writer };
    return this.#prepare<[typeof params], { term: string; docs: number }>(
      `SELECT term, docs FROM ${writer === null ? 'memory_terms WHERE' : 'memory_writer_terms WHERE writer = @writer AND'}
       term > @prefix AND term < @past AND (@length IS NULL OR length(term) = @length) ORDER BY docs DESC LIMIT @limit`,
    ).all(params);
  }

  termsContaining(part: string, limit: number): Array<{ term: string; docs: number }> {
    const writer = this.#writer;
    const grams = [...new Set(trigramsOf(part))];
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

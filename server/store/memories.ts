import type { Db } from './db.js';

/** A stored memory as the API shows it. */
export interface Memory {
  id: number;
  content: string;
  tags: string[];
  category: string | null;
  /** The client that wrote it ("owner" for the dashboard and CLI). */
  client: string;
  /** The call that wrote it, when a tool did. */
  call_id: string | null;
  created_at: string;
  updated_at: string;
}

/** A memory with its indexed terms (in text order, repeats kept), for scoring. */
export interface IndexedMemory extends Memory {
  terms: string[];
}

export interface NewMemory {
  content: string;
  tags: string[];
  category: string | null;
  client: string;
  call_id: string | null;
  terms: string[];
  /** Epoch ms; defaults to now. */
  created_at?: number;
}

/** A memory as an export holds it: an import keeps its id and dates. */
export interface ExactMemory extends NewMemory {
  id: number;
  created_at: number;
  updated_at: number;
}

export interface MemoryFilter {
  /** Every one of these tags. */
  tags?: string[];
  category?: string;
  client?: string;
}

interface MemoryRow {
  id: number;
  content: string;
  tags: string;
  category: string | null;
  client: string;
  call_id: string | null;
  terms: string;
  created_at: number;
  updated_at: number;
}

const toMemory = (row: MemoryRow): Memory => ({
  id: row.id,
  content: row.content,
  tags: JSON.parse(row.tags) as string[],
  category: row.category,
  client: row.client,
  call_id: row.call_id,
  created_at: new Date(row.created_at).toISOString(),
  updated_at: new Date(row.updated_at).toISOString(),
});
const toIndexed = (row: MemoryRow): IndexedMemory => ({ ...toMemory(row), terms: JSON.parse(row.terms) as string[] });

/** A term as an FTS5 string: our terms never hold a double quote, but quote-doubling keeps that a non-issue. */
export const ftsPhrase = (term: string) => `"${term.replaceAll('"', '""')}"`;

/**
 * The memory table and its FTS5 index (migration 003). Triggers keep the index, the vocabulary and the corpus
 * statistics in step with every write, so this class only writes `memories`.
 */
export class MemoryStore {
  constructor(private readonly db: Db) {}

  add(memory: NewMemory): Memory {
    const now = memory.created_at ?? Date.now();
    const row = this.db
      .prepare<unknown[], MemoryRow>(
        `INSERT INTO memories (content, tags, category, client, call_id, terms, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(memory.content, JSON.stringify(memory.tags), memory.category, memory.client, memory.call_id, JSON.stringify(memory.terms), now, now)!;
    return toMemory(row);
  }

  /** Adds many in one transaction (imports, benchmarks). */
  addMany(memories: readonly NewMemory[]): number {
    let added = 0;
    this.db.transaction(() => {
      for (const memory of memories) {
        this.add(memory);
        added++;
      }
    })();
    return added;
  }

  /**
   * Adds a memory with its own id and dates (an import). An id already taken is left as it is: false, nothing
   * written, so importing the same export twice duplicates nothing.
   */
  addExact(memory: ExactMemory): boolean {
    return (
      this.db
        .prepare(
          `INSERT INTO memories (id, content, tags, category, client, call_id, terms, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
        )
        .run(memory.id, memory.content, JSON.stringify(memory.tags), memory.category, memory.client, memory.call_id, JSON.stringify(memory.terms), memory.created_at, memory.updated_at)
        .changes === 1
    );
  }

  /** Runs `work` in one transaction (a batch of an import). */
  batch<T>(work: () => T): T {
    return this.db.transaction(work)();
  }

  /** Every memory the filter selects, oldest id first, a page at a time (an export in constant memory). */
  *exportPages(filter: MemoryFilter, pageSize = 500): Generator<Memory[]> {
    const where = filterSql(filter, 'm');
    const page = this.db.prepare<unknown[], MemoryRow>(`SELECT * FROM memories m WHERE m.id > ? AND ${where.sql} ORDER BY m.id LIMIT ?`);
    let after = 0;
    for (;;) {
      const rows = page.all(after, ...where.params, pageSize);
      if (rows.length === 0) return;
      after = rows.at(-1)!.id;
      yield rows.map(toMemory);
      if (rows.length < pageSize) return;
    }
  }

  update(id: number, change: { content: string; tags: string[]; category: string | null; terms: string[] }, now = Date.now()): Memory | undefined {
    const row = this.db
      .prepare<unknown[], MemoryRow>(
        'UPDATE memories SET content = ?, tags = ?, category = ?, terms = ?, updated_at = ? WHERE id = ? RETURNING *',
      )
      .get(change.content, JSON.stringify(change.tags), change.category, JSON.stringify(change.terms), now, id);
    return row ? toMemory(row) : undefined;
  }

  remove(id: number): boolean {
    return this.db.prepare('DELETE FROM memories WHERE id = ?').run(id).changes === 1;
  }

  get(id: number): Memory | undefined {
    const row = this.db.prepare<[number], MemoryRow>('SELECT * FROM memories WHERE id = ?').get(id);
    return row ? toMemory(row) : undefined;
  }

  /** The newest first. */
  newest(filter: MemoryFilter, limit: number): Memory[] {
    const where = filterSql(filter, 'm');
    return this.db
      .prepare<unknown[], MemoryRow>(`SELECT * FROM memories m WHERE ${where.sql} ORDER BY m.created_at DESC, m.id DESC LIMIT ?`)
      .all(...where.params, limit)
      .map(toMemory);
  }

  /**
   * FTS5 search: `match` is an FTS5 query over the terms column; ranked by FTS5's bm25() (k1 = 1.2, b = 0.75,
   * fixed in SQLite), best first. `score` is bm25 negated, so larger is better.
   */
  search(match: string, filter: MemoryFilter, limit: number, ranked = true): Array<IndexedMemory & { score: number }> {
    const where = filterSql(filter, 'm');
    // Unranked, the index stops at `limit` matches instead of scoring every one (for queries of only common words).
    return this.db
      .prepare<unknown[], MemoryRow & { score: number }>(
        `SELECT m.*, ${ranked ? '-f.rank' : '0'} AS score FROM memory_fts f JOIN memories m ON m.id = f.rowid
         WHERE memory_fts MATCH ? AND ${where.sql} ${ranked ? 'ORDER BY f.rank' : ''} LIMIT ?`,
      )
      .all(match, ...where.params, limit)
      .map((row) => ({ ...toIndexed(row), score: row.score }));
  }

  /** How many memories hold each term (absent: none). */
  documentFrequencies(terms: readonly string[]): Map<string, number> {
    const found = new Map<string, number>();
    if (terms.length === 0) return found;
    const rows = this.db
      .prepare<[string], { term: string; docs: number }>('SELECT term, docs FROM memory_terms WHERE term IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(terms));
    for (const row of rows) found.set(row.term, row.docs);
    return found;
  }

  /** Memories and the total number of indexed terms, for BM25's average document length. */
  corpus(): { docs: number; tokens: number } {
    return this.db.prepare<[], { docs: number; tokens: number }>('SELECT docs, tokens FROM memory_stats WHERE id = 1').get()!;
  }

  /**
   * Vocabulary terms sharing the most trigrams with `grams` (each 3 characters, from the padded query term), best
   * first: the candidate filter of the fuzzy search. The index ranks them, so the vocabulary is never scanned.
   */
  termsSharingGrams(grams: readonly string[], limit: number): Array<{ term: string; docs: number }> {
    if (grams.length === 0) return [];
    return this.db
      .prepare<[string, number], { term: string; docs: number }>(
        `SELECT t.term, t.docs FROM memory_term_grams g JOIN memory_terms t ON t.id = g.rowid
         WHERE memory_term_grams MATCH ? ORDER BY g.rank LIMIT ?`,
      )
      .all([...new Set(grams)].map(ftsPhrase).join(' OR '), limit);
  }
}

function filterSql(filter: MemoryFilter, alias: string): { sql: string; params: unknown[] } {
  const clauses = ['1'];
  const params: unknown[] = [];
  for (const tag of filter.tags ?? []) {
    clauses.push(`EXISTS (SELECT 1 FROM json_each(${alias}.tags) WHERE value = ?)`);
    params.push(tag);
  }
  if (filter.category !== undefined) {
    clauses.push(`${alias}.category = ?`);
    params.push(filter.category);
  }
  if (filter.client !== undefined) {
    clauses.push(`${alias}.client = ?`);
    params.push(filter.client);
  }
  return { sql: clauses.join(' AND '), params };
}

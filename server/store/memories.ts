import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';
import type { Memory as WireMemory } from '../contract/memory.js';
import { CorpusStatistics, type GramBudget, type MemoryStatistics } from './memory-statistics.js';

export type { GramBudget, MemoryStatistics } from './memory-statistics.js';

/** A stored memory: the wire's memory before it is read for instructions (`flagged` is worked out on the way out). */
export type Memory = Omit<WireMemory, 'flagged'>;

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

/** Where a memory sits in the newest-first order: its creation time (epoch ms) and id. */
export interface MemoryPosition {
  created_at: number;
  id: number;
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

/** How search() orders what it finds: by FTS5's bm25(), not at all (the index's first matches), or newest first. */
export type SearchOrder = 'rank' | 'any' | 'newest';

/**
 * The memory table and its FTS5 index (migration 003). Triggers keep the index, the vocabulary and the corpus
 * statistics in step with every write, so this class only writes `memories`; the statistics are read in
 * memory-statistics.ts.
 */
export class MemoryStore implements MemoryStatistics {
  /** Prepared once: a search runs several statements, and preparing the FTS5 joins costs more than running them. */
  readonly #statements = new Map<string, Statement>();
  readonly #all: MemoryStatistics;
  readonly #writers = new Map<string, MemoryStatistics>();

  constructor(private readonly db: Db) {
    this.#all = new CorpusStatistics(this.#prepare.bind(this), null);
  }

  #prepare<P extends unknown[] = unknown[], R = unknown>(sql: string): Statement<P, R> {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement as unknown as Statement<P, R>;
  }

  add(memory: NewMemory): Memory {
    const now = memory.created_at ?? Date.now();
    const row = this.#prepare<unknown[], MemoryRow>(
      `INSERT INTO memories (content, tags, category, client, call_id, terms, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    ).get(memory.content, JSON.stringify(memory.tags), memory.category, memory.client, memory.call_id, JSON.stringify(memory.terms), now, now)!;
    return toMemory(row);
  }

  /**
   * Adds many in one transaction (imports, benchmarks). The vocabulary counts and corpus totals, overall and per
   * writer, are written once for the batch (each distinct term once, with the number of its memories holding it)
   * instead of by the insert triggers once per memory: `memory_bulk` tells the triggers so, inside this transaction
   * only (migrations 007 and 009).
   */
  addMany(memories: readonly NewMemory[]): number {
    if (memories.length === 0) return 0;
    this.db.transaction(() => {
      this.#prepare('INSERT INTO memory_bulk (id) VALUES (1)').run();
      const holding = new Map<string, number>();
      const writers = new Map<string, { docs: number; tokens: number; holding: Map<string, number> }>();
      let tokens = 0;
      for (const memory of memories) {
        this.add(memory);
        tokens += memory.terms.length;
        let writer = writers.get(memory.client);
        if (!writer) writers.set(memory.client, (writer = { docs: 0, tokens: 0, holding: new Map() }));
        writer.docs++;
        writer.tokens += memory.terms.length;
        for (const term of new Set(memory.terms)) {
          holding.set(term, (holding.get(term) ?? 0) + 1);
          writer.holding.set(term, (writer.holding.get(term) ?? 0) + 1);
        }
      }
      this.#prepare(
        `INSERT INTO memory_terms (term, docs) SELECT value ->> 0, value ->> 1 FROM json_each(?) WHERE true
         ON CONFLICT (term) DO UPDATE SET docs = docs + excluded.docs`,
      ).run(JSON.stringify([...holding]));
      this.#prepare('UPDATE memory_stats SET docs = docs + ?, tokens = tokens + ? WHERE id = 1').run(memories.length, tokens);
      for (const [name, writer] of writers) {
        this.#prepare(
          `INSERT INTO memory_writer_terms (writer, term, docs) SELECT ?, value ->> 0, value ->> 1 FROM json_each(?) WHERE true
           ON CONFLICT (writer, term) DO UPDATE SET docs = docs + excluded.docs`,
        ).run(name, JSON.stringify([...writer.holding]));
        this.#prepare(
          `INSERT INTO memory_writer_stats (writer, docs, tokens) VALUES (?, ?, ?)
           ON CONFLICT (writer) DO UPDATE SET docs = docs + excluded.docs, tokens = tokens + excluded.tokens`,
        ).run(name, writer.docs, writer.tokens);
      }
      this.#prepare('DELETE FROM memory_bulk').run();
    })();
    return memories.length;
  }

  /**
   * Adds a memory with its own id and dates (an import). An id already taken is left as it is: false, nothing
   * written, so importing the same export twice duplicates nothing.
   */
  addExact(memory: ExactMemory): boolean {
    return (
      this.#prepare(
        `INSERT INTO memories (id, content, tags, category, client, call_id, terms, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
      ).run(memory.id, memory.content, JSON.stringify(memory.tags), memory.category, memory.client, memory.call_id, JSON.stringify(memory.terms), memory.created_at, memory.updated_at)
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
    const page = this.#prepare<unknown[], MemoryRow>(`SELECT * FROM memories m WHERE m.id > ? AND ${where.sql} ORDER BY m.id LIMIT ?`);
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
    const row = this.#prepare<unknown[], MemoryRow>(
      'UPDATE memories SET content = ?, tags = ?, category = ?, terms = ?, updated_at = ? WHERE id = ? RETURNING *',
    ).get(change.content, JSON.stringify(change.tags), change.category, JSON.stringify(change.terms), now, id);
    return row ? toMemory(row) : undefined;
  }

  remove(id: number): boolean {
    return this.#prepare('DELETE FROM memories WHERE id = ?').run(id).changes === 1;
  }

  get(id: number): Memory | undefined {
    const row = this.#prepare<[number], MemoryRow>('SELECT * FROM memories WHERE id = ?').get(id);
    return row ? toMemory(row) : undefined;
  }

  /**
   * The newest first; with `before`, only those after it in that order (older, or as old with a smaller id), so a
   * page follows on from the last memory of the one before even while memories are added.
   */
  newest(filter: MemoryFilter, limit: number, before?: MemoryPosition): Memory[] {
    const where = filterSql(filter, 'm');
    const after = before ? ' AND (m.created_at, m.id) < (?, ?)' : '';
    return this.#prepare<unknown[], MemoryRow>(`SELECT * FROM memories m WHERE ${where.sql}${after} ORDER BY m.created_at DESC, m.id DESC LIMIT ?`)
      .all(...where.params, ...(before ? [before.created_at, before.id] : []), limit)
      .map(toMemory);
  }

  /** How many memories the filter selects. */
  count(filter: MemoryFilter): number {
    const where = filterSql(filter, 'm');
    return this.#prepare<unknown[], { n: number }>(`SELECT count(*) AS n FROM memories m WHERE ${where.sql}`).get(...where.params)!.n;
  }

  /**
   * FTS5 search: `match` is an FTS5 query over the terms column; the ids of what it finds (the memories themselves
   * are read with indexed() or termsOf(), a few at a time). Ranked (`rank`), by FTS5's bm25() (k1 = 1.2, b = 0.75,
   * fixed in SQLite, over the statistics of every memory), best first; `score` is bm25 negated, so larger is better.
   * Unranked (`any`), the index stops at `limit` matches instead of scoring every one (for queries of only common
   * words); `newest` takes the newest `limit` matches. Unranked rows score 0.
   */
  searchIds(match: string, filter: MemoryFilter, limit: number, order: SearchOrder = 'rank'): Array<{ id: number; score: number }> {
    const where = filterSql(filter, 'm');
    const orderBy = order === 'rank' ? 'ORDER BY f.rank' : order === 'newest' ? 'ORDER BY f.rowid DESC' : '';
    return this.#prepare<unknown[], { id: number; score: number }>(
      `SELECT m.id, ${order === 'rank' ? '-f.rank' : '0'} AS score FROM memory_fts f JOIN memories m ON m.id = f.rowid
       WHERE memory_fts MATCH ? AND ${where.sql} ${orderBy} LIMIT ?`,
    ).all(match, ...where.params, limit);
  }

  /** These memories' terms only, in the order of `ids`: for scoring many without reading their text. */
  termsOf(ids: readonly number[]): Array<{ id: number; terms: string[] }> {
    if (ids.length === 0) return [];
    const rows = this.#prepare<[string], { id: number; terms: string }>('SELECT id, terms FROM memories WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids));
    const byId = new Map(rows.map((row) => [row.id, row.terms]));
    return ids.flatMap((id) => {
      const terms = byId.get(id);
      return terms === undefined ? [] : [{ id, terms: JSON.parse(terms) as string[] }];
    });
  }

  /** These memories with their terms, in the order of `ids` (ids not found are left out). */
  indexed(ids: readonly number[]): IndexedMemory[] {
    if (ids.length === 0) return [];
    const rows = this.#prepare<[string], MemoryRow>('SELECT * FROM memories WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids));
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.flatMap((id) => {
      const row = byId.get(id);
      return row ? [toIndexed(row)] : [];
    });
  }

  documentFrequencies(terms: readonly string[]): Map<string, number> {
    return this.#all.documentFrequencies(terms);
  }

  corpus(): { docs: number; tokens: number } {
    return this.#all.corpus();
  }

  termsWithPrefix(prefix: string, limit: number, length?: number): Array<{ term: string; docs: number }> {
    return this.#all.termsWithPrefix(prefix, limit, length);
  }

  termsContaining(part: string, limit: number, budget?: GramBudget): Array<{ term: string; docs: number }> {
    return this.#all.termsContaining(part, limit, budget);
  }

  termsSharingGrams(grams: readonly string[], least: number, length: [number, number], limit: number): Array<{ term: string; docs: number }> {
    return this.#all.termsSharingGrams(grams, least, length, limit);
  }

  gramHolders(grams: readonly string[], budget?: GramBudget): Map<string, number> {
    return this.#all.gramHolders(grams, budget);
  }

  /**
   * The statistics and vocabulary of one writer's memories (memory_writer_terms and memory_writer_stats, migration
   * 009): a term only other writers' memories hold is not in it. The vocabulary lookups narrow to the writer's terms
   * before they cut to `limit`, so other writers' terms can neither show nor crowd out the writer's own.
   */
  ofWriter(writer: string): MemoryStatistics {
    let statistics = this.#writers.get(writer);
    if (!statistics) {
      statistics = new CorpusStatistics(this.#prepare.bind(this), writer);
      // One small object per client name, kept for the life of the store (a handful of clients).
      this.#writers.set(writer, statistics);
    }
    return statistics;
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

import type { Migration } from './migration.js';

/**
 * The vocabulary's trigram index as a plain table, and term counting once per batch.
 *
 * - `memory_term_grams` was an FTS5 trigram table ranked by bm25(): finding the terms that share a query term's
 *   trigrams read and ranked every term holding any of them, 7–9 ms a query term at 100,000 memories. A
 *   WITHOUT ROWID table keyed by (gram, term) is read as a few index ranges and counted with GROUP BY in under
 *   1 ms, and the count is what the fuzzy filter needs: a term within d edits shares at least all but 4·d of the
 *   query term's trigrams (an edit touches at most 3 of them, a swap of two letters 4), so terms sharing fewer are
 *   left out without being compared. A trigger on the vocabulary fills it, so no write path can forget it; the
 *   grams of a term are cut with SQL alone (`'^^' || term || '$'`, three characters at each position).
 * - `memory_bulk` holds a row only inside a MemoryStore.addMany transaction: while it does, inserting a memory
 *   leaves the vocabulary counts and the corpus totals to addMany, which writes each distinct term of the batch once
 *   instead of once per memory holding it (the per-memory count was ~60 % of an insert). Outside that transaction
 *   the table is empty, so every other write is counted by its trigger as before.
 */
export const memoryGramsAndBulk: Migration = {
  version: 7,
  name: 'memory term grams as a table, counting once per batch',
  sql: `
    DROP TRIGGER memory_terms_ai;
    DROP TRIGGER memory_terms_ad;
    DROP TABLE memory_term_grams;

    CREATE TABLE memory_term_grams (
      gram  TEXT    NOT NULL,
      term  INTEGER NOT NULL,
      PRIMARY KEY (gram, term)
    ) WITHOUT ROWID;
    CREATE INDEX memory_term_grams_term ON memory_term_grams (term);

    INSERT OR IGNORE INTO memory_term_grams (gram, term)
      SELECT substr(padded, key + 1, 3), term_id
      FROM (SELECT id AS term_id, '^^' || term || '$' AS padded FROM memory_terms),
           json_each('[' || replace(printf('%.*c', length(padded) - 2, '0'), '0', '0,') || '0]')
      WHERE key < length(padded) - 2;

    CREATE TRIGGER memory_terms_ai AFTER INSERT ON memory_terms BEGIN
      INSERT OR IGNORE INTO memory_term_grams (gram, term)
        SELECT substr(padded, key + 1, 3), new.id
        FROM (SELECT '^^' || new.term || '$' AS padded),
             json_each('[' || replace(printf('%.*c', length(padded) - 2, '0'), '0', '0,') || '0]')
        WHERE key < length(padded) - 2;
    END;

    CREATE TRIGGER memory_terms_ad AFTER DELETE ON memory_terms BEGIN
      DELETE FROM memory_term_grams WHERE term = old.id;
    END;

    CREATE TABLE memory_bulk (id INTEGER PRIMARY KEY CHECK (id = 1));

    DROP TRIGGER memories_ai;
    CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
      INSERT INTO memory_fts (rowid, terms) VALUES (new.id, new.terms);
    END;
    CREATE TRIGGER memories_ai_count AFTER INSERT ON memories WHEN NOT EXISTS (SELECT 1 FROM memory_bulk) BEGIN
      INSERT INTO memory_terms (term, docs) SELECT DISTINCT value, 1 FROM json_each(new.terms) WHERE true
        ON CONFLICT (term) DO UPDATE SET docs = docs + 1;
      UPDATE memory_stats SET docs = docs + 1, tokens = tokens + json_array_length(new.terms);
    END;
  `,
};

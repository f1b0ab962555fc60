import type { Migration } from './migration.js';

/**
 * Memories and their search index.
 *
 * The index is SQLite's own FTS5, not a hand-written one: it keeps postings, document frequencies and document
 * lengths exact through every insert, update and delete, and ranks with its built-in BM25. Tokenising is ours
 * (server/memory/tokenize.ts: NFKC, case folding, CJK words and bigrams, identifiers whole and split), so each memory
 * stores its terms as a JSON array and FTS5 indexes that column with the `ascii` tokenizer: quotes and commas
 * separate, every non-ASCII character and `._-` belong to a token, so FTS5 sees exactly our terms.
 *
 * `memory_fts` is an external-content table over `memories.terms`, kept in step by triggers, so no write path can
 * forget it. `memory_terms` is the vocabulary (term → number of memories holding it), also trigger-kept, and
 * `memory_term_grams` indexes each vocabulary term's trigrams (padded with ^ and $) for the fuzzy search's candidate
 * filter: a term within a small edit distance shares trigrams with the query term, so only those are compared.
 * `memory_stats` holds the corpus size and total term count (average document length for BM25).
 */
export const memory: Migration = {
  version: 3,
  name: 'memories and their search index',
  sql: `
    CREATE TABLE memories (
      id          INTEGER PRIMARY KEY AUTOINCREMENT,
      content     TEXT    NOT NULL,
      tags        TEXT    NOT NULL DEFAULT '[]',
      category    TEXT,
      client      TEXT    NOT NULL,
      call_id     TEXT,
      terms       TEXT    NOT NULL,
      created_at  INTEGER NOT NULL,
      updated_at  INTEGER NOT NULL
    );
    CREATE INDEX memories_created ON memories (created_at, id);
    CREATE INDEX memories_category ON memories (category) WHERE category IS NOT NULL;

    CREATE VIRTUAL TABLE memory_fts USING fts5(
      terms, content = 'memories', content_rowid = 'id', tokenize = "ascii tokenchars '._-'"
    );

    CREATE TABLE memory_terms (
      id    INTEGER PRIMARY KEY,
      term  TEXT    NOT NULL UNIQUE,
      docs  INTEGER NOT NULL
    );
    CREATE VIRTUAL TABLE memory_term_grams USING fts5(
      gram_text, content = '', contentless_delete = 1, tokenize = 'trigram'
    );

    CREATE TABLE memory_stats (
      id      INTEGER PRIMARY KEY CHECK (id = 1),
      docs    INTEGER NOT NULL,
      tokens  INTEGER NOT NULL
    );
    INSERT INTO memory_stats (id, docs, tokens) VALUES (1, 0, 0);

    CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
      INSERT INTO memory_fts (rowid, terms) VALUES (new.id, new.terms);
      INSERT INTO memory_terms (term, docs) SELECT DISTINCT value, 1 FROM json_each(new.terms) WHERE true
        ON CONFLICT (term) DO UPDATE SET docs = docs + 1;
      UPDATE memory_stats SET docs = docs + 1, tokens = tokens + json_array_length(new.terms);
    END;

    CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
      INSERT INTO memory_fts (memory_fts, rowid, terms) VALUES ('delete', old.id, old.terms);
      UPDATE memory_terms SET docs = docs - 1 WHERE term IN (SELECT value FROM json_each(old.terms));
      DELETE FROM memory_terms WHERE docs <= 0 AND term IN (SELECT value FROM json_each(old.terms));
      UPDATE memory_stats SET docs = docs - 1, tokens = tokens - json_array_length(old.terms);
    END;

    CREATE TRIGGER memories_au AFTER UPDATE OF terms ON memories BEGIN
      INSERT INTO memory_fts (memory_fts, rowid, terms) VALUES ('delete', old.id, old.terms);
      UPDATE memory_terms SET docs = docs - 1 WHERE term IN (SELECT value FROM json_each(old.terms));
      DELETE FROM memory_terms WHERE docs <= 0 AND term IN (SELECT value FROM json_each(old.terms));
      INSERT INTO memory_fts (rowid, terms) VALUES (new.id, new.terms);
      INSERT INTO memory_terms (term, docs) SELECT DISTINCT value, 1 FROM json_each(new.terms) WHERE true
        ON CONFLICT (term) DO UPDATE SET docs = docs + 1;
      UPDATE memory_stats SET tokens = tokens - json_array_length(old.terms) + json_array_length(new.terms);
    END;

    CREATE TRIGGER memory_terms_ai AFTER INSERT ON memory_terms BEGIN
      INSERT INTO memory_term_grams (rowid, gram_text) VALUES (new.id, '^^' || new.term || '$');
    END;

    CREATE TRIGGER memory_terms_ad AFTER DELETE ON memory_terms BEGIN
      DELETE FROM memory_term_grams WHERE rowid = old.id;
    END;
  `,
};

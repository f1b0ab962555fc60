import type { Migration } from './migration.js';

/**
 * Two things a client limited to its own data needs.
 *
 * - `clients.history`: which calls a named client reads in the history (`own`: only those it made, or `all`). Every
 *   client, those that existed before this setting included, starts at `own`: before it, every token read every
 *   other client's arguments and results (file contents among them).
 * - Memory statistics per writer. A search by a client that sees only its own memories must score them over those
 *   memories alone: with the corpus-wide document frequencies, document count, average length and vocabulary, its
 *   scores for a word would change when another client's private memory holds that word, and its fuzzy matches
 *   could be crowded out by (or hint at) another client's terms. `memory_writer_terms` counts, for each writer,
 *   how many of its memories hold each term (the writer's own vocabulary, so a prefix or trigram lookup can be
 *   narrowed to it before any limit), `memory_writer_stats` its memory and term totals. Triggers keep both in step
 *   with every write as the corpus-wide ones are (MemoryStore.addMany counts a bulk batch itself, once per distinct
 *   writer and term), and the existing memories are counted here.
 */
export const clientHistoryAndWriterStatistics: Migration = {
  version: 9,
  name: 'client history scope, memory statistics per writer',
  sql: `
    ALTER TABLE clients ADD COLUMN history TEXT NOT NULL DEFAULT 'own' CHECK (history IN ('all', 'own'));

    CREATE TABLE memory_writer_terms (
      writer  TEXT    NOT NULL,
      term    TEXT    NOT NULL,
      docs    INTEGER NOT NULL,
      PRIMARY KEY (writer, term)
    ) WITHOUT ROWID;

    CREATE TABLE memory_writer_stats (
      writer  TEXT    NOT NULL PRIMARY KEY,
      docs    INTEGER NOT NULL,
      tokens  INTEGER NOT NULL
    ) WITHOUT ROWID;

    INSERT INTO memory_writer_terms (writer, term, docs)
      SELECT client, term, count(*) FROM (SELECT DISTINCT m.id, m.client, j.value AS term FROM memories m, json_each(m.terms) j)
      GROUP BY client, term;
    INSERT INTO memory_writer_stats (writer, docs, tokens)
      SELECT client, count(*), sum(json_array_length(terms)) FROM memories GROUP BY client;

    CREATE TRIGGER memories_ai_writer AFTER INSERT ON memories WHEN NOT EXISTS (SELECT 1 FROM memory_bulk) BEGIN
      INSERT INTO memory_writer_terms (writer, term, docs) SELECT DISTINCT new.client, value, 1 FROM json_each(new.terms) WHERE true
        ON CONFLICT (writer, term) DO UPDATE SET docs = docs + 1;
      INSERT INTO memory_writer_stats (writer, docs, tokens) VALUES (new.client, 1, json_array_length(new.terms))
        ON CONFLICT (writer) DO UPDATE SET docs = docs + 1, tokens = tokens + excluded.tokens;
    END;

    CREATE TRIGGER memories_ad_writer AFTER DELETE ON memories BEGIN
      UPDATE memory_writer_terms SET docs = docs - 1 WHERE writer = old.client AND term IN (SELECT value FROM json_each(old.terms));
      DELETE FROM memory_writer_terms WHERE writer = old.client AND docs <= 0 AND term IN (SELECT value FROM json_each(old.terms));
      UPDATE memory_writer_stats SET docs = docs - 1, tokens = tokens - json_array_length(old.terms) WHERE writer = old.client;
      DELETE FROM memory_writer_stats WHERE writer = old.client AND docs <= 0;
    END;

    CREATE TRIGGER memories_au_writer AFTER UPDATE OF terms, client ON memories BEGIN
      UPDATE memory_writer_terms SET docs = docs - 1 WHERE writer = old.client AND term IN (SELECT value FROM json_each(old.terms));
      DELETE FROM memory_writer_terms WHERE writer = old.client AND docs <= 0 AND term IN (SELECT value FROM json_each(old.terms));
      UPDATE memory_writer_stats SET docs = docs - 1, tokens = tokens - json_array_length(old.terms) WHERE writer = old.client;
      DELETE FROM memory_writer_stats WHERE writer = old.client AND docs <= 0;
      INSERT INTO memory_writer_terms (writer, term, docs) SELECT DISTINCT new.client, value, 1 FROM json_each(new.terms) WHERE true
        ON CONFLICT (writer, term) DO UPDATE SET docs = docs + 1;
      INSERT INTO memory_writer_stats (writer, docs, tokens) VALUES (new.client, 1, json_array_length(new.terms))
        ON CONFLICT (writer) DO UPDATE SET docs = docs + 1, tokens = tokens + excluded.tokens;
    END;
  `,
};

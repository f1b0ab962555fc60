import type { Migration } from './migration.js';

/**
 * Which client last wrote each file through Pincer, and when: the approval card names such files when a command the
 * owner is asked about runs them (a Makefile for `make`). One row per file and client; rows past the window go.
 */
export const fileWrites: Migration = {
  version: 11,
  name: 'file-writes',
  sql: `
    CREATE TABLE file_writes (
      path    TEXT NOT NULL,
      client  TEXT NOT NULL,
      tool    TEXT NOT NULL,
      call_id TEXT NOT NULL,
      at      INTEGER NOT NULL,
      PRIMARY KEY (path, client)
    ) WITHOUT ROWID;
    CREATE INDEX file_writes_by_age ON file_writes (at);
  `,
};

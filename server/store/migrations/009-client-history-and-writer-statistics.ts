import type { Migration } from './migration.js';

/**
 * Two things a client limited to its own data needs.
 *
 * - `clients.history`: which calls a named client reads in the history (`own`: only those it made, or `all`). Every
 *   client, those that existed before this setting included, starts at `own`: before it, every token read every
 *   other client's arguments and results (file contents among them).
 */
export const clientHistoryAndWriterStatistics: Migration = {
  version: 9,
  name: 'client history scope, memory statistics per writer',
  sql: `
    ALTER TABLE clients ADD COLUMN history TEXT NOT NULL DEFAULT 'own' CHECK (history IN ('all', 'own'));
  `,
};

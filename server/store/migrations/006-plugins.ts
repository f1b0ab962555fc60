import type { Migration } from './migration.js';

/**
 * What the owner accepted of each plugin: the hash of its files, its tools (names, descriptions, schemas) and its
 * permissions at that moment, so a plugin that changes afterwards is held back and its changes can be shown.
 */
export const plugins: Migration = {
  version: 6,
  name: 'plugins',
  sql: `
    CREATE TABLE plugins (
      name        TEXT PRIMARY KEY,
      hash        TEXT NOT NULL,
      tools       TEXT NOT NULL,
      permissions TEXT NOT NULL,
      accepted_at INTEGER NOT NULL,
      accepted_by TEXT NOT NULL,
      disabled    INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1))
    );
  `,
};

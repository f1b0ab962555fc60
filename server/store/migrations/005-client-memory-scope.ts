import type { Migration } from './migration.js';

/**
 * Which memories a named client sees: `all`, or only `own` (those it wrote). Clients that existed before this
 * setting keep seeing every memory; the store writes `own` for every client created from now on.
 */
export const clientMemoryScope: Migration = {
  version: 5,
  name: 'client memory scope',
  sql: `
    ALTER TABLE clients ADD COLUMN memories TEXT NOT NULL DEFAULT 'all' CHECK (memories IN ('all', 'own'));
  `,
};

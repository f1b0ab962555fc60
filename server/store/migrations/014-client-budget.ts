import type { Migration } from './migration.js';

/**
 * A client's tool budget: besides `max_tools` (how many tools its lists carry), the tools always listed for it.
 * JSON list of names; null: none pinned.
 */
export const clientBudget: Migration = {
  version: 14,
  name: 'client-budget',
  sql: `ALTER TABLE client_profiles ADD COLUMN pinned TEXT;`,
};

import type { Migration } from './migration.js';

/**
 * How a model's call reached the pipeline when it was not a clean native call: recovered from the model's text (the
 * family shape it was written in), its arguments repaired, its name normalised. JSON; null for every other call.
 */
export const callRecovery: Migration = {
  version: 13,
  name: 'call-recovery',
  sql: `ALTER TABLE calls ADD COLUMN recovery TEXT;`,
};

import type { Migration } from './migration.js';

/**
 * The files of each plugin as the owner accepted it (path, size, content hash), so a changed plugin shows which
 * files differ before any of its code runs. Older acceptances keep NULL: they show the change without the list.
 */
export const pluginFiles: Migration = {
  version: 10,
  name: 'plugin-files',
  sql: `ALTER TABLE plugins ADD COLUMN files TEXT;`,
};

import type { Migration } from './migration.js';

/**
 * One table of the owner's acceptances for every kind of tool source: a plugin is accepted as a whole (`tool` is
 * ''), an imported MCP server tool by tool (its own row, tool '', holds the package version its tools were accepted
 * with). `accepted` is what the owner saw (a plugin's tools, permissions and files; an MCP tool's definition; a
 * server's package version), `risk` the owner's rating where the source does not declare its own. The plugins'
 * acceptances move here unchanged; the MCP servers' (kept until now in JSON files in the data directory) are read
 * into it by the gateway, which can see those files.
 */
export const acceptances: Migration = {
  version: 15,
  name: 'acceptances',
  sql: `
    CREATE TABLE acceptances (
      kind        TEXT NOT NULL,
      source      TEXT NOT NULL,
      tool        TEXT NOT NULL DEFAULT '',
      hash        TEXT NOT NULL,
      accepted    TEXT NOT NULL,
      risk        TEXT,
      disabled    INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
      accepted_at INTEGER NOT NULL,
      accepted_by TEXT NOT NULL,
      PRIMARY KEY (kind, source, tool)
    );
    INSERT INTO acceptances (kind, source, tool, hash, accepted, risk, disabled, accepted_at, accepted_by)
      SELECT 'plugin', name, '', hash,
             json_object('tools', json(tools), 'permissions', json(permissions), 'files', json(files)),
             NULL, disabled, accepted_at, accepted_by
      FROM plugins;
    DROP TABLE plugins;
  `,
};

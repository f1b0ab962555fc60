import type { Migration } from './migration.js';

export const approvalsRulesProfiles: Migration = {
  version: 2,
  name: 'approvals, rules, client profiles, settings',
  sql: `
    CREATE TABLE approvals (
      id            TEXT    PRIMARY KEY,
      call_id       TEXT    NOT NULL,
      tool          TEXT    NOT NULL,
      client        TEXT    NOT NULL,
      arguments     TEXT,
      risk          TEXT    NOT NULL,
      rule          TEXT    NOT NULL,
      reason        TEXT    NOT NULL,
      status        TEXT    NOT NULL,
      decision      TEXT,
      message       TEXT,
      granted_rule  TEXT,
      created_at    INTEGER NOT NULL,
      expires_at    INTEGER NOT NULL,
      decided_at    INTEGER,
      decided_by    TEXT
    );
    CREATE INDEX approvals_open ON approvals (status) WHERE status = 'pending';

    CREATE TABLE rules (
      id            TEXT    PRIMARY KEY,
      effect        TEXT    NOT NULL,
      tool          TEXT    NOT NULL,
      scope         TEXT    NOT NULL,
      pattern       TEXT,
      note          TEXT,
      created_by    TEXT    NOT NULL,
      created_at    INTEGER NOT NULL,
      expires_at    INTEGER,
      uses          INTEGER NOT NULL DEFAULT 0,
      last_used_at  INTEGER
    );

    CREATE TABLE client_profiles (
      name        TEXT    PRIMARY KEY,
      tools       TEXT,
      max_tools   INTEGER,
      updated_at  INTEGER NOT NULL
    );

    CREATE TABLE settings (
      key    TEXT PRIMARY KEY,
      value  TEXT NOT NULL
    );
  `,
};

import type { Migration } from './migration.js';

export const initial: Migration = {
  version: 1,
  name: 'initial',
  sql: `
    CREATE TABLE calls (
      seq            INTEGER PRIMARY KEY,
      id             TEXT    NOT NULL UNIQUE,
      tool           TEXT    NOT NULL,
      client         TEXT    NOT NULL,
      via            TEXT    NOT NULL,
      arguments      TEXT,
      result         TEXT,
      status         TEXT    NOT NULL,
      error_name     TEXT,
      error_message  TEXT,
      http_status    INTEGER,
      decision       TEXT,
      rule           TEXT,
      reason         TEXT,
      cache_hit      INTEGER NOT NULL DEFAULT 0,
      started_at     INTEGER NOT NULL,
      finished_at    INTEGER,
      duration_ms    REAL
    );
    -- Every index is written on every call: keep only those the history and statistics need.
    CREATE INDEX calls_by_tool     ON calls (tool, seq);
    CREATE INDEX calls_by_client   ON calls (client, seq);
    CREATE INDEX calls_by_started  ON calls (started_at);
    -- Partial: holds only calls still open, so finished calls cost it nothing.
    CREATE INDEX calls_open        ON calls (status) WHERE status IN ('running', 'pending');

    CREATE TABLE tool_settings (
      name        TEXT    PRIMARY KEY,
      enabled     INTEGER NOT NULL,
      updated_at  INTEGER NOT NULL
    );

    CREATE TABLE clients (
      name          TEXT    PRIMARY KEY,
      token_hash    TEXT    NOT NULL UNIQUE,
      token_hint    TEXT    NOT NULL,
      created_at    INTEGER NOT NULL,
      revoked_at    INTEGER,
      last_used_at  INTEGER
    );

    CREATE TABLE owner_sessions (
      id_hash     TEXT    PRIMARY KEY,
      created_at  INTEGER NOT NULL,
      expires_at  INTEGER NOT NULL
    );

    CREATE TABLE used_login_codes (
      nonce       TEXT    PRIMARY KEY,
      expires_at  INTEGER NOT NULL
    );
  `,
};

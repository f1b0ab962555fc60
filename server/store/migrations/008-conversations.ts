import type { Migration } from './migration.js';

/**
 * The LLM bridge's conversations: one row per conversation (whose it is, the model, when), and its messages in
 * order, each the bridge's message JSON (secrets redacted) with the tool steps and timings of the turn it ended.
 */
export const conversations: Migration = {
  version: 8,
  name: 'conversations',
  sql: `
    CREATE TABLE conversations (
      id         TEXT PRIMARY KEY,
      client     TEXT NOT NULL,
      title      TEXT NOT NULL,
      model      TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
    CREATE INDEX conversations_by_client ON conversations (client, updated_at DESC);
    CREATE INDEX conversations_by_age ON conversations (updated_at);
    CREATE TABLE conversation_messages (
      conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
      seq             INTEGER NOT NULL,
      role            TEXT NOT NULL,
      message         TEXT NOT NULL,
      meta            TEXT,
      created_at      INTEGER NOT NULL,
      PRIMARY KEY (conversation_id, seq)
    );
  `,
};

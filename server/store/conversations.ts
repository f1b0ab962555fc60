import type { ConversationSummary } from '../contract/chat.js';
import type { Db } from './db.js';

// A conversation's summary is the wire contract's (GET /chat/conversations).
export type { ConversationSummary } from '../contract/chat.js';

export interface StoredMessage {
  seq: number;
  /** The message as the bridge keeps it (role, content, tool calls or the call it answers). */
  message: { role: string; content: string; [key: string]: unknown };
  /** For an answer: the tool steps, model and timings of its turn. */
  meta: Record<string, unknown> | null;
  created_at: string;
}

interface ConversationRow {
  id: string;
  client: string;
  title: string;
  model: string;
  created_at: number;
  updated_at: number;
  messages: number;
}

interface MessageRow {
  seq: number;
  message: string;
  meta: string | null;
  created_at: number;
}

/** Conversations of the LLM bridge. Values arrive here already redacted. */
export class ConversationStore {
  constructor(private readonly db: Db) {}

  create(entry: { id: string; client: string; title: string; model: string }, now = Date.now()): void {
    this.db
      .prepare('INSERT INTO conversations (id, client, title, model, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(entry.id, entry.client, entry.title, entry.model, now, now);
  }

  get(id: string): ConversationSummary | undefined {
    const row = this.db
      .prepare<[string], ConversationRow>(
        'SELECT c.*, (SELECT COUNT(*) FROM conversation_messages m WHERE m.conversation_id = c.id) AS messages FROM conversations c WHERE c.id = ?',
      )
      .get(id);
    return row && summary(row);
  }

  /** Newest first; a client's own only, unless `client` is undefined (the owner). */
  list(client: string | undefined, limit: number): ConversationSummary[] {
    const rows = this.db
      .prepare<[string | null, string | null, number], ConversationRow>(
        `SELECT c.*, (SELECT COUNT(*) FROM conversation_messages m WHERE m.conversation_id = c.id) AS messages
         FROM conversations c WHERE (? IS NULL OR c.client = ?) ORDER BY c.updated_at DESC, c.id DESC LIMIT ?`,
      )
      .all(client ?? null, client ?? null, limit);
    return rows.map(summary);
  }

  messages(id: string): StoredMessage[] {
    return this.db
      .prepare<[string], MessageRow>('SELECT seq, message, meta, created_at FROM conversation_messages WHERE conversation_id = ? ORDER BY seq')
      .all(id)
      .map((row) => ({
        seq: row.seq,
        message: JSON.parse(row.message) as StoredMessage['message'],
        meta: row.meta === null ? null : (JSON.parse(row.meta) as Record<string, unknown>),
        created_at: new Date(row.created_at).toISOString(),
      }));
  }

  /** Appends a turn's messages in one transaction and marks the conversation as used now, with the model used. */
  append(id: string, model: string, messages: { message: unknown; meta?: unknown }[], now = Date.now()): void {
    this.db.transaction(() => {
      const next = this.db.prepare<[string], { next: number }>('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM conversation_messages WHERE conversation_id = ?').get(id)!.next;
      const insert = this.db.prepare('INSERT INTO conversation_messages (conversation_id, seq, role, message, meta, created_at) VALUES (?, ?, ?, ?, ?, ?)');
      messages.forEach((entry, i) => {
        const role = String((entry.message as { role?: unknown }).role ?? '');
        insert.run(id, next + i, role, JSON.stringify(entry.message), entry.meta === undefined ? null : JSON.stringify(entry.meta), now);
      });
      this.db.prepare('UPDATE conversations SET updated_at = ?, model = ? WHERE id = ?').run(now, model, id);
    })();
  }

  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM conversations WHERE id = ?').run(id).changes > 0;
  }

  /** How many conversations were last used before `before` (epoch ms): what prune(before) would delete. */
  countOlderThan(before: number): number {
    return (this.db.prepare('SELECT count(*) AS n FROM conversations WHERE updated_at < ?').get(before) as { n: number }).n;
  }

  /** Deletes conversations last used before `before` (epoch ms); answers how many went. */
  prune(before: number): number {
    return this.db.prepare('DELETE FROM conversations WHERE updated_at < ?').run(before).changes;
  }
}

function summary(row: ConversationRow): ConversationSummary {
  return {
    id: row.id,
    client: row.client,
    title: row.title,
    model: row.model,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
    messages: row.messages,
  };
}

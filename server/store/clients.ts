import type { ClientToken, HistoryScope, MemoryScope } from '../contract/clients.js';
import type { Db } from './db.js';

// Scopes and a token's listing are the wire contract's (GET /clients).
export type { HistoryScope, MemoryScope } from '../contract/clients.js';
/** The client the generated token (and `--no-auth`) acts as: it sees every call and memory, as the owner does. */
export const DEFAULT_CLIENT = 'default';
/** The name the owner's own calls (dashboard, tray, CLI) are recorded under. */
export const OWNER = 'owner';
export const MEMORY_SCOPES: readonly MemoryScope[] = ['all', 'own'];
export const HISTORY_SCOPES: readonly HistoryScope[] = ['all', 'own'];

/** The tables whose rows name the client they belong to. */
const CLIENT_TABLES = ['calls', 'memories', 'conversations', 'approvals', 'file_writes'] as const;

/**
 * The name the records of a revoked client move to when its name is issued again: `alice~revoked-2026-12-03T09:51:10.123Z`.
 * No client can be issued it ("~" is not allowed in names), so no later token reads them as its own.
 */
export function archivedName(name: string, revokedAt: number): string {
  return `${name}~revoked-${new Date(revokedAt).toISOString()}`;
}

/** A named client's token as listed: never the token itself. */
export type ClientInfo = ClientToken;

/** A client just added; `archived_as`: where the records of an earlier holder of the name went (ClientStore.add). */
export type AddedClient = ClientInfo & { archived_as?: string };

interface ClientRow {
  name: string;
  token_hint: string;
  created_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
  memories: MemoryScope;
  history: HistoryScope;
}

const toInfo = (row: ClientRow): ClientInfo => ({
  name: row.name,
  token_hint: row.token_hint,
  created_at: new Date(row.created_at).toISOString(),
  revoked_at: row.revoked_at === null ? null : new Date(row.revoked_at).toISOString(),
  last_used_at: row.last_used_at === null ? null : new Date(row.last_used_at).toISOString(),
  memories: row.memories,
  history: row.history,
});

/** add() found an active client with that name. */
export class ClientExistsError extends Error {
  override readonly name = 'ClientExistsError';
  constructor(readonly client: string) {
    super(`A client named "${client}" already exists; revoke it first or choose another name.`);
  }
}

/** Named client tokens. Only a hash of each token is kept: a stolen database does not yield working tokens. */
export class ClientStore {
  readonly #byHash;
  readonly #touch;
  readonly #add;
  readonly #scopes;

  constructor(private readonly db: Db) {
    this.#byHash = db.prepare<[string], { name: string }>(
      'SELECT name FROM clients WHERE token_hash = ? AND revoked_at IS NULL',
    );
    this.#touch = db.prepare<[number, string]>('UPDATE clients SET last_used_at = ? WHERE name = ?');
    // Replaces only a revoked row: the check and the write are one statement, so `pincer token create` and a
    // running gateway (two processes, one database) cannot both take a name.
    // A client created from now on sees only its own memories and calls until the owner says otherwise (a name reused
    // after a revocation is a new client: it starts there too).
    this.#add = db.prepare<[string, string, string, number]>(
      `INSERT INTO clients (name, token_hash, token_hint, created_at, memories, history) VALUES (?, ?, ?, ?, 'own', 'own')
       ON CONFLICT (name) DO UPDATE SET token_hash = excluded.token_hash, token_hint = excluded.token_hint,
         created_at = excluded.created_at, revoked_at = NULL, last_used_at = NULL, memories = excluded.memories,
         history = excluded.history
       WHERE clients.revoked_at IS NOT NULL`,
    );
    this.#scopes = db.prepare<[string], { memories: MemoryScope; history: HistoryScope; revoked_at: number | null }>(
      'SELECT memories, history, revoked_at FROM clients WHERE name = ?',
    );
  }

  /**
   * Adds a client; a name revoked earlier can be reused and gets the new token, and what the earlier holder of the
   * name did and wrote moves to its archived name (archivedName). Throws ClientExistsError when an active client has
   * the name.
   *
   * Security: data is kept by client name. A token that leaked and was revoked would otherwise pass what it left —
   * memories meant to steer the model, its calls — to the name's next token, which reads "its own".
   */
  add(name: string, tokenHash: string, tokenHint: string, now = Date.now()): AddedClient {
    const archivedAs = this.db
      .transaction(() => {
        const earlier = this.#scopes.get(name);
        if (this.#add.run(name, tokenHash, tokenHint, now).changes === 0) throw new ClientExistsError(name);
        if (earlier?.revoked_at == null) return undefined;
        const archive = archivedName(name, earlier.revoked_at);
        this.#archive(name, archive);
        return archive;
      })
      .immediate();
    // The row as just written: no need to read it back.
    const info: AddedClient = toInfo({ name, token_hint: tokenHint, created_at: now, revoked_at: null, last_used_at: null, memories: 'own', history: 'own' });
    if (archivedAs !== undefined) info.archived_as = archivedAs;
    return info;
  }

  /** Every record kept under a client's name (calls, memories, conversations, approvals, files written) moves to `to`. */
  #archive(name: string, to: string): void {
    for (const table of CLIENT_TABLES) this.db.prepare(`UPDATE ${table} SET client = ? WHERE client = ?`).run(to, name);
  }

  /** One client, active or revoked. */
  get(name: string): ClientInfo | undefined {
    const row = this.db.prepare<[string], ClientRow>('SELECT * FROM clients WHERE name = ?').get(name);
    return row && toInfo(row);
  }

  findByTokenHash(tokenHash: string): string | undefined {
    return this.#byHash.get(tokenHash)?.name;
  }

  touch(name: string, now = Date.now()): void {
    this.#touch.run(now, name);
  }

  revoke(name: string, now = Date.now()): boolean {
    return (
      this.db.prepare('UPDATE clients SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL').run(now, name)
        .changes === 1
    );
  }

  /**
   * Which memories a client sees, read on every use so a change made by another process (the CLI) counts at once.
   * Names without a row: see scopes.
   */
  memoryScope(name: string): MemoryScope {
    return this.scopes(name).memories;
  }

  /** Sets an active client's memory scope; false when no active client has that name. */
  setMemoryScope(name: string, scope: MemoryScope): boolean {
    return this.db.prepare('UPDATE clients SET memories = ? WHERE name = ? AND revoked_at IS NULL').run(scope, name).changes === 1;
  }

  /**
   * Which calls and memories a client reads, in one lookup (read on every use, as memoryScope). Of the names without
   * a row, the default client and the owner read everything; any other — the token-less Ollama client, a name no
   * token was issued for — reads only its own (Security: a caller that presents no token must not read what the
   * named clients remembered or did). A revoked client (its token stopped working while a request or stream was
   * under way) reads only its own, whatever it had.
   */
  scopes(name: string): { memories: MemoryScope; history: HistoryScope } {
    const row = this.#scopes.get(name);
    if (!row) return name === DEFAULT_CLIENT || name === OWNER ? { memories: 'all', history: 'all' } : { memories: 'own', history: 'own' };
    return row.revoked_at === null ? { memories: row.memories, history: row.history } : { memories: 'own', history: 'own' };
  }

  /** Sets an active client's history scope; false when no active client has that name. */
  setHistoryScope(name: string, scope: HistoryScope): boolean {
    return this.db.prepare('UPDATE clients SET history = ? WHERE name = ? AND revoked_at IS NULL').run(scope, name).changes === 1;
  }

  /** The clients revoked at or after `since` (epoch ms), oldest revocation first. */
  revokedSince(since: number): { name: string; revoked_at: number }[] {
    return this.db
      .prepare<[number], { name: string; revoked_at: number }>('SELECT name, revoked_at FROM clients WHERE revoked_at >= ? ORDER BY revoked_at')
      .all(since);
  }

  list(): ClientInfo[] {
    return this.db.prepare<[], ClientRow>('SELECT * FROM clients ORDER BY name').all().map(toInfo);
  }
}

import type { Db } from './db.js';

/** Owner sessions (by hash of the cookie value) and spent login codes. */
export class OwnerStore {
  constructor(private readonly db: Db) {}

  addSession(idHash: string, expiresAt: number, now = Date.now()): void {
    this.db.prepare('INSERT INTO owner_sessions (id_hash, created_at, expires_at) VALUES (?, ?, ?)').run(idHash, now, expiresAt);
  }

  hasSession(idHash: string, now = Date.now()): boolean {
    return (
      this.db.prepare<[string, number], { n: number }>(
        'SELECT 1 AS n FROM owner_sessions WHERE id_hash = ? AND expires_at > ?',
      ).get(idHash, now) !== undefined
    );
  }

  removeSession(idHash: string): void {
    this.db.prepare('DELETE FROM owner_sessions WHERE id_hash = ?').run(idHash);
  }

  /** Records a login code as spent; false when it was spent before (a replayed link). */
  spendLoginCode(nonce: string, expiresAt: number): boolean {
    return this.db.prepare('INSERT OR IGNORE INTO used_login_codes (nonce, expires_at) VALUES (?, ?)').run(nonce, expiresAt)
      .changes === 1;
  }

  purgeExpired(now = Date.now()): void {
    this.db.prepare('DELETE FROM owner_sessions WHERE expires_at <= ?').run(now);
    this.db.prepare('DELETE FROM used_login_codes WHERE expires_at <= ?').run(now);
  }
}

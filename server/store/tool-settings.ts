import type { Db } from './db.js';

/** Persisted per-tool switches. */
export class ToolSettingsStore {
  constructor(private readonly db: Db) {}

  disabledTools(): string[] {
    return this.db
      .prepare<[], { name: string }>('SELECT name FROM tool_settings WHERE enabled = 0')
      .all()
      .map((r) => r.name);
  }

  setEnabled(name: string, enabled: boolean, now = Date.now()): void {
    this.db
      .prepare(
        `INSERT INTO tool_settings (name, enabled, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at`,
      )
      .run(name, enabled ? 1 : 0, now);
  }
}

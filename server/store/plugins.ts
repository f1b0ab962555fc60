import type { Db } from './db.js';

/** The owner's acceptance of a plugin as it was then, and whether they disabled it. */
export interface PluginAcceptance {
  name: string;
  hash: string;
  tools: unknown[];
  permissions: unknown;
  /** Its files then (path, size, content hash); null for an acceptance recorded before files were kept. */
  files: unknown[] | null;
  accepted_at: string;
  accepted_by: string;
  disabled: boolean;
}

interface Row {
  name: string;
  hash: string;
  tools: string;
  permissions: string;
  files: string | null;
  accepted_at: number;
  accepted_by: string;
  disabled: number;
}

export class PluginStore {
  constructor(private readonly db: Db) {}

  get(name: string): PluginAcceptance | undefined {
    const row = this.db.prepare<[string], Row>('SELECT * FROM plugins WHERE name = ?').get(name);
    return row && {
      name: row.name,
      hash: row.hash,
      tools: JSON.parse(row.tools) as unknown[],
      permissions: JSON.parse(row.permissions) as unknown,
      files: row.files === null ? null : (JSON.parse(row.files) as unknown[]),
      accepted_at: new Date(row.accepted_at).toISOString(),
      accepted_by: row.accepted_by,
      disabled: row.disabled === 1,
    };
  }

  /** Records the plugin as the owner accepts it now; a disabled plugin stays disabled. */
  accept(entry: { name: string; hash: string; tools: unknown[]; permissions: unknown; files: unknown[] }, by: string, now = Date.now()): void {
    this.db
      .prepare(
        `INSERT INTO plugins (name, hash, tools, permissions, files, accepted_at, accepted_by) VALUES (@name, @hash, @tools, @permissions, @files, @now, @by)
         ON CONFLICT (name) DO UPDATE SET hash = excluded.hash, tools = excluded.tools, permissions = excluded.permissions,
           files = excluded.files, accepted_at = excluded.accepted_at, accepted_by = excluded.accepted_by`,
      )
      .run({
        name: entry.name,
        hash: entry.hash,
        tools: JSON.stringify(entry.tools),
        permissions: JSON.stringify(entry.permissions),
        files: JSON.stringify(entry.files),
        now,
        by,
      });
  }

  /** False when the plugin was never accepted (there is nothing to disable or enable). */
  setDisabled(name: string, disabled: boolean): boolean {
    return this.db.prepare('UPDATE plugins SET disabled = ? WHERE name = ?').run(disabled ? 1 : 0, name).changes > 0;
  }

  forget(name: string): void {
    this.db.prepare('DELETE FROM plugins WHERE name = ?').run(name);
  }
}

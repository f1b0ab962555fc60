import type { Db } from './db.js';

/**
 * What one client may use: a subset of tools (null: every enabled tool), and its budget: how many tools its lists
 * carry (null: all of them) and the tools always among them.
 */
export interface ClientProfile {
  name: string;
  tools: string[] | null;
  max_tools: number | null;
  pinned: string[];
}

export class ProfileStore {
  constructor(private readonly db: Db) {}

  all(): ClientProfile[] {
    return this.db
      .prepare<[], { name: string; tools: string | null; max_tools: number | null; pinned: string | null }>('SELECT name, tools, max_tools, pinned FROM client_profiles')
      .all()
      .map((r) => ({
        name: r.name,
        tools: r.tools === null ? null : (JSON.parse(r.tools) as string[]),
        max_tools: r.max_tools,
        pinned: r.pinned === null ? [] : (JSON.parse(r.pinned) as string[]),
      }));
  }

  set(profile: ClientProfile, now = Date.now()): void {
    this.db
      .prepare(
        `INSERT INTO client_profiles (name, tools, max_tools, pinned, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET tools = excluded.tools, max_tools = excluded.max_tools, pinned = excluded.pinned,
           updated_at = excluded.updated_at`,
      )
      .run(profile.name, profile.tools === null ? null : JSON.stringify(profile.tools), profile.max_tools, profile.pinned.length > 0 ? JSON.stringify(profile.pinned) : null, now);
  }
}

/** Small owner settings (the pause switch). */
export class SettingsStore {
  constructor(private readonly db: Db) {}

  get(key: string): string | undefined {
    return this.db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?').get(key)?.value;
  }

  set(key: string, value: string): void {
    this.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
  }
}

import type { Db } from './db.js';

/** What one client may use: a subset of tools (null: every enabled tool) and an optional cap on list length. */
export interface ClientProfile {
  name: string;
  tools: string[] | null;
  max_tools: number | null;
}

export class ProfileStore {
  constructor(private readonly db: Db) {}

  all(): ClientProfile[] {
    return this.db
      .prepare<[], { name: string; tools: string | null; max_tools: number | null }>('SELECT name, tools, max_tools FROM client_profiles')
      .all()
      .map((r) => ({ name: r.name, tools: r.tools === null ? null : (JSON.parse(r.tools) as string[]), max_tools: r.max_tools }));
  }

  set(profile: ClientProfile, now = Date.now()): void {
    this.db
      .prepare(
        `INSERT INTO client_profiles (name, tools, max_tools, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET tools = excluded.tools, max_tools = excluded.max_tools, updated_at = excluded.updated_at`,
      )
      .run(profile.name, profile.tools === null ? null : JSON.stringify(profile.tools), profile.max_tools, now);
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

import type { AcceptanceStore } from './acceptances.js';

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

interface AcceptedPlugin {
  tools?: unknown[];
  permissions?: unknown;
  files?: unknown[] | null;
}

/** A plugin's acceptances in the one acceptance store: a plugin is accepted as a whole. */
export class PluginStore {
  constructor(private readonly acceptances: AcceptanceStore) {}

  get(name: string): PluginAcceptance | undefined {
    const row = this.acceptances.get('plugin', name);
    if (!row) return undefined;
    const accepted = (row.accepted ?? {}) as AcceptedPlugin;
    return {
      name: row.source,
      hash: row.hash,
      tools: accepted.tools ?? [],
      permissions: accepted.permissions ?? null,
      files: accepted.files ?? null,
      accepted_at: row.accepted_at,
      accepted_by: row.accepted_by,
      disabled: row.disabled,
    };
  }

  /** Records the plugin as the owner accepts it now; a disabled plugin stays disabled. */
  accept(entry: { name: string; hash: string; tools: unknown[]; permissions: unknown; files: unknown[] }, by: string, now = Date.now()): void {
    const accepted: AcceptedPlugin = { tools: entry.tools, permissions: entry.permissions, files: entry.files };
    this.acceptances.put({ kind: 'plugin', source: entry.name, hash: entry.hash, accepted }, by, now);
  }

  /** False when the plugin was never accepted (there is nothing to disable or enable). */
  setDisabled(name: string, disabled: boolean): boolean {
    return this.acceptances.setDisabled('plugin', name, '', disabled);
  }

  forget(name: string): void {
    this.acceptances.forget('plugin', name);
  }
}

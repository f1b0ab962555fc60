import { CallStore } from './calls.js';
import { ClientStore } from './clients.js';
import { openDatabase, type OpenDatabaseOptions } from './db.js';
import { OwnerStore } from './owner.js';
import { ToolSettingsStore } from './tool-settings.js';

export type { CallRecord, CallStatus, CallFilter, ToolStats, TimeBucket } from './calls.js';
export { CALL_STATUSES } from './calls.js';
export type { ClientInfo } from './clients.js';

/** The one SQLite database and the stores over it. Only server/store/ touches better-sqlite3. */
export interface Store {
  calls: CallStore;
  clients: ClientStore;
  owner: OwnerStore;
  toolSettings: ToolSettingsStore;
  close(): void;
}

export function openStore(file: string, options: OpenDatabaseOptions = {}): Store {
  const db = openDatabase(file, options);
  return {
    calls: new CallStore(db),
    clients: new ClientStore(db),
    owner: new OwnerStore(db),
    toolSettings: new ToolSettingsStore(db),
    close: () => db.close(),
  };
}

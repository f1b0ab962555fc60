import { CallStore } from './calls.js';
import { ClientStore } from './clients.js';
import { openDatabase, type OpenDatabaseOptions } from './db.js';
import { OwnerStore } from './owner.js';
import { ToolSettingsStore } from './tool-settings.js';
import { ApprovalStore } from './approvals.js';
import { ProfileStore, SettingsStore } from './profiles.js';
import { PluginStore } from './plugins.js';
import { AcceptanceStore } from './acceptances.js';
import { RuleStore } from './rules.js';
import { MemoryStore } from './memories.js';
import { ConversationStore } from './conversations.js';
import { FileWriteStore } from './file-writes.js';

export type { CallRecord, CallRecovery, CallStatus, CallFilter, ToolStats, ClientStats, TimeBucket, PruneLimits } from './calls.js';
export { CALL_STATUSES } from './calls.js';
export type { ClientInfo, HistoryScope, MemoryScope } from './clients.js';
export { ClientExistsError, HISTORY_SCOPES, MEMORY_SCOPES } from './clients.js';
export type { ApprovalRecord, ApprovalStatus, ApprovalDecision, ApprovalKind } from './approvals.js';
export { APPROVAL_KINDS } from './approvals.js';
export type { Rule, RuleEffect, RuleScope } from './rules.js';
export { RULE_EFFECTS, RULE_SCOPES } from './rules.js';
export type { ClientProfile } from './profiles.js';
export type { PluginAcceptance } from './plugins.js';
export type { Acceptance, AcceptanceInput, AcceptanceKind } from './acceptances.js';
export { AcceptanceStore } from './acceptances.js';
export type { Memory, MemoryFilter } from './memories.js';
export type { ConversationSummary, StoredMessage } from './conversations.js';
export type { FileWrite } from './file-writes.js';

const CHECKPOINT_INTERVAL_MS = 1000;

/** The one SQLite database and the stores over it. Only server/store/ touches better-sqlite3. */
export interface Store {
  calls: CallStore;
  clients: ClientStore;
  owner: OwnerStore;
  toolSettings: ToolSettingsStore;
  approvals: ApprovalStore;
  rules: RuleStore;
  profiles: ProfileStore;
  settings: SettingsStore;
  memories: MemoryStore;
  /** The owner's acceptances of outside tools, every kind of source. */
  acceptances: AcceptanceStore;
  plugins: PluginStore;
  conversations: ConversationStore;
  /** Which client last wrote which file (for the approval card's provenance). */
  fileWrites: FileWriteStore;
  close(): void;
}

export function openStore(file: string, options: OpenDatabaseOptions = {}): Store {
  const db = openDatabase(file, options);
  const calls = new CallStore(db);
  const acceptances = new AcceptanceStore(db);
  // SQLite's automatic checkpoint runs inside whichever commit crosses the threshold, fsync included, and so lands
  // on one unlucky call every few hundred. Checkpointing on a timer instead keeps that cost off the calls.
  db.pragma('wal_autocheckpoint = 0');
  const checkpoints = setInterval(() => db.pragma('wal_checkpoint(PASSIVE)'), CHECKPOINT_INTERVAL_MS);
  checkpoints.unref();
  return {
    calls,
    clients: new ClientStore(db),
    owner: new OwnerStore(db),
    toolSettings: new ToolSettingsStore(db),
    approvals: new ApprovalStore(db),
    rules: new RuleStore(db),
    profiles: new ProfileStore(db),
    settings: new SettingsStore(db),
    memories: new MemoryStore(db),
    acceptances,
    plugins: new PluginStore(acceptances),
    conversations: new ConversationStore(db),
    fileWrites: new FileWriteStore(db),
    close: () => {
      clearInterval(checkpoints);
      calls.flush();
      db.close();
    },
  };
}
export { HistoryRetention, type RetentionView, type RetentionOptions } from './retention.js';
export { DataDirInUseError, DataDirLock, describeHolder, lockHolder, LOCK_DB, LOCK_FILE, type LockHolder, type LockOptions } from './data-dir-lock.js';

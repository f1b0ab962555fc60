/**
 * The parts of a gateway, each built by one function that createGateway calls in order: the data folder and its
 * database, the tools, the policy, the approvals, the executor, the history's retention.
 */
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { PincerConfig } from '../config/config.js';
import type { CheckedRoots } from '../security/path-guard.js';
import { GatewaySettings } from '../config/settings.js';
import { EventBus } from '../events/bus.js';
import { Executor } from '../executor/executor.js';
import { ResultCache } from '../executor/cache.js';
import type { Origins } from '../http/guards.js';
import { describeLeftover, ProcessLedger, ProcessRunner } from '../process/index.js';
import { DataDirLock, HistoryRetention, openStore, type Store } from '../store/index.js';
import { Memories } from '../memory/memories.js';
import { createBuiltins } from '../builtins.js';
import { ApprovalBroker } from '../approvals/broker.js';
import { ClientAccess } from '../policy/access.js';
import { RuleBook } from '../policy/rules.js';
import { ensurePrivateDir } from '../auth/secrets.js';
import { PolicyEngine } from '../policy/engine.js';
import { FileProvenance } from '../policy/provenance.js';
import { ToolRegistry } from '../tools/registry.js';
import { ToolSearch } from '../policy/tool-search.js';
import { Redactor } from '../util/redact.js';
import type { GatewayOptions } from './options.js';

/** A client with this many calls waiting for the owner gets its next ask refused: a flood of asks stays bounded. */
export const MAX_PENDING_APPROVALS_PER_CLIENT = 20;
/** Expired cache entries are dropped this often, so an answer nobody asks for again does not hold memory. */
export const CACHE_SWEEP_INTERVAL_MS = 60_000;

/** Where the gateway answers, once it listens: the port its own tools and plugins may reach, the origins it accepts. */
export interface Endpoint {
  port?: number;
  address?: { host: string; port: number; url: string };
  origins: Origins;
  server?: Server;
}

/** The data folder while this gateway holds it: its lock, its ledger of child processes, its database. */
export interface DataFolder {
  lock: DataDirLock;
  processes: ProcessRunner;
  store: Store;
}

/**
 * The data folder, locked, and its database. Before anything is read or changed: a folder another gateway serves is
 * left exactly as it is (DataDirInUseError).
 */
export function openDataFolder(options: GatewayOptions, log: (line: string) => void): DataFolder {
  const { config } = options;
  ensurePrivateDir(config.dataDir);
  const sqlite = options.sqliteBinding ? { nativeBinding: options.sqliteBinding } : {};
  const lock = DataDirLock.acquire(config.dataDir, sqlite);
  const recover = options.recover !== false;
  let store: Store | undefined;
  try {
    const processes = new ProcessRunner({ ledger: new ProcessLedger(join(config.dataDir, 'run')), warn: (line) => log(`pincer: ${line}`) });
    // A gateway killed with kill -9 (or crashed) could not stop its children: end them before anything else starts.
    // The lock says no other gateway is running on this folder, so whatever the ledger lists is left over.
    for (const leftover of recover ? processes.recoverLeftovers() : []) {
      const line = describeLeftover(leftover);
      if (line) log(`pincer: ${line}`);
    }
    store = openStore(join(config.dataDir, 'pincer.db'), sqlite);
    // Calls and approvals a previous run left open (a crash, kill -9) can never finish now: their callers are gone.
    if (recover) {
      store.calls.cancelOpen();
      store.approvals.cancelOpen();
    }
    return { lock, processes, store };
  } catch (error) {
    try {
      store?.close();
    } finally {
      lock.release();
    }
    throw error;
  }
}

/** The tool registry with the built-in tools (and an embedder's extra ones); the roots are the settings' to change. */
export function buildTools(
  options: GatewayOptions,
  { store, processes }: DataFolder,
  events: EventBus,
  settings: GatewaySettings,
  endpoint: Endpoint,
  log: (line: string) => void,
  findTools: (client: string, query: string, limit: number) => ReturnType<ToolSearch['findForModel']>,
) {
  const { config } = options;
  const registry = new ToolRegistry();
  registry.restoreDisabled(store.toolSettings.disabledTools());
  const memories = new Memories(store.memories, (client) => store.clients.memoryScope(client));
  const builtins = createBuiltins({
    config,
    events,
    desktop: options.desktop,
    selfPort: () => endpoint.port,
    runner: processes,
    memories,
    bundledPluginsDir: options.bundledPluginsDir,
    // The index is built over the registry, which needs the built-ins first: the tool reaches it once it exists.
    findTools,
  });
  for (const tool of [...builtins.tools, ...(options.extraTools ?? [])]) registry.register(tool, 'builtin');
  if (builtins.sandbox.kind === 'none') {
    log(`pincer: no OS sandbox for run_shell, run_python and plugins: ${builtins.sandbox.detail} Commands run on the policy alone, plugins under Node's permission model alone.`);
  }
  settings.own('roots', { check: (list) => builtins.roots.check(list) });
  settings.onChange(({ patch }) => {
    if (patch.roots) builtins.roots.replace(patch.roots.checked as CheckedRoots);
  });
  return { registry, memories, builtins };
}
export type Tools = ReturnType<typeof buildTools>;

/** The rule book, client access (the pause switch among it), tool search and the policy every call is judged by. */
export function buildPolicy(store: Store, tools: Tools, events: EventBus, settings: GatewaySettings, redactor: Redactor) {
  const rules = new RuleBook(store, { events, redactor });
  const access = new ClientAccess(store, events);
  settings.own('paused', { read: () => access.paused });
  settings.onChange(({ patch }) => {
    if (patch.paused !== undefined) access.setPaused(patch.paused);
  });
  const toolSearch = new ToolSearch(tools.registry, access);
  // Which client wrote the files a command runs, for its approval card (and so it never runs unasked).
  const provenance = new FileProvenance(store);
  return { rules, access, toolSearch, provenance };
}
export type PolicyParts = ReturnType<typeof buildPolicy>;

export function buildApprovals(config: PincerConfig, store: Store, events: EventBus, settings: GatewaySettings, rules: RuleBook, redactor: Redactor): ApprovalBroker {
  const approvals = new ApprovalBroker({
    store,
    events,
    rules,
    redactor,
    timeoutMs: config.approvalTimeoutS * 1000,
    maxPendingPerClient: MAX_PENDING_APPROVALS_PER_CLIENT,
  });
  settings.onChange(({ patch }) => {
    if (patch.approval_timeout_s !== undefined) approvals.setTimeoutMs(patch.approval_timeout_s * 1000);
  });
  return approvals;
}

/** The one pipeline every call goes through, its result cache, and what a change of the tool set means for both. */
export function buildExecutor(options: GatewayOptions, store: Store, tools: Tools, policy: PolicyParts, approvals: ApprovalBroker, events: EventBus, redactor: Redactor) {
  const { config } = options;
  const { registry, builtins } = tools;
  const executor = new Executor({
    registry,
    store,
    events,
    approvals,
    rules: policy.rules,
    access: policy.access,
    policy: options.policy ?? new PolicyEngine(builtins.analyzers, policy.rules, policy.provenance),
    provenance: policy.provenance,
    sandboxAvailable: builtins.sandbox.kind !== 'none',
    defaultTimeoutMs: config.toolTimeoutMs,
    maxOutputBytes: config.maxOutputBytes,
    cache: new ResultCache(config.cacheMaxEntries),
    redactor,
  });
  const stopSweeping = executor.cache.sweepEvery(CACHE_SWEEP_INTERVAL_MS);
  registry.on('changed', ({ reason, names }) => {
    if (reason === 'toggled') for (const name of names) store.toolSettings.setEnabled(name, registry.isEnabled(name));
    for (const name of names) executor.cache.clear(name);
    events.emit('tools', { reason, names });
  });
  return { executor, stopSweeping };
}

/** Keeps the call history within config.json's `history` limits, once the owner has allowed it to prune. */
export function buildRetention(options: GatewayOptions, store: Store, settings: GatewaySettings): HistoryRetention {
  const retention = new HistoryRetention(store.calls, store.settings, options.config.history, { conversations: store.conversations, ...options.retention });
  retention.start();
  settings.own('history', {
    read: () => retention.view(),
    preview: (limits) => ({
      prunable: retention.prunableUnder(limits),
      newly_prunable: retention.newlyPrunableUnder(limits),
      newly_prunable_conversations: retention.newlyPrunableConversationsUnder(limits),
    }),
  });
  settings.onChange(({ patch }) => {
    // New limits carry the owner's word with them (if given); without it, limits that would delete what the old
    // ones keep hold pruning back until the owner allows it.
    if (patch.history) retention.setPolicy(options.config.history, patch.history_pruning_confirmed);
    else if (patch.history_pruning_confirmed !== undefined) retention.setConfirmed(patch.history_pruning_confirmed);
  });
  return retention;
}

/** The named clients with a working token (never the default client, whose token is the generated one). */
export function namedClients(store: Store): string[] {
  return store.clients
    .list()
    .filter((c) => c.revoked_at === null)
    .map((c) => c.name);
}

/**
 * The gateway's one door: everything outside server/ (CLI, Electron shell, tests) builds a gateway through here.
 * Nothing happens at import time; createGateway opens the data directory, listen() opens the port.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Credentials, OWNER } from './auth/credentials.js';
import { urlHost, type PincerConfig } from './config/config.js';
import { GatewaySettings } from './config/settings.js';
import { EventBus } from './events/bus.js';
import { Executor } from './executor/executor.js';
import { ResultCache } from './executor/cache.js';
import { createHttpApp } from './http/app.js';
import { listRoutes, type RouteEntry } from './http/route-list.js';
import { createAppServer } from './http/server.js';
import { defaultConnectionLimits, type ConnectionLimits } from './http/connection-limits.js';
import { EventStreams, type StreamLimits } from './http/event-streams.js';
import { gatewayOrigins, type Origins } from './http/guards.js';
import type { Policy } from './policy/policy.js';
import { describeLeftover, ProcessLedger, ProcessRunner } from './process/index.js';
import { DataDirLock, HistoryRetention, openStore, type RetentionOptions, type Store } from './store/index.js';
import { Memories } from './memory/memories.js';
import { createBuiltins } from './builtins.js';
import { ApprovalBroker } from './approvals/broker.js';
import { ClientAccess } from './policy/access.js';
import { RuleBook, shownRule } from './policy/rules.js';
import { ensurePrivateDir } from './auth/secrets.js';
import { PolicyEngine } from './policy/engine.js';
import { FileProvenance } from './policy/provenance.js';
import type { DesktopBridge } from './desktop.js';
import { ToolRegistry } from './tools/registry.js';
import { NetGuard } from './security/net.js';
import { PluginManager } from './plugins/manager.js';
import { ToolSearch } from './policy/tool-search.js';
import { McpSessions } from './mcp/sessions.js';
import { McpServerManager } from './mcp/client/servers.js';
import { McpPins } from './mcp/client/pins.js';
import type { AnyTool } from './tools/types.js';
import { VERSION } from './version.js';
import { Redactor } from './util/redact.js';
import { LlmBridge, type BridgeOptions } from './llm/bridge.js';
import { answerPrompt } from './llm/sampling.js';

export { loadConfig, resolveDataDir, ConfigError, type PincerConfig, type ConfigFlags } from './config/config.js';
export { DataDirInUseError, type LockHolder } from './store/index.js';
export { VERSION } from './version.js';
export type { AnyTool, ToolDefinition, ToolContext } from './tools/types.js';
export { defineTool } from './tools/types.js';
export { ToolError, GatewayError } from './errors.js';
// What the desktop shell needs: the bridge it implements, the events it follows, the owner's answers it validates.
export type { DesktopBridge } from './desktop.js';
export type { GatewayEvents, CallPhase } from './events/bus.js';
export type { ApprovalEvent, OwnerDecision, PendingApproval } from './approvals/broker.js';
export { parseOwnerDecision } from './approvals/owner-decision.js';
export type { RegisteredTool } from './tools/registry.js';
export type { ClientProfile } from './store/index.js';
export { DEFAULT_CLIENT, OWNER } from './auth/credentials.js';

export interface GatewayOptions {
  config: PincerConfig;
  /** Tools registered besides the built-ins (tests, embedders). */
  extraTools?: AnyTool[];
  policy?: Policy;
  /** Native notifications and clipboard, when the desktop shell hosts the gateway. */
  desktop?: DesktopBridge;
  /** better-sqlite3 addon built for another runtime (the Electron app). */
  sqliteBinding?: string;
  /** Where start-up notices go (what an earlier run left running); default standard error. */
  log?: (line: string) => void;
  /** Connection cap and timeouts; the defaults are sized from the open-file limit (tests set small ones). */
  connectionLimits?: Partial<ConnectionLimits>;
  /** Batch size and pacing of history pruning (tests set small ones). */
  retention?: RetentionOptions;
  /** Bounds of the GET /events streams (tests set small ones). */
  streamLimits?: Partial<StreamLimits>;
  /** Where bundled plugins are; null for none. Default: the `plugins/` folder shipped with this package. */
  bundledPluginsDir?: string | null;
  /** The bundled plugins' hashes recorded by the build. Default: the record inside this package. */
  bundledPluginsRecord?: string;
  /** Quiet period before a change in a plugin folder is acted on (tests set a long one to see the start checks alone). */
  pluginDebounceMs?: number;
  /** false: load no plugin (a gateway started for one CLI command that does not need them). Default true. */
  loadPlugins?: boolean;
  /**
   * false: leave what an earlier run left (open calls and approvals, processes in the ledger) to the next gateway
   * that serves the folder — a gateway started for one CLI command is not the owner of its live state. Default true.
   */
  recover?: boolean;
  /** How often an MCP call waiting for approval reports progress (tests set a short one). */
  mcpProgressIntervalMs?: number;
  /** How long an MCP task (a 2026-07-28 call waiting for the owner) is kept from its creation (tests set a short one). */
  mcpTaskTtlMs?: number;
  /** Backoff steps between restarts of a crashed imported MCP server (tests set short ones). */
  mcpBackoffMs?: readonly number[];
  /** Retries, backoff and silence timeout towards the LLM server, and the tool loop's step limit (tests set small ones). */
  llm?: Pick<BridgeOptions, 'upstream' | 'maxSteps'>;
}

export interface Gateway {
  readonly config: PincerConfig;
  readonly registry: ToolRegistry;
  readonly executor: Executor;
  readonly store: Store;
  /** Memories and their search (remember, recall, forget, /memory). */
  readonly memories: Memories;
  readonly events: EventBus;
  /** The open GET /events streams: how many, how far behind. */
  readonly streams: EventStreams;
  readonly credentials: Credentials;
  readonly approvals: ApprovalBroker;
  readonly rules: RuleBook;
  readonly access: ClientAccess;
  /** The owner's run-time settings (GET/PATCH /settings); changes are saved to config.json and apply at once. */
  readonly settings: GatewaySettings;
  /** Keeps the call history within config.json's `history` limits, once the owner has allowed it. */
  readonly retention: HistoryRetention;
  /** Every child process the gateway started (tools, the Python check); `killAll()` is the last resort of a stop. */
  readonly processes: ProcessRunner;
  /** Bundled and user plugins: loaded in the background after start, reloaded when their folders change. */
  readonly plugins: PluginManager;
  /** Imported MCP servers (config.json `mcp_servers`): started with the plugins, their tools as `<server>__<tool>`. */
  readonly mcpServers: McpServerManager;
  /** The LLM bridge: POST /chat, the OpenAI- and Ollama-compatible proxies. */
  readonly llm: LlmBridge;
  /** The HTTP routes the gateway answers, as its router declares them. */
  routes(): RouteEntry[];
  /** Starts answering HTTP; resolves with the address actually bound (port 0 picks a free one). */
  listen(): Promise<{ host: string; port: number; url: string }>;
  /** A fresh one-time owner login link for the dashboard. */
  loginUrl(): string;
  /** Stops taking calls, lets running ones finish (or records them cancelled), closes the port and database. */
  close(graceMs?: number): Promise<void>;
}

/** A client with this many calls waiting for the owner gets its next ask refused: a flood of asks stays bounded. */
const MAX_PENDING_APPROVALS_PER_CLIENT = 20;
/** Expired cache entries are dropped this often, so an answer nobody asks for again does not hold memory. */
const CACHE_SWEEP_INTERVAL_MS = 60_000;

export function createGateway(options: GatewayOptions): Gateway {
  const { config } = options;
  ensurePrivateDir(config.dataDir);
  const sqlite = options.sqliteBinding ? { nativeBinding: options.sqliteBinding } : {};
  // Before anything is read or changed: a folder another gateway serves is left exactly as it is (DataDirInUseError).
  const lock = DataDirLock.acquire(config.dataDir, sqlite);
  const recover = options.recover !== false;
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  let opened: Store | undefined;
  try {
    const processes = new ProcessRunner({ ledger: new ProcessLedger(join(config.dataDir, 'run')), warn: (line) => log(`pincer: ${line}`) });
    // A gateway killed with kill -9 (or crashed) could not stop its children: end them before anything else starts.
    // The lock says no other gateway is running on this folder, so whatever the ledger lists is left over.
    for (const leftover of recover ? processes.recoverLeftovers() : []) {
      const line = describeLeftover(leftover);
      if (line) log(`pincer: ${line}`);
    }
    const store = openStore(join(config.dataDir, 'pincer.db'), sqlite);
    opened = store;
    // Calls a previous run left open (a crash, kill -9) can never finish now.
    if (recover) store.calls.cancelOpen();
    const credentials = new Credentials({ dataDir: config.dataDir, store, token: config.token });
    const events = new EventBus();
    const registry = new ToolRegistry();
    registry.restoreDisabled(store.toolSettings.disabledTools());
    let boundPort: number | undefined;
    const memories = new Memories(store.memories, (client) => store.clients.memoryScope(client));
    const builtins = createBuiltins({
      config,
      events,
      desktop: options.desktop,
      selfPort: () => boundPort,
      runner: processes,
      memories,
      bundledPluginsDir: options.bundledPluginsDir,
      // The index is built over the registry, which needs the built-ins first: the tool reaches it once it exists.
      findTools: (client, query, limit) => toolSearch.findForModel(client, client === OWNER, query, limit),
    });
    for (const tool of [...builtins.tools, ...(options.extraTools ?? [])]) registry.register(tool, 'builtin');
    if (builtins.sandbox.kind === 'none') {
      log(`pincer: no OS sandbox for run_shell, run_python and plugins: ${builtins.sandbox.detail} Commands run on the policy alone, plugins under Node's permission model alone.`);
    }

    // Approvals from a previous run can never be answered: their calls are gone.
    if (recover) store.approvals.cancelOpen();
    // Secrets Pincer holds, redacted by value wherever they show up: read each time, so a changed LLM key or an
    // imported server added while running is covered at once.
    let mcpSecrets: () => readonly string[] = () => [];
    const redactor = new Redactor(() => [config.llmApiKey, ...credentials.knownSecrets(), ...mcpSecrets()]);
    const rules = new RuleBook(store, (change) => events.emit('rules', { ...change, rule: shownRule(change.rule, redactor) }));
    const access = new ClientAccess(store, (profile) => events.emit('tools', { reason: `client:${profile.name}`, names: profile.tools ?? [] }));
    const toolSearch = new ToolSearch(registry, access);
    const approvals = new ApprovalBroker({
      store,
      events,
      rules,
      redactor,
      timeoutMs: config.approvalTimeoutS * 1000,
      maxPendingPerClient: MAX_PENDING_APPROVALS_PER_CLIENT,
    });
    // Which client wrote the files a command runs, for its approval card (and so it never runs unasked).
    const provenance = new FileProvenance(store);
    const executor = new Executor({
      registry,
      store,
      events,
      approvals,
      rules,
      access,
      policy: options.policy ?? new PolicyEngine(builtins.analyzers, rules, provenance),
      provenance,
      sandboxAvailable: builtins.sandbox.kind !== 'none',
      defaultTimeoutMs: config.toolTimeoutMs,
      maxOutputBytes: config.maxOutputBytes,
      cache: new ResultCache(config.cacheMaxEntries),
      redactor,
    });
    const stopSweeping = executor.cache.sweepEvery(CACHE_SWEEP_INTERVAL_MS);
    const retention = new HistoryRetention(store.calls, store.settings, config.history, { conversations: store.conversations, ...options.retention });
    retention.start();
    registry.on('changed', ({ reason, names }) => {
      if (reason === 'toggled') for (const name of names) store.toolSettings.setEnabled(name, registry.isEnabled(name));
      for (const name of names) executor.cache.clear(name);
      events.emit('tools', { reason, names });
    });

    let origins: Origins = { hosts: new Set(), origins: new Set() };
    let address: { host: string; port: number; url: string } | undefined;
    const settings = new GatewaySettings(config, {
      paused: () => access.paused,
      setPaused: (paused) => access.setPaused(paused),
      checkRoots: (roots) => builtins.roots.check(roots),
      applyRoots: (checked) => builtins.roots.replace(checked),
      setApprovalTimeoutS: (seconds) => approvals.setTimeoutMs(seconds * 1000),
      address: () => address?.url ?? `http://${urlHost(config.host)}:${config.port}`,
      sandbox: () => builtins.sandbox,
      history: () => retention.view(),
      setHistoryPruningConfirmed: (confirmed) => retention.setConfirmed(confirmed),
      setHistoryLimits: (limits, confirmed) => retention.setPolicy(limits, confirmed),
      previewHistory: (limits) => ({
        prunable: retention.prunableUnder(limits),
        newly_prunable: retention.newlyPrunableUnder(limits),
        newly_prunable_conversations: retention.newlyPrunableConversationsUnder(limits),
      }),
      clientNames: () => store.clients.list().filter((c) => c.revoked_at === null).map((c) => c.name),
      changed: (keys, view) => {
        if (keys.includes('paused')) events.emit('tools', { reason: view.paused ? 'paused' : 'resumed', names: [] });
        // Roots change what the file tools may reach: open dashboards and clients re-read what they show. A change of
        // paused alone was announced just above; a second event would only make them re-read twice.
        if (keys.some((key) => key !== 'paused')) events.emit('tools', { reason: 'settings', names: [] });
        if (keys.includes('roots')) mcpServers.rootsChanged();
        if (keys.includes('mcp_sampling')) mcpServers.samplingChanged();
      },
    });
    const pluginNet = new NetGuard({ allow: config.httpAllow, selfPort: () => boundPort });
    const plugins = new PluginManager({
      dataDir: config.dataDir,
      bundledDir: options.bundledPluginsDir,
      ...(options.bundledPluginsRecord !== undefined && { bundledRecord: options.bundledPluginsRecord }),
      ...(options.pluginDebounceMs !== undefined && { debounceMs: options.pluginDebounceMs }),
      registry,
      store,
      runner: processes,
      settings: (name) => config.plugins[name] ?? {},
      fetch: async (url, init) => {
        const response = await pluginNet.fetch(url, {
          method: init.method ?? 'GET',
          headers: init.headers ?? {},
          ...(init.body !== undefined && { body: init.body }),
          signal: init.signal,
          maxBytes: init.maxBytes,
          timeoutMs: init.timeoutMs,
        });
        const headers = Object.fromEntries(Object.entries(response.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')]));
        return { status: response.status, url: response.finalUrl, headers, body: response.body };
      },
      log,
      onChange: (view) => events.emit('plugins', { name: view.name, status: view.status, reason: view.reason }),
    });
    if (options.loadPlugins !== false) void plugins.start();
    const mcpServers = new McpServerManager({
      entries: config.mcpServers,
      registry,
      runner: processes,
      pins: new McpPins(config.dataDir),
      version: VERSION,
      log,
      dataDir: config.dataDir,
      maxOutputBytes: config.maxOutputBytes,
      // Every viewer hears of it: an error that quotes a URL with its token is redacted.
      onChange: (change) => events.emit('mcp_servers', { ...change, last_error: change.last_error === null ? null : redactor.text(change.last_error) }),
      ...(options.mcpBackoffMs && { backoffMs: options.mcpBackoffMs }),
      owner: {
        approvals,
        samplingAllowed: () => config.mcpSampling,
        roots: () => config.roots,
        sample: (prompt, signal) => answerPrompt(llm, prompt, signal),
      },
    });
    mcpSecrets = () => mcpServers.secretValues();
    // Like plugins, they start processes: a gateway started for one CLI command starts them only when asked to.
    if (options.loadPlugins !== false) mcpServers.start();
    const streams = new EventStreams(events, options.streamLimits, (callId) => executor.clientOf(callId));
    const mcp = new McpSessions(
      {
        registry,
        executor,
        access,
        resources: mcpServers,
        version: VERSION,
        ...(options.mcpProgressIntervalMs && { progressIntervalMs: options.mcpProgressIntervalMs }),
        ...(options.mcpTaskTtlMs && { taskTtlMs: options.mcpTaskTtlMs }),
      },
      events,
    );
    const llm = new LlmBridge({ config, registry, access, executor, store, toolSearch, ...options.llm });
    const parts = { registry, executor, store, events, streams, credentials, approvals, rules, access, toolSearch, settings, memories, plugins, llm };
    const app = createHttpApp({
      ...parts,
      version: VERSION,
      sandbox: builtins.sandbox,
      clientAuth: config.clientAuth,
      bodyLimitBytes: config.bodyLimitBytes,
      chatBodyLimitBytes: config.chatBodyLimitBytes,
      ollamaProxy: () => config.ollamaProxy,
      jsonMaxDepth: config.jsonMaxDepth,
      dashboardDir: config.dashboardDir,
      origins: () => origins,
      mcp,
      mcpServers,
    });
    let server: Server | undefined;
    let closed = false;

    return {
      config,
      ...parts,
      processes,
      retention,
      mcpServers,
      routes: () => listRoutes(app),
      async listen() {
        if (address) return address;
        // Receiving a request (headers and body, at most 1 MiB) is bounded, so a client that never stops sending
        // cannot hold a connection; answering is not: a slow tool or an approval can take minutes.
        server = createAppServer(app, { ...defaultConnectionLimits(), ...options.connectionLimits });
        await new Promise<void>((resolve, reject) => {
          server!.once('error', reject);
          server!.listen(config.port, config.host, () => resolve());
        });
        const port = (server.address() as AddressInfo).port;
        boundPort = port;
        origins = gatewayOrigins(config.host, port, config.allowedHosts);
        address = { host: config.host, port, url: `http://${urlHost(config.host)}:${port}` };
        lock.publish(address.url);
        return address;
      },
      loginUrl() {
        if (!address) throw new Error('the gateway is not listening yet');
        return `${address.url}/auth?code=${credentials.createLoginCode()}`;
      },
      async close(graceMs = 5000) {
        if (closed) return;
        closed = true;
        const serverClosed = server ? new Promise<void>((resolve) => server!.close(() => resolve())) : Promise.resolve();
        server?.closeIdleConnections();
        await executor.shutdown(graceMs);
        await plugins.close();
        await mcpServers.close();
        // Whatever is still running was not started for a call (or outlived it): it ends with the gateway.
        await processes.stopAll();
        stopSweeping();
        retention.stop();
        // Answers to the calls that just finished are still being written: let them go out, end the event streams,
        // and only then cut whatever connection is left.
        events.emit('closing');
        server?.closeIdleConnections();
        let cutOff: NodeJS.Timeout | undefined;
        await Promise.race([serverClosed, new Promise((resolve) => (cutOff = setTimeout(resolve, 1000)))]);
        clearTimeout(cutOff);
        server?.closeAllConnections();
        await serverClosed;
        try {
          store.close();
        } finally {
          // Last: until the database is closed, the folder is still this gateway's.
          lock.release();
        }
      },
    };
  } catch (error) {
    try {
      opened?.close();
    } finally {
      lock.release();
    }
    throw error;
  }
}

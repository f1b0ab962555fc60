/**
 * The gateway's one door: everything outside server/ (CLI, Electron shell, tests) builds a gateway through here.
 * Nothing happens at import time; createGateway opens the data directory, listen() opens the port.
 */
import { Credentials, OWNER } from './auth/credentials.js';
import { urlHost, type PincerConfig } from './config/config.js';
import { GatewaySettings } from './config/settings.js';
import { EventBus } from './events/bus.js';
import type { Executor } from './executor/executor.js';
import { listRoutes, type RouteEntry } from './http/route-list.js';
import type { EventStreams } from './http/event-streams.js';
import type { ProcessRunner } from './process/index.js';
import type { HistoryRetention, Store } from './store/index.js';
import type { Memories } from './memory/memories.js';
import type { ApprovalBroker } from './approvals/broker.js';
import type { ClientAccess } from './policy/access.js';
import type { RuleBook } from './policy/rules.js';
import type { DesktopBridge } from './desktop.js';
import type { ToolRegistry } from './tools/registry.js';
import type { PluginManager } from './plugins/manager.js';
import type { McpServerManager } from './mcp/client/servers.js';
import type { AnyTool } from './tools/types.js';
import { VERSION } from './version.js';
import { Redactor } from './util/redact.js';
import { LlmBridge } from './llm/bridge.js';
import { answerPrompt } from './llm/sampling.js';
import type { GatewayOptions } from './gateway/options.js';
import { buildApprovals, buildExecutor, buildPolicy, buildRetention, buildTools, namedClients, openDataFolder, type Endpoint } from './gateway/parts.js';
import { buildHttp, closeGateway, listen } from './gateway/http.js';
import { startToolSources } from './gateway/sources.js';

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
export type { GatewayOptions } from './gateway/options.js';

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
  /** The named clients with a working token (the default client is not among them), for the tray's menu. */
  clientNames(): string[];
  /** How many calls started at or after `since` (ms since the epoch), for the tray's count of today's calls. */
  callsSince(since: number): number;
  /** Stops taking calls, lets running ones finish (or records them cancelled), closes the port and database. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Builds a gateway part by part, in the order each needs the ones before it (server/gateway/ builds each part); a
 * part that fails to build releases what was opened. The port opens in listen().
 */
export function createGateway(options: GatewayOptions): Gateway {
  const { config } = options;
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const folder = openDataFolder(options, log);
  try {
    const { store, processes } = folder;
    const endpoint: Endpoint = { origins: { hosts: new Set(), origins: new Set() } };
    const events = new EventBus();
    const settings = new GatewaySettings(config, {
      address: () => endpoint.address?.url ?? `http://${urlHost(config.host)}:${config.port}`,
      sandbox: () => tools.builtins.sandbox,
      clientNames: () => namedClients(store),
    }, events);
    // Secrets Pincer holds, redacted by value wherever they show up: read each time, so a changed LLM key or an
    // imported server added while running is covered at once.
    let sourceSecrets: () => readonly string[] = () => [];
    const credentials = new Credentials({ dataDir: config.dataDir, store, token: config.token });
    const redactor = new Redactor(() => [config.llmApiKey, ...credentials.knownSecrets(), ...sourceSecrets()]);
    const tools = buildTools(options, folder, events, settings, endpoint, log, (client, query, limit) => policy.toolSearch.findForModel(client, client === OWNER, query, limit));
    const policy = buildPolicy(store, tools, events, settings, redactor);
    const approvals = buildApprovals(config, store, events, settings, policy.rules, redactor);
    const run = buildExecutor(options, store, tools, policy, approvals, events, redactor);
    const retention = buildRetention(options, store, settings);
    const sources = startToolSources(options, folder, tools.registry, events, settings, redactor, endpoint, approvals, log, (prompt, signal) => answerPrompt(llm, prompt, signal));
    sourceSecrets = () => sources.mcpServers.secretValues();
    const llm = new LlmBridge({ config, registry: tools.registry, access: policy.access, executor: run.executor, store, toolSearch: policy.toolSearch, ...options.llm });
    const parts = {
      registry: tools.registry,
      executor: run.executor,
      store,
      events,
      credentials,
      approvals,
      rules: policy.rules,
      access: policy.access,
      toolSearch: policy.toolSearch,
      settings,
      memories: tools.memories,
      plugins: sources.plugins,
      llm,
    };
    const http = buildHttp(options, parts, tools, sources, endpoint);
    return {
      config,
      ...parts,
      streams: http.streams,
      processes,
      retention,
      mcpServers: sources.mcpServers,
      routes: () => listRoutes(http.app),
      listen: () => listen(options, http, folder, endpoint),
      loginUrl() {
        if (!endpoint.address) throw new Error('the gateway is not listening yet');
        return `${endpoint.address.url}/auth?code=${credentials.createLoginCode()}`;
      },
      clientNames: () => namedClients(store),
      callsSince: (since) => store.calls.countSince(since),
      close: once((graceMs = 5000) =>
        closeGateway(graceMs, { endpoint, executor: run.executor, sources, processes, stopSweeping: run.stopSweeping, retention, events, store, lock: folder.lock }),
      ),
    };
  } catch (error) {
    try {
      folder.store.close();
    } finally {
      folder.lock.release();
    }
    throw error;
  }
}

/** A close() that runs once: a second call (a signal during shutdown) does nothing. */
function once(close: (graceMs?: number) => Promise<void>): (graceMs?: number) => Promise<void> {
  let closed = false;
  return async (graceMs) => {
    if (closed) return;
    closed = true;
    await close(graceMs);
  };
}

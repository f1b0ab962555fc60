import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ToolError } from '../../errors.js';
import { scrubbedEnvironment, type ChildHandle, type ProcessRunner } from '../../process/index.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { RISKS, type AnyTool, type ObjectSchema, type Risk, type ToolAnnotations } from '../../tools/types.js';
import { saveServerEntry } from './config-writer.js';
import { parseServerEntry, type McpServerEntry } from './entry.js';
import { importedNames } from './naming.js';
import { linearOutputValidator } from './output-validator.js';
import { listAllTools, ToolListStopped } from './tool-list.js';
import { definitionHash, type McpPins, type ToolDefinitionText } from './pins.js';
import { flagDefinition, type DefinitionFlag } from '../../tools/poisoning.js';
import { isSecretName } from '../../util/secret-names.js';
import type { OwnerRequestsHost } from './owner-requests.js';
import { RunningCalls } from './running-calls.js';

export type ServerStatus = 'starting' | 'running' | 'restarting' | 'failed' | 'disabled' | 'stopped';
/**
 * active: imported and callable; changed/flagged: held back until the owner accepts it; disabled: the owner turned it
 * off (until they accept it); invalid: cannot be imported.
 */
export type ImportedToolStatus = 'active' | 'changed' | 'flagged' | 'disabled' | 'invalid';

export interface ImportedToolView {
  name: string;
  imported_as: string;
  status: ImportedToolStatus;
  /** The risk it runs with: the owner's rating (until then `sensitive`), raised by the server's own annotations. */
  risk: Risk;
  accepted: boolean;
  description: string;
  flags: DefinitionFlag[];
  /** For a changed tool: what the owner accepted and what the server says now. */
  change: { field: string; before: unknown; after: unknown }[] | null;
  problem: string | null;
}

export interface McpServerView {
  name: string;
  transport: 'stdio' | 'http' | null;
  /** The command line or URL (a token is never shown). */
  target: string | null;
  status: ServerStatus;
  /** The last thing that went wrong (kept after the server recovers, with when: the restarts say it did). */
  last_error: string | null;
  last_error_at: string | null;
  /** The last lines its process wrote to standard error before it ended (may hold secrets: the owner's only). */
  stderr: string | null;
  restarts: number;
  server_info: { name: string; version: string } | null;
  tools: ImportedToolView[];
  /** Said wherever the owner accepts its tools. */
  notice: string;
}

/** What the event stream says when a server's status, errors or tools change (or it is removed): viewers refetch. */
export interface McpServerChange {
  name: string;
  status: ServerStatus | 'removed';
  last_error: string | null;
  restarts: number;
}

const NOTICE =
  "An imported MCP server runs with your user's rights, outside Pincer's sandbox: Pincer's policy, approvals and log " +
  'cover each call it makes to the server, not what the server itself does.';
const BACKOFF_MS = [1_000, 2_000, 5_000, 10_000, 30_000, 60_000];
/** A server that stayed up this long starts its backoff from the beginning after its next crash. */
const STABLE_AFTER_MS = 60_000;
const CONNECT_TIMEOUT_MS = 30_000;

export interface McpServerManagerOptions {
  entries: Record<string, unknown>;
  registry: ToolRegistry;
  runner: ProcessRunner;
  pins: McpPins;
  version: string;
  log: (line: string) => void;
  /** A server's status or tools changed, or it was removed (for the event stream). */
  onChange?: (change: McpServerChange) => void;
  /** Backoff steps between restarts (tests set short ones). */
  backoffMs?: readonly number[];
  /** Where config.json is: servers added or removed while the gateway runs are saved there. */
  dataDir?: string;
  /** Answers the servers' own requests (elicitation, sampling, roots); without it Pincer declares none of them. */
  owner?: OwnerRequestsHost;
}

/**
 * The imported MCP servers (config.json `mcp_servers`): each started on the shared child-process runner (stdio) or
 * reached over Streamable HTTP, supervised on its own (a crash restarts it with backoff; one failing server never
 * holds up another or the gateway), its tools imported as `<server>__<tool>` with `source: "mcp:<server>"` and run
 * through the executor like every tool. Definitions are pinned: a changed or poisoned-looking one is held back until
 * the owner accepts it.
 */
export class McpServerManager {
  readonly #servers = new Map<string, ServerConnection>();
  /** Whether this gateway runs the servers (one started for a CLI command only lists and edits them). */
  #running = false;
  /** secretValues(), until the servers change. */
  #secrets: readonly string[] | undefined;

  constructor(private readonly options: McpServerManagerOptions) {
    // Listed (as stopped) even by a gateway that does not start them, such as one started for a CLI command.
    for (const [name, raw] of Object.entries(options.entries ?? {})) this.#add(name, raw);
  }

  /** Starts every configured server in the background. */
  start(): void {
    this.#running = true;
    for (const server of this.#servers.values()) server.start();
  }

  list(): McpServerView[] {
    return [...this.#servers.values()].map((s) => s.view());
  }

  /** The configured servers' secrets (secret-named `env` values, HTTP tokens), for redaction by value. */
  secretValues(): readonly string[] {
    this.#secrets ??= [...this.#servers.values()].flatMap((s) => s.secretValues());
    return this.#secrets;
  }

  get(name: string): McpServerView | undefined {
    return this.#servers.get(name)?.view();
  }

  /** Adds (or replaces) a server while the gateway runs, and saves it in config.json. */
  async put(name: string, raw: unknown): Promise<McpServerView> {
    if (this.options.dataDir) saveServerEntry(this.options.dataDir, name, raw);
    const existing = this.#servers.get(name);
    this.#servers.delete(name);
    this.#secrets = undefined;
    await existing?.stop();
    return this.#add(name, raw).view();
  }

  /** Stops a server, takes its tools away, drops the owner's acceptances of them and removes it from config.json. */
  async remove(name: string): Promise<boolean> {
    const server = this.#servers.get(name);
    if (!server) return false;
    if (this.options.dataDir) saveServerEntry(this.options.dataDir, name, undefined);
    this.options.pins.forget(name);
    this.#servers.delete(name);
    this.#secrets = undefined;
    await server.stop();
    this.options.onChange?.({ name, status: 'removed', last_error: null, restarts: 0 });
    return true;
  }

  /**
   * Turns a whole server off (stopped, its tools gone) or on again, saved as its entry's `disabled` in config.json.
   * Undefined if there is no such server; a problem if its entry cannot be changed (it is not a valid object).
   */
  async setEnabled(name: string, enabled: boolean): Promise<McpServerView | { problem: string } | undefined> {
    const server = this.#servers.get(name);
    if (!server) return undefined;
    const raw = server.raw;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { problem: `its mcp_servers entry in config.json is not an object; fix it there` };
    const { disabled: _previous, ...rest } = raw as Record<string, unknown>;
    return this.put(name, enabled ? rest : { ...rest, disabled: true });
  }

  /** The owner turns tools of a server off (all of them, or those named): they stay off until accepted. */
  disableTools(name: string, tools?: string[]): McpServerView | { problem: string } | undefined {
    const server = this.#servers.get(name);
    if (!server) return undefined;
    const unknown = server.unknownTools(tools);
    if (unknown.length > 0) return { problem: unknownToolsProblem(name, unknown) };
    server.disableTools(tools);
    return server.view();
  }

  /**
   * The owner accepts tools of a server as they are now (all held-back and unrated ones, or those named), rating
   * them `risk` (default: the rating each had, or sensitive, so they keep asking). Returns the server's view, a
   * problem for tool names it does not have, or undefined for an unknown server.
   */
  accept(name: string, selection: { tools?: string[]; risk?: Risk } = {}): McpServerView | { problem: string } | undefined {
    const server = this.#servers.get(name);
    if (!server) return undefined;
    const unknown = server.unknownTools(selection.tools);
    if (unknown.length > 0) return { problem: unknownToolsProblem(name, unknown) };
    server.accept(selection.tools, selection.risk);
    return server.view();
  }

  /** The roots changed: every connected server hears notifications/roots/list_changed. */
  rootsChanged(): void {
    for (const server of this.#servers.values()) server.rootsChanged();
  }

  /**
   * The owner turned sampling on or off: connected servers are connected again, since a client's capabilities are
   * declared once, when it connects (turning it off is also checked on every request).
   */
  samplingChanged(): void {
    for (const server of this.#servers.values()) server.reconnect();
  }

  async close(): Promise<void> {
    const all = [...this.#servers.values()];
    this.#servers.clear();
    await Promise.allSettled(all.map((s) => s.stop()));
  }

  #add(name: string, raw: unknown): ServerConnection {
    const parsed = parseServerEntry(name, raw);
    const server = new ServerConnection(name, raw, parsed, this.options);
    this.#servers.set(name, server);
    this.#secrets = undefined;
    if (this.#running) server.start();
    return server;
  }
}

/** What a call to a held-back imported tool answers (TOOL_HELD): why, and what releases it. */
function heldMessage(server: string, tool: string, importedAs: string, status: 'changed' | 'flagged'): string {
  const why = status === 'changed' ? 'its definition changed since the owner accepted it' : 'its description looks like it gives the model instructions';
  return (
    `The tool "${importedAs}" of the MCP server "${server}" is held back (${why}): it stays off until the owner reviews and accepts it ` +
    `(pincer mcp-servers accept ${server} --tool ${tool}, or Accept in the dashboard's MCP servers view). Tell the user; calling it again before then fails the same way.`
  );
}

function unknownToolsProblem(server: string, names: string[]): string {
  return `the MCP server "${server}" has no tool named ${names.map((n) => `"${n}"`).join(', ')} (use the names it lists, not <server>__<tool>)`;
}

interface RemoteTool {
  tool: Tool;
  importedAs: string;
  definition: ToolDefinitionText;
  hash: string;
  flags: DefinitionFlag[];
  problem: string | null;
}

class ServerConnection {
  #status: ServerStatus = 'stopped';
  #lastError: string | null = null;
  #lastErrorAt: string | null = null;
  #stderr: string | null = null;
  #restarts = 0;
  #client: Client | undefined;
  #child: ChildHandle | undefined;
  #remote = new Map<string, RemoteTool>();
  /** What this server has in the registry, by name: the definition registered and the definition hash and risk it came from. */
  readonly #registered = new Map<string, { definition: AnyTool; key: string }>();
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #connectedAt = 0;
  #generation = 0;
  /** The tool listing under way, and the one asked for while it runs. */
  #listing: Promise<void> | undefined;
  #listingWanted: { generation: number; announce: boolean } | undefined;
  /** The calls running on this server, to tie its questions to the client that caused them. */
  readonly #running = new RunningCalls(() => this.options.owner?.approvals);

  constructor(
    readonly name: string,
    /** The entry as config.json has it (kept to change only its `disabled`). */
    readonly raw: unknown,
    private readonly entry: McpServerEntry | { problem: string },
    private readonly options: McpServerManagerOptions,
  ) {}

  start(): void {
    if (this.#stopped || this.#status !== 'stopped') return;
    const problem = 'problem' in this.entry ? `Bad mcp_servers.${this.name} entry in config.json: ${this.entry.problem}.` : null;
    // Turned off, even with a broken entry: the owner silenced it (what is wrong with it still shows).
    if ((this.raw as { disabled?: unknown } | null)?.disabled === true) {
      this.#status = 'disabled';
      if (problem) this.#setError(problem);
      this.#changed();
      return;
    }
    if (problem) return this.#fail(problem, false);
    void this.#connect();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#status = this.#status === 'failed' || this.#status === 'disabled' ? this.#status : 'stopped';
    this.#unregisterAll();
    await this.#disconnect();
  }

  view(): McpServerView {
    const entry = 'problem' in this.entry ? null : this.entry;
    const info = this.#client?.getServerVersion();
    return {
      name: this.name,
      transport: entry?.kind ?? null,
      target: entry ? (entry.kind === 'stdio' ? [entry.command, ...entry.args].join(' ') : entry.url) : null,
      status: this.#status,
      last_error: this.#lastError,
      last_error_at: this.#lastErrorAt,
      stderr: this.#stderr,
      restarts: this.#restarts,
      server_info: info ? { name: info.name, version: info.version } : null,
      tools: [...this.#remote.values()].map((r) => this.#toolView(r)),
      notice: NOTICE,
    };
  }

  secretValues(): string[] {
    if ('problem' in this.entry) return [];
    if (this.entry.kind === 'http') return this.entry.token ? [this.entry.token] : [];
    return Object.entries(this.entry.env)
      .filter(([name]) => isSecretName(name))
      .map(([, value]) => value);
  }

  /** The names among `names` that this server does not have (as it last listed its tools). */
  unknownTools(names: string[] | undefined): string[] {
    return (names ?? []).filter((name) => !this.#remote.has(name));
  }

  /** Without `risk`, a tool keeps the rating the owner gave it before (sensitive if never rated): never lowered. */
  accept(names: string[] | undefined, risk: Risk | undefined): void {
    for (const remote of this.#remote.values()) {
      if (remote.problem) continue;
      const pinned = this.options.pins.get(this.name, remote.tool.name);
      // Accepting "everything waiting" leaves alone what the owner turned off: that takes naming the tool.
      const waiting = !pinned || (!pinned.disabled && pinned.hash !== remote.hash);
      if (names ? !names.includes(remote.tool.name) : !waiting) continue;
      this.options.pins.accept(this.name, remote.tool.name, remote.definition, risk ?? this.#rated(remote));
    }
    this.#apply();
  }

  disableTools(names: string[] | undefined): void {
    for (const remote of this.#remote.values()) {
      if (names && !names.includes(remote.tool.name)) continue;
      this.options.pins.disable(this.name, remote.tool.name, remote.definition);
    }
    this.#apply();
  }

  rootsChanged(): void {
    if (this.#status === 'running') void this.#client?.sendRootsListChanged().catch(() => undefined);
  }

  reconnect(): void {
    if (this.#stopped || !['running', 'starting', 'restarting'].includes(this.#status)) return;
    clearTimeout(this.#timer);
    this.#status = 'restarting';
    this.#changed();
    void this.#disconnect().then(() => {
      if (!this.#stopped) void this.#connect();
    });
  }

  async #connect(): Promise<void> {
    const generation = ++this.#generation;
    const entry = this.entry as McpServerEntry;
    this.#status = this.#restarts > 0 ? 'restarting' : 'starting';
    this.#changed();
    let transport: Transport;
    try {
      // Loaded when a server is first started, not with the gateway.
      const [{ Client }, { StreamableHTTPClientTransport }, { ToolListChangedNotificationSchema }, { ChildStdioTransport }, ownerRequests] = await Promise.all([
        import('@modelcontextprotocol/sdk/client/index.js'),
        import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
        import('@modelcontextprotocol/sdk/types.js'),
        import('./child-transport.js'),
        import('./owner-requests.js'),
      ]);
      if (generation !== this.#generation || this.#stopped) return;
      if (entry.kind === 'stdio') {
        this.#child = await this.options.runner.start({
          kind: `mcp:${this.name}`,
          command: entry.command,
          args: entry.args,
          env: { ...scrubbedEnvironment(), ...entry.env },
          ...(entry.cwd && { cwd: entry.cwd }),
          tag: true,
        });
        const child = this.#child;
        // Stopped while it was starting (the gateway closing): it must not outlive the stop.
        if (generation !== this.#generation || this.#stopped) {
          this.#child = undefined;
          await child.stop(1000).catch(() => undefined);
          return;
        }
        const stdio = new ChildStdioTransport(child);
        transport = stdio;
        void child.exited.then(({ exitCode, signal }) => {
          if (generation !== this.#generation || this.#stopped) return;
          // Kept apart from the error, which reaches clients and models; what a server prints may hold its secrets.
          this.#stderr = child.stderr().trim().split('\n').slice(-3).join('\n') || null;
          this.#crashed(stdio.failure ? `Pincer ended the server process: ${stdio.failure}` : `the server process exited (${signal ?? `code ${exitCode}`})`);
        });
      } else {
        transport = new StreamableHTTPClientTransport(new URL(entry.url), {
          requestInit: { headers: entry.token ? { authorization: `Bearer ${entry.token}` } : {} },
        });
      }
      const capabilities = ownerRequests.ownerCapabilities(this.options.owner);
      const client = new Client({ name: 'pincer', version: this.options.version }, { capabilities, jsonSchemaValidator: linearOutputValidator() });
      if (this.options.owner) ownerRequests.installOwnerRequests(client, this.name, this.options.owner, this.#running, capabilities);
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void this.#sync(generation));
      let connected = false;
      client.onclose = () => {
        // A failure while connecting is told by the connect's own error, which says more.
        if (!connected || generation !== this.#generation || this.#stopped) return;
        this.#crashed('the connection to the server closed');
      };
      this.#client = client;
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
      connected = true;
      if (generation !== this.#generation || this.#stopped) return;
      this.#connectedAt = Date.now();
      // Running once its tools are read again: until then the view still shows the last connection's tools.
      await this.#sync(generation, false);
      if (generation !== this.#generation || this.#stopped) return;
      this.#status = 'running';
      this.#changed();
    } catch (error) {
      if (generation !== this.#generation || this.#stopped) return;
      this.#crashed(`could not start: ${(error as Error).message}`);
    }
  }

  /**
   * Re-reads the server's tools and imports what may be imported.
   * Security: a server that floods tools/list_changed gets one listing at a time, and one more after it for what
   * changed meanwhile, not one listing per notification.
   */
  #sync(generation: number, announce = true): Promise<void> {
    this.#listingWanted = { generation, announce: announce || this.#listingWanted?.announce === true };
    this.#listing ??= (async () => {
      try {
        for (let wanted = this.#listingWanted; wanted; wanted = this.#listingWanted) {
          this.#listingWanted = undefined;
          await this.#listOnce(wanted.generation, wanted.announce);
        }
      } finally {
        this.#listing = undefined;
      }
    })();
    return this.#listing;
  }

  async #listOnce(generation: number, announce: boolean): Promise<void> {
    const client = this.#client;
    if (!client || generation !== this.#generation) return;
    try {
      // A listing stopped part way imports none of it (what an earlier full listing imported stays): a part of the
      // list is not the server's tools, and which part depends on the server.
      const tools = await listAllTools(client);
      if (generation !== this.#generation) return;
      const names = importedNames(this.name, tools.map((t) => t.name));
      this.#remote = new Map(
        tools.map((tool) => {
          const definition: ToolDefinitionText = {
            ...(tool.title !== undefined && { title: tool.title }),
            description: tool.description ?? '',
            inputSchema: tool.inputSchema,
            ...(tool.annotations !== undefined && { annotations: tool.annotations }),
          };
          const problem = tool.inputSchema?.type !== 'object' ? 'its inputSchema is not of type "object"' : null;
          return [tool.name, { tool, importedAs: names.get(tool.name)!, definition, hash: definitionHash(definition), flags: flagDefinition({ ...definition, outputSchema: tool.outputSchema }), problem }];
        }),
      );
      this.#apply(announce);
    } catch (error) {
      const stopped = error instanceof ToolListStopped;
      const reason = stopped ? `stopped reading its tools: ${error.message}; none of that listing is imported` : `could not list its tools: ${(error as Error).message}`;
      this.#setError(reason);
      if (stopped) this.options.log(`pincer: MCP server ${this.name}: ${reason}`);
      if (announce) this.#changed();
    }
  }

  /** Registers the tools that may run (accepted as they are, or new and unflagged) and takes the others away. */
  #apply(announce = true): void {
    const registry = this.options.registry;
    const wanted = new Map<string, RemoteTool>();
    const held = new Map<string, string>();
    for (const remote of this.#remote.values()) {
      const status = this.#toolStatus(remote);
      if (status === 'active') wanted.set(remote.importedAs, remote);
      if (status === 'changed' || status === 'flagged') held.set(remote.importedAs, heldMessage(this.name, remote.tool.name, remote.importedAs, status));
    }
    registry.setHeld(`mcp:${this.name}`, held);
    for (const [name, registered] of [...this.#registered]) {
      const existing = registry.get(name);
      const keep = wanted.get(name);
      if (existing && keep && existing.definition === registered.definition && registered.key === `${keep.hash}:${this.#risk(keep)}`) {
        wanted.delete(name);
        continue;
      }
      if (existing?.source === `mcp:${this.name}`) registry.unregister(name);
      this.#registered.delete(name);
    }
    for (const [name, remote] of wanted) {
      const definition = this.#registryTool(remote);
      try {
        registry.register(definition, `mcp:${this.name}`);
        this.#registered.set(name, { definition, key: `${remote.hash}:${this.#risk(remote)}` });
      } catch (error) {
        remote.problem = (error as Error).message;
      }
    }
    if (announce) this.#changed();
  }

  #toolStatus(remote: RemoteTool): ImportedToolStatus {
    if (remote.problem) return 'invalid';
    const pinned = this.options.pins.get(this.name, remote.tool.name);
    if (pinned?.disabled) return 'disabled';
    if (pinned) return pinned.hash === remote.hash ? 'active' : 'changed';
    return remote.flags.length > 0 ? 'flagged' : 'active';
  }

  /**
   * The owner's rating (until they rate it: sensitive, so it asks), raised — never lowered — by the server's hints.
   * A changed tool shows the rating it had: accepting the change keeps it unless the owner picks another.
   */
  #risk(remote: RemoteTool): Risk {
    const rated = this.#rated(remote);
    return remote.tool.annotations?.destructiveHint === true && rated !== 'dangerous' ? 'dangerous' : rated;
  }

  #rated(remote: RemoteTool): Risk {
    const pinned = this.options.pins.get(this.name, remote.tool.name);
    return pinned && RISKS.includes(pinned.risk) ? pinned.risk : 'sensitive';
  }

  #toolView(remote: RemoteTool): ImportedToolView {
    const pinned = this.options.pins.get(this.name, remote.tool.name);
    const status = this.#toolStatus(remote);
    const change =
      status === 'changed' && pinned
        ? (['title', 'description', 'inputSchema', 'annotations'] as const)
            .filter((f) => JSON.stringify(pinned.definition[f] ?? null) !== JSON.stringify(remote.definition[f] ?? null))
            .map((field) => ({ field, before: pinned.definition[field] ?? null, after: remote.definition[field] ?? null }))
        : null;
    return {
      name: remote.tool.name,
      imported_as: remote.importedAs,
      status,
      risk: this.#risk(remote),
      accepted: pinned !== undefined && !pinned.disabled && pinned.hash === remote.hash,
      description: remote.definition.description,
      flags: remote.flags,
      change,
      problem: remote.problem,
    };
  }

  #registryTool(remote: RemoteTool): AnyTool {
    const tool = remote.tool;
    const hints: ToolAnnotations = {};
    for (const key of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
      if (typeof tool.annotations?.[key] === 'boolean') hints[key] = tool.annotations[key];
    }
    const title = tool.title ?? tool.annotations?.title;
    const timeoutMs = (this.entry as McpServerEntry).timeoutMs;
    return {
      name: remote.importedAs,
      description: remote.definition.description.trim() || `${tool.name} (from the MCP server "${this.name}")`,
      parameters: tool.inputSchema as ObjectSchema,
      category: `mcp:${this.name}`,
      risk: this.#risk(remote),
      annotations: { ...(title && { title }), ...hints },
      timeoutMs,
      handler: (args: Record<string, unknown>, ctx) => this.#running.during(ctx, remote.importedAs, () => this.#call(tool.name, args, ctx.signal, timeoutMs)),
    };
  }

  async #call(tool: string, args: Record<string, unknown>, signal: AbortSignal, timeoutMs: number): Promise<unknown> {
    const client = this.#client;
    if (!client || this.#status !== 'running') {
      throw new ToolError('MCP_SERVER_UNAVAILABLE', `The MCP server "${this.name}" is ${this.#status}${this.#lastError ? ` (${this.#lastError})` : ''}; try again shortly.`);
    }
    let result: CallToolResult;
    try {
      result = (await client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: timeoutMs })) as CallToolResult;
    } catch (error) {
      if (signal.aborted) throw error;
      throw new ToolError('MCP_SERVER_ERROR', `The MCP server "${this.name}" refused the call to ${tool}: ${(error as Error).message}`);
    }
    const text = (result.content ?? [])
      .map((part) => (part.type === 'text' ? part.text : `[${part.type}]`))
      .join('\n');
    if (result.isError) throw new ToolError('MCP_TOOL_ERROR', text || `${tool} on the MCP server "${this.name}" failed.`);
    if (result.structuredContent !== undefined) return result.structuredContent;
    const content = result.content ?? [];
    return content.length === 1 && content[0]!.type === 'text' ? text : content;
  }

  #crashed(reason: string): void {
    this.#setError(reason);
    this.options.log(`pincer: MCP server ${this.name}: ${reason}`);
    if (this.#stopped) return;
    const stable = this.#connectedAt > 0 && Date.now() - this.#connectedAt > STABLE_AFTER_MS;
    const steps = this.options.backoffMs ?? BACKOFF_MS;
    const attempt = stable ? 0 : this.#restarts;
    this.#restarts += 1;
    this.#connectedAt = 0;
    this.#status = 'restarting';
    this.#changed();
    void this.#disconnect();
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#connect(), steps[Math.min(attempt, steps.length - 1)]);
    this.#timer.unref();
  }

  #fail(reason: string, log = true): void {
    this.#status = 'failed';
    this.#setError(reason);
    if (log) this.options.log(`pincer: MCP server ${this.name}: ${reason}`);
    else this.options.log(`pincer: ${reason}`);
    this.#changed();
  }

  async #disconnect(): Promise<void> {
    this.#generation += 1;
    const client = this.#client;
    const child = this.#child;
    this.#client = undefined;
    this.#child = undefined;
    await client?.close().catch(() => undefined);
    await child?.stop(1000).catch(() => undefined);
  }

  #unregisterAll(): void {
    for (const name of this.#registered.keys()) {
      if (this.options.registry.get(name)?.source === `mcp:${this.name}`) this.options.registry.unregister(name);
    }
    this.#registered.clear();
    this.options.registry.setHeld(`mcp:${this.name}`, new Map());
  }

  #setError(reason: string): void {
    this.#lastError = reason;
    this.#lastErrorAt = new Date().toISOString();
  }

  #changed(): void {
    try {
      this.options.onChange?.({ name: this.name, status: this.#status, last_error: this.#lastError, restarts: this.#restarts });
    } catch (error) {
      this.options.log(`pincer: an MCP server listener failed: ${(error as Error).message}`);
    }
  }
}

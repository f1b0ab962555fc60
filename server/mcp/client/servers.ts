import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Progress, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ToolError } from '../../errors.js';
import { scrubbedEnvironment, type ChildHandle, type ProcessRunner } from '../../process/index.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { RISKS, type AnyTool, type ObjectSchema, type ProgressUpdate, type Risk, type ToolAnnotations, type ToolContext, type ToolIcon } from '../../tools/types.js';
import { contentResult, type ContentBlock } from '../../tools/content.js';
import { saveServerEntry } from './config-writer.js';
import { connectEitherEra } from './connect-era.js';
import { parseServerEntry, type McpServerEntry } from './entry.js';
import { importedNames } from './naming.js';
import { linearOutputValidator } from './output-validator.js';
import { listAllTools, ToolListStopped } from './tool-list.js';
import { definitionHash, type McpPins, type ToolDefinitionText } from './pins.js';
import { flagDefinition, type DefinitionFlag } from '../../tools/poisoning.js';
import { isSecretName } from '../../util/secret-names.js';
import { findCommand, loginShellPath, type FoundCommand, type MissingCommand } from './command-lookup.js';
import { npxRanVersion, PackageVersions, runPackage, type PackageView } from './package-version.js';
import type { OwnerRequestsHost } from './owner-requests.js';
import { RunningCalls } from './running-calls.js';
import { isPlainObject } from '../../util/json.js';

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
  /** The npx or uvx package its command runs, and the version that ran (when it can be found). */
  package: PackageView | null;
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
/** The longest timer Node keeps: in effect none, for requests whose limit is enforced by their abort signal. */
const SDK_TIMEOUT_OFF_MS = 2_147_483_647;

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
  /** Finds a stdio server's program (default: as the user's login shell would, on this platform). */
  findCommand?: CommandFinder;
  /** The largest resource read through Pincer (JSON bytes), as for tool results. */
  maxOutputBytes?: number;
  /** Answers the servers' own requests (elicitation, sampling, roots); without it Pincer declares none of them. */
  owner?: OwnerRequestsHost;
}

/** `askLoginShell`: false when the owner gave the server its own PATH, which is then the only one searched. */
export type CommandFinder = (
  command: string,
  args: readonly string[],
  where: { env: Record<string, string>; cwd?: string; askLoginShell: boolean },
) => Promise<FoundCommand | MissingCommand>;

/** What every server of one manager shares: how commands are found (one login shell asked), the accepted package versions. */
interface Shared {
  findCommand: CommandFinder;
  packages: PackageVersions;
}

function defaultCommandFinder(): CommandFinder {
  const login = loginShellPath({ env: scrubbedEnvironment() });
  return (command, args, { env, cwd, askLoginShell }) =>
    findCommand(command, args, { platform: process.platform, env, ...(cwd && { cwd }), ...(askLoginShell && { loginShellPath: login }) });
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
  readonly #shared: Shared;

  constructor(private readonly options: McpServerManagerOptions) {
    this.#shared = { findCommand: options.findCommand ?? defaultCommandFinder(), packages: new PackageVersions(options.dataDir) };
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
    this.#shared.packages.forget(name);
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

  /**
   * The resources imported servers named in the results of `client`'s calls, each with the server that named it.
   * Security: these, and only these, can be read through Pincer (resources/read): a client cannot make a server
   * read a URI of its choosing, nor Pincer read anything itself; and it reads only links its own calls were given.
   */
  offeredResources(client: string): (OfferedResource & { server: string })[] {
    return [...this.#servers.values()].flatMap((server) => server.offered(client).map((offer) => ({ ...offer, server: server.name })));
  }

  /**
   * Reads a resource through the server whose result named it for `client`, if `allowed` still lets that client use
   * the tool that returned it; undefined when no server offered `client` that URI (or the offer expired).
   */
  async readResource(client: string, uri: string, allowed: (tool: string) => boolean): Promise<{ contents: unknown[] } | undefined> {
    const offers = this.offeredResources(client)
      .filter((offer) => offer.uri === uri && allowed(offer.tool))
      .sort((a, b) => b.expires - a.expires);
    const newest = offers[0];
    return newest ? this.#servers.get(newest.server)?.readOffered(client, uri) : undefined;
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
    const server = new ServerConnection(name, raw, parsed, { ...this.options, ...this.#shared });
    this.#servers.set(name, server);
    this.#secrets = undefined;
    if (this.#running) server.start();
    return server;
  }
}

/** What a call to a held-back imported tool answers (TOOL_HELD): why, and what releases it. */
function heldMessage(server: string, tool: string, importedAs: string, why: string): string {
  return (
    `The tool "${importedAs}" of the MCP server "${server}" is held back (${why}): it stays off until the owner reviews and accepts it ` +
    `(pincer mcp-servers accept ${server} --tool ${tool}, or Accept in the dashboard's MCP servers view). Tell the user; calling it again before then fails the same way.`
  );
}

/**
 * A server's progress notification as the caller gets it: only the protocol's fields (a server's extra keys are not
 * passed on), the message cut to a line's length.
 */
function progressUpdate(update: Progress): ProgressUpdate {
  return {
    progress: update.progress,
    ...(typeof update.total === 'number' && { total: update.total }),
    ...(typeof update.message === 'string' && { message: update.message.slice(0, 500) }),
  };
}

function unknownToolsProblem(server: string, names: string[]): string {
  return `the MCP server "${server}" has no tool named ${names.map((n) => `"${n}"`).join(', ')} (use the names it lists, not <server>__<tool>)`;
}

/** A resource an imported server named in a call's result: readable by the client that made the call, for a while. */
export interface OfferedResource {
  client: string;
  uri: string;
  /** The imported tool whose result named it. */
  tool: string;
  name: string;
  mimeType: string | undefined;
  expires: number;
}

/** How long a client may read a resource a result named, and how many such links a server keeps. */
const RESOURCE_LINK_TTL_MS = 60 * 60_000;
const MAX_OFFERED_RESOURCES = 1_000;

/**
 * Icons as a server declares them, kept only with an http(s) or data:image source.
 * Security: a client that shows icons would otherwise load `file:` or `javascript:` URLs a server chose.
 */
function safeIcons(icons: unknown): ToolIcon[] {
  if (!Array.isArray(icons)) return [];
  return icons.filter((icon): icon is ToolIcon => {
    if (!isPlainObject(icon) || typeof icon.src !== 'string') return false;
    return /^https?:\/\//i.test(icon.src) || /^data:image\/[a-z0-9.+-]+[;,]/i.test(icon.src);
  });
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
  /** Resources named in results, by client and URI (see OfferedResource). */
  readonly #offered = new Map<string, OfferedResource>();
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
    private readonly options: McpServerManagerOptions & Shared,
  ) {}
  /** The package its command runs (npx, uvx), and the version that ran at its last start. */
  #package: PackageView | null = null;

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
      package: this.#package ?? this.#declaredPackage(),
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
      const waiting = !pinned || (!pinned.disabled && (pinned.hash !== remote.hash || this.#versionChange(remote) !== null));
      if (names ? !names.includes(remote.tool.name) : !waiting) continue;
      this.options.pins.accept(this.name, remote.tool.name, remote.definition, risk ?? this.#rated(remote));
    }
    const ran = this.#package && !this.#package.pinned ? this.#package.version : null;
    if (ran) this.options.packages.accept(this.name, ran, names);
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
        const env = { ...scrubbedEnvironment(), ...entry.env };
        const ownPath = Object.keys(entry.env).some((k) => k.toUpperCase() === 'PATH');
        const found = await this.options.findCommand(entry.command, entry.args, { env, ...(entry.cwd && { cwd: entry.cwd }), askLoginShell: !ownPath });
        if (generation !== this.#generation || this.#stopped) return;
        // Not there is not a crash: restarting would find nothing either, until the owner installs it.
        if ('problem' in found) return this.#fail(`could not start: ${found.problem}`);
        // The program was found on this PATH: what it starts (`#!/usr/bin/env node`) is looked up on it too.
        if (!ownPath && found.path) env[Object.keys(env).find((k) => k.toUpperCase() === 'PATH') ?? 'PATH'] = found.path;
        this.#child = await this.options.runner.start({
          kind: `mcp:${this.name}`,
          command: found.command,
          args: found.args,
          env,
          ...(entry.cwd && { cwd: entry.cwd }),
          tag: true,
          ...(found.verbatim && { windowsVerbatimArguments: true }),
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
      await connectEitherEra(client, transport, entry, CONNECT_TIMEOUT_MS);
      connected = true;
      if (generation !== this.#generation || this.#stopped) return;
      this.#connectedAt = Date.now();
      this.#readPackage(entry);
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
      const names = importedNames(this.name, tools.map((t) => t.name), (this.entry as McpServerEntry).prefix);
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
      if (status === 'changed' || status === 'flagged') held.set(remote.importedAs, heldMessage(this.name, remote.tool.name, remote.importedAs, this.#heldWhy(remote, status)));
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
    if (this.#versionChange(remote)) return 'changed';
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
    const version = status === 'changed' ? this.#versionChange(remote) : null;
    const change =
      status === 'changed'
        ? [
            ...(version ? [{ field: 'version', ...version }] : []),
            ...(pinned
              ? (['title', 'description', 'inputSchema', 'annotations'] as const)
                  .filter((f) => JSON.stringify(pinned.definition[f] ?? null) !== JSON.stringify(remote.definition[f] ?? null))
                  .map((field) => ({ field, before: pinned.definition[field] ?? null, after: remote.definition[field] ?? null }))
              : []),
          ]
        : null;
    return {
      name: remote.tool.name,
      imported_as: remote.importedAs,
      status,
      risk: this.#risk(remote),
      accepted: pinned !== undefined && !pinned.disabled && pinned.hash === remote.hash && status !== 'changed',
      description: remote.definition.description,
      flags: remote.flags,
      change,
      problem: remote.problem,
    };
  }

  /** The package its command line names, before it has run (no version known yet). */
  #declaredPackage(): PackageView | null {
    if ('problem' in this.entry || this.entry.kind !== 'stdio') return null;
    const pkg = runPackage(this.entry.command, this.entry.args);
    return pkg ? { ...pkg, version: pkg.pinned } : null;
  }

  /** After a start: the version of an unpinned npx package that ran, the first one taken as the accepted one. */
  #readPackage(entry: McpServerEntry): void {
    if (entry.kind !== 'stdio') return;
    const pkg = runPackage(entry.command, entry.args);
    if (!pkg) return;
    const ran = pkg.runner === 'npx' && !pkg.pinned ? (npxRanVersion(pkg, { ...scrubbedEnvironment(), ...entry.env }) ?? null) : null;
    this.#package = { ...pkg, version: pkg.pinned ?? ran };
    if (ran) this.options.packages.seen(this.name, ran);
  }

  /** The package version that ran, when it is not the one the owner accepted this tool with. */
  #versionChange(remote: RemoteTool): { before: string; after: string } | null {
    const ran = this.#package && !this.#package.pinned ? this.#package.version : null;
    if (!ran) return null;
    const accepted = this.options.packages.accepted(this.name, remote.tool.name);
    return accepted !== undefined && accepted !== ran ? { before: accepted, after: ran } : null;
  }

  #heldWhy(remote: RemoteTool, status: 'changed' | 'flagged'): string {
    if (status === 'flagged') return 'its description looks like it gives the model instructions';
    const version = this.#versionChange(remote);
    if (version) return `the package it runs, ${this.#package!.name}, is now version ${version.after}, not ${version.before} as when the owner accepted it`;
    return 'its definition changed since the owner accepted it';
  }

  #registryTool(remote: RemoteTool): AnyTool {
    const tool = remote.tool;
    const hints: ToolAnnotations = {};
    for (const key of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
      if (typeof tool.annotations?.[key] === 'boolean') hints[key] = tool.annotations[key];
    }
    const title = tool.title ?? tool.annotations?.title;
    const timeoutMs = (this.entry as McpServerEntry).timeoutMs;
    const icons = safeIcons(tool.icons);
    return {
      name: remote.importedAs,
      description: remote.definition.description.trim() || `${tool.name} (from the MCP server "${this.name}")`,
      parameters: tool.inputSchema as ObjectSchema,
      category: `mcp:${this.name}`,
      risk: this.#risk(remote),
      annotations: { ...(title && { title }), ...hints },
      ...(tool.outputSchema?.type === 'object' && { outputSchema: tool.outputSchema as ObjectSchema }),
      ...(icons.length > 0 && { icons }),
      timeoutMs,
      handler: (args: Record<string, unknown>, ctx) => this.#running.during(ctx, remote.importedAs, () => this.#call(tool.name, remote.importedAs, args, ctx)),
    };
  }

  async #call(tool: string, importedAs: string, args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    const client = this.#client;
    const signal = ctx.signal;
    const progress = ctx.progress;
    if (!client || this.#status !== 'running') {
      throw new ToolError('MCP_SERVER_UNAVAILABLE', `The MCP server "${this.name}" is ${this.#status}${this.#lastError ? ` (${this.#lastError})` : ''}; try again shortly.`);
    }
    let result: CallToolResult;
    try {
      // A progress token goes to the server only when the caller listens: then its progress reaches the caller.
      const onprogress = progress && ((update: Progress) => progress(progressUpdate(update)));
      // The call's time limit is the executor's (it aborts the signal): the SDK's own timer would also count the time
      // the owner takes to answer a question of the server's, which the executor's clock leaves out.
      result = (await client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: SDK_TIMEOUT_OFF_MS, ...(onprogress && { onprogress }) })) as CallToolResult;
    } catch (error) {
      if (signal.aborted) throw error;
      throw new ToolError('MCP_SERVER_ERROR', `The MCP server "${this.name}" refused the call to ${tool}: ${(error as Error).message}`);
    }
    // The SDK client checked every block against the protocol's schemas: what is left is passed on as it came.
    const content = (result.content ?? []) as ContentBlock[];
    if (result.isError) {
      const text = content.filter((part) => part.type === 'text').map((part) => part.text).join('\n');
      throw new ToolError('MCP_TOOL_ERROR', text || `${tool} on the MCP server "${this.name}" failed.`, { content });
    }
    this.#noteResources(ctx.client, importedAs, content);
    return contentResult({
      content,
      ...(isPlainObject(result.structuredContent) && { structuredContent: result.structuredContent }),
      ...(isPlainObject(result._meta) && { _meta: result._meta }),
    });
  }

  /** Remembers the resources this server named in a result, as readable by the client whose call got them. */
  #noteResources(client: string, tool: string, content: ContentBlock[]): void {
    const expires = Date.now() + RESOURCE_LINK_TTL_MS;
    for (const block of content) {
      const named =
        block.type === 'resource_link'
          ? { uri: block.uri, name: block.name, mimeType: block.mimeType }
          : block.type === 'resource'
            ? { uri: block.resource.uri, name: block.resource.uri, mimeType: block.resource.mimeType }
            : undefined;
      if (!named) continue;
      const key = `${client}\u0000${named.uri}`;
      this.#offered.delete(key);
      this.#offered.set(key, { client, tool, ...named, expires });
    }
    // Oldest first in a Map: past the cap, the oldest links are forgotten.
    for (const key of this.#offered.keys()) {
      if (this.#offered.size <= MAX_OFFERED_RESOURCES) break;
      this.#offered.delete(key);
    }
  }

  /** The resources this server offered `client` (in its results) that have not expired, newest last. */
  offered(client: string): OfferedResource[] {
    const now = Date.now();
    return [...this.#offered.values()].filter((r) => r.client === client && r.expires > now);
  }

  /** Reads a resource this server offered `client`; undefined if it did not (or the offer expired). */
  async readOffered(client: string, uri: string): Promise<{ contents: unknown[] } | undefined> {
    const offer = this.#offered.get(`${client}\u0000${uri}`);
    if (!offer || offer.expires <= Date.now()) return undefined;
    const connection = this.#client;
    if (!connection || this.#status !== 'running') {
      throw new ToolError('MCP_SERVER_UNAVAILABLE', `The MCP server "${this.name}" is ${this.#status}; try reading ${uri} again shortly.`);
    }
    let read: { contents: unknown[] };
    try {
      read = (await connection.readResource({ uri }, { timeout: (this.entry as McpServerEntry).timeoutMs })) as { contents: unknown[] };
    } catch (error) {
      throw new ToolError('MCP_SERVER_ERROR', `The MCP server "${this.name}" could not read ${uri}: ${(error as Error).message}`);
    }
    const limit = this.options.maxOutputBytes;
    const size = limit === undefined ? 0 : Buffer.byteLength(JSON.stringify(read.contents));
    if (limit !== undefined && size > limit) {
      throw new ToolError('OUTPUT_TOO_LARGE', `${uri} is ${size} bytes, more than the ${limit}-byte limit (max_output_bytes).`, { bytes: size, limit });
    }
    return read;
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

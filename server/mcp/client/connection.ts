import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { ToolError } from '../../errors.js';
import { scrubbedEnvironment, type ChildHandle, type ProcessRunner } from '../../process/index.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { ProgressUpdate, ToolContext } from '../../tools/types.js';
import { contentResult, type ContentBlock } from '../../tools/content.js';
import { isPlainObject } from '../../util/json.js';
import { isSecretName } from '../../util/secret-names.js';
import type { FoundCommand, MissingCommand } from './command-lookup.js';
import { connectEitherEra } from './connect-era.js';
import type { McpServerEntry } from './entry.js';
import { ImportedTools } from './imported-tools.js';
import { OfferedResources, type OfferedResource } from './offered-resources.js';
import { linearOutputValidator } from './output-validator.js';
import type { OwnerRequestsHost } from './owner-requests.js';
import { npxRanVersion, runPackage, type PackageVersions, type PackageView } from './package-version.js';
import type { McpPins } from './pins.js';
import { RunningCalls } from './running-calls.js';
import { NOTICE, type McpServerChange, type McpServerView, type ServerStatus } from './server-view.js';
import { listAllTools, ToolListStopped } from './tool-list.js';

const BACKOFF_MS = [1_000, 2_000, 5_000, 10_000, 30_000, 60_000];
/** A server that stayed up this long starts its backoff from the beginning after its next crash. */
const STABLE_AFTER_MS = 60_000;
const CONNECT_TIMEOUT_MS = 30_000;
/** The longest timer Node keeps: in effect none, for requests whose limit is enforced by their abort signal. */
const SDK_TIMEOUT_OFF_MS = 2_147_483_647;

/** `askLoginShell`: false when the owner gave the server its own PATH, which is then the only one searched. */
export type CommandFinder = (
  command: string,
  args: readonly string[],
  where: { env: Record<string, string>; cwd?: string; askLoginShell: boolean },
) => Promise<FoundCommand | MissingCommand>;

/** What one server's connection needs: the manager's options and what every server of the manager shares. */
export interface ConnectionOptions {
  registry: ToolRegistry;
  runner: ProcessRunner;
  pins: McpPins;
  version: string;
  log: (line: string) => void;
  onChange?: (change: McpServerChange) => void;
  backoffMs?: readonly number[];
  maxOutputBytes?: number;
  owner?: OwnerRequestsHost;
  findCommand: CommandFinder;
  packages: PackageVersions;
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

/**
 * One imported server: its connection (a child process over stdio, or Streamable HTTP), its tools listed again
 * whenever it says they changed, its calls, and its restarts with backoff after a crash.
 */
export class ServerConnection {
  #status: ServerStatus = 'stopped';
  #lastError: string | null = null;
  #lastErrorAt: string | null = null;
  #stderr: string | null = null;
  #restarts = 0;
  #client: Client | undefined;
  #child: ChildHandle | undefined;
  /** Resources named in results, by client and URI (see OfferedResource). */
  readonly #offered = new OfferedResources();
  /** Its tools as imported: pinned, held back or registered. */
  readonly tools: ImportedTools;
  /** The package its command runs (npx, uvx), and the version that ran at its last start. */
  #package: PackageView | null = null;
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
    private readonly options: ConnectionOptions,
  ) {
    this.tools = new ImportedTools(name, {
      registry: options.registry,
      pins: options.pins,
      packages: options.packages,
      entry: () => this.entry as McpServerEntry,
      ranPackage: () => this.#package,
      callsTo: (remote) => (args, ctx) => this.#running.during(ctx, remote.importedAs, () => this.#call(remote.tool.name, remote.importedAs, args, ctx)),
    });
  }

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
    this.tools.unregisterAll();
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
      tools: this.tools.views(),
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
      this.tools.read(tools);
      this.tools.apply();
      if (announce) this.#changed();
    } catch (error) {
      const stopped = error instanceof ToolListStopped;
      const reason = stopped ? `stopped reading its tools: ${error.message}; none of that listing is imported` : `could not list its tools: ${(error as Error).message}`;
      this.#setError(reason);
      if (stopped) this.options.log(`pincer: MCP server ${this.name}: ${reason}`);
      if (announce) this.#changed();
    }
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
    this.#offered.note(ctx.client, importedAs, content);
    return contentResult({
      content,
      ...(isPlainObject(result.structuredContent) && { structuredContent: result.structuredContent }),
      ...(isPlainObject(result._meta) && { _meta: result._meta }),
    });
  }

  /** The resources this server offered `client` (in its results) that have not expired, newest last. */
  offered(client: string): OfferedResource[] {
    return this.#offered.list(client);
  }

  /** Reads a resource this server offered `client`; undefined if it did not (or the offer expired). */
  async readOffered(client: string, uri: string): Promise<{ contents: unknown[] } | undefined> {
    if (!this.#offered.has(client, uri)) return undefined;
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


import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { scrubbedEnvironment } from '../../process/index.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { isSecretName } from '../../util/secret-names.js';
import type { McpServerEntry } from './entry.js';
import { ImportedTools } from './imported-tools.js';
import type { OfferedResource } from './offered-resources.js';
import { packageOf, type PackageVersions, type PackageView } from './package-version.js';
import type { McpPins } from './pins.js';
import { RunningCalls } from './running-calls.js';
import { ServerCalls } from './server-calls.js';
import { CommandMissing, ServerLink, type LinkOptions } from './server-link.js';
import { NOTICE, type McpServerChange, type McpServerView, type ServerStatus } from './server-view.js';
import { listAllTools, ToolListStopped } from './tool-list.js';

export type { CommandFinder } from './server-link.js';

const BACKOFF_MS = [1_000, 2_000, 5_000, 10_000, 30_000, 60_000];
/** A server that stayed up this long starts its backoff from the beginning after its next crash. */
const STABLE_AFTER_MS = 60_000;

/** What one server's connection needs: the manager's options and what every server of the manager shares. */
export interface ConnectionOptions extends LinkOptions {
  registry: ToolRegistry;
  pins: McpPins;
  log: (line: string) => void;
  onChange?: (change: McpServerChange) => void;
  backoffMs?: readonly number[];
  maxOutputBytes?: number;
  packages: PackageVersions;
}

/**
 * One imported server's life: its status, its restarts with backoff after a crash, its tools listed again whenever
 * it says they changed. How it is reached is its link's (server-link.ts); its calls are ServerCalls'.
 */
export class ServerConnection {
  #status: ServerStatus = 'stopped';
  #lastError: string | null = null;
  #lastErrorAt: string | null = null;
  #stderr: string | null = null;
  #restarts = 0;
  /** The connection made or being made; replaced at each (re)connect. */
  #link: ServerLink | undefined;
  /** Its tools as imported: pinned, held back or registered. */
  readonly tools: ImportedTools;
  readonly #calls: ServerCalls;
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
    this.#calls = new ServerCalls(name, {
      state: () => ({ client: this.#client, status: this.#status, lastError: this.#lastError }),
      readTimeoutMs: () => (this.entry as McpServerEntry).timeoutMs,
      ...(options.maxOutputBytes !== undefined && { maxOutputBytes: options.maxOutputBytes }),
    });
    this.tools = new ImportedTools(name, {
      registry: options.registry,
      pins: options.pins,
      packages: options.packages,
      entry: () => this.entry as McpServerEntry,
      ranPackage: () => this.#package,
      callsTo: (remote) => (args, ctx) => this.#running.during(ctx, remote.importedAs, () => this.#calls.call(remote.tool.name, remote.importedAs, args, ctx)),
    });
  }

  get #client(): Client | undefined {
    return this.#link?.client;
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
      // Before it has run, the package its command line names (no version known yet).
      package: this.#package ?? (entry?.kind === 'stdio' ? (packageOf(entry.command, entry.args)?.view ?? null) : null),
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

  /** The resources this server offered `client` (in its results) that have not expired, newest last. */
  offered(client: string): OfferedResource[] {
    return this.#calls.offered(client);
  }

  /** Reads a resource this server offered `client`; undefined if it did not (or the offer expired). */
  readOffered(client: string, uri: string): Promise<{ contents: unknown[] } | undefined> {
    return this.#calls.readOffered(client, uri);
  }

  async #connect(): Promise<void> {
    const generation = ++this.#generation;
    const live = () => generation === this.#generation && !this.#stopped;
    const entry = this.entry as McpServerEntry;
    this.#status = this.#restarts > 0 ? 'restarting' : 'starting';
    this.#changed();
    const link = new ServerLink(this.name, entry, this.options, this.#running, {
      live,
      toolsChanged: () => void this.#sync(generation),
      crashed: (reason, stderr) => {
        if (stderr !== undefined) this.#stderr = stderr;
        this.#crashed(reason);
      },
    });
    this.#link = link;
    try {
      if (!(await link.open())) return;
      this.#connectedAt = Date.now();
      this.#readPackage(entry);
      // Running once its tools are read again: until then the view still shows the last connection's tools.
      await this.#sync(generation, false);
      if (!live()) return;
      this.#status = 'running';
      this.#changed();
    } catch (error) {
      if (!live()) return;
      if (error instanceof CommandMissing) return this.#fail(error.message);
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

  /** After a start: the version of an unpinned npx package that ran, the first one taken as the accepted one. */
  #readPackage(entry: McpServerEntry): void {
    if (entry.kind !== 'stdio') return;
    const pkg = packageOf(entry.command, entry.args, { ...scrubbedEnvironment(), ...entry.env });
    if (!pkg) return;
    this.#package = pkg.view;
    if (pkg.ran) this.options.packages.seen(this.name, pkg.ran);
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
    const link = this.#link;
    this.#link = undefined;
    await link?.close();
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

import { scrubbedEnvironment, type ProcessRunner } from '../../process/index.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { Risk } from '../../tools/types.js';
import { findCommand, loginShellPath } from './command-lookup.js';
import { saveServerEntry } from './config-writer.js';
import { ServerConnection, type CommandFinder } from './connection.js';
import { parseServerEntry } from './entry.js';
import type { OfferedResource } from './offered-resources.js';
import type { OwnerRequestsHost } from './owner-requests.js';
import type { PackageVersions } from './package-version.js';
import type { McpPins } from './pins.js';
import type { McpServerChange, McpServerView } from './server-view.js';
import type { Announcer } from '../../events/bus.js';

export type { ImportedToolStatus, ImportedToolView, McpServerChange, McpServerView, ServerStatus } from './server-view.js';
export type { CommandFinder } from './connection.js';
export type { OfferedResource } from './offered-resources.js';

export interface McpServerManagerOptions {
  entries: Record<string, unknown>;
  registry: ToolRegistry;
  runner: ProcessRunner;
  pins: McpPins;
  /** The package versions the owner accepted each server's tools with. */
  packages: PackageVersions;
  version: string;
  log: (line: string) => void;
  /** Where a server's status, tools or removal is announced (the `mcp_servers` event). */
  events?: Announcer<'mcp_servers'>;
  /** Applied to an error before it is announced: every viewer hears of it, and it can quote a URL with its token. */
  redact?: (text: string) => string;
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
 * the owner accepts it. This is the list and its supervision; one server's connection is a ServerConnection.
 */
export class McpServerManager {
  readonly #servers = new Map<string, ServerConnection>();
  /** Whether this gateway runs the servers (one started for a CLI command only lists and edits them). */
  #running = false;
  /** secretValues(), until the servers change. */
  #secrets: readonly string[] | undefined;
  readonly #shared: Shared;
  readonly #announce: (change: McpServerChange) => void;

  constructor(private readonly options: McpServerManagerOptions) {
    const redact = options.redact ?? ((text: string) => text);
    this.#announce = (change) => options.events?.emit('mcp_servers', { ...change, last_error: change.last_error === null ? null : redact(change.last_error) });
    this.#shared = { findCommand: options.findCommand ?? defaultCommandFinder(), packages: options.packages };
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
    // Its tools' acceptances and its package version alike.
    this.options.pins.forget(name);
    this.#servers.delete(name);
    this.#secrets = undefined;
    await server.stop();
    this.#announce({ name, status: 'removed', last_error: null, restarts: 0 });
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
    const unknown = server.tools.unknown(tools);
    if (unknown.length > 0) return { problem: unknownToolsProblem(name, unknown) };
    server.tools.disable(tools);
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
    const unknown = server.tools.unknown(selection.tools);
    if (unknown.length > 0) return { problem: unknownToolsProblem(name, unknown) };
    server.tools.accept(selection.tools, selection.risk);
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
    const server = new ServerConnection(name, raw, parsed, { ...this.options, ...this.#shared, onChange: this.#announce });
    this.#servers.set(name, server);
    this.#secrets = undefined;
    if (this.#running) server.start();
    return server;
  }
}

function unknownToolsProblem(server: string, names: string[]): string {
  return `the MCP server "${server}" has no tool named ${names.map((n) => `"${n}"`).join(', ')} (use the names it lists, not <server>__<tool>)`;
}


import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { scrubbedEnvironment, type ChildHandle, type ProcessRunner } from '../../process/index.js';
import type { FoundCommand, MissingCommand } from './command-lookup.js';
import { connectEitherEra } from './connect-era.js';
import type { McpServerEntry } from './entry.js';
import { linearOutputValidator } from './output-validator.js';
import type { OwnerRequestsHost } from './owner-requests.js';
import type { RunningCalls } from './running-calls.js';

const CONNECT_TIMEOUT_MS = 30_000;

/** `askLoginShell`: false when the owner gave the server its own PATH, which is then the only one searched. */
export type CommandFinder = (
  command: string,
  args: readonly string[],
  where: { env: Record<string, string>; cwd?: string; askLoginShell: boolean },
) => Promise<FoundCommand | MissingCommand>;

export interface LinkOptions {
  runner: ProcessRunner;
  /** Pincer's version, as the client names itself to the server. */
  version: string;
  owner?: OwnerRequestsHost;
  findCommand: CommandFinder;
}

/** What one attempt to connect tells the server it is for. */
export interface LinkEvents {
  /** Still wanted: neither stopped nor overtaken by a newer attempt. */
  live(): boolean;
  /** The server said its tools changed. */
  toolsChanged(): void;
  /** The connection ended once made; a process that exited leaves the last lines it printed (`stderr`). */
  crashed(reason: string, stderr?: string | null): void;
}

/** The server's program is not there: not a crash, restarting would find nothing either until the owner installs it. */
export class CommandMissing extends Error {
  override readonly name = 'CommandMissing';
}

type Sdk = Awaited<ReturnType<typeof loadSdk>>;

// Loaded when a server is first started, not with the gateway.
function loadSdk() {
  return Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('./child-transport.js'),
    import('./owner-requests.js'),
  ]).then(([client, http, types, child, ownerRequests]) => ({
    Client: client.Client,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    ChildStdioTransport: child.ChildStdioTransport,
    ownerRequests,
  }));
}

/**
 * One connection to an imported server, from its transport to its handshake: a child process over stdio (found on
 * the PATH it will run with, its last printed lines kept) or Streamable HTTP, spoken to in the era the server speaks.
 */
export class ServerLink {
  client: Client | undefined;
  child: ChildHandle | undefined;

  constructor(
    private readonly name: string,
    private readonly entry: McpServerEntry,
    private readonly options: LinkOptions,
    private readonly running: RunningCalls,
    private readonly events: LinkEvents,
  ) {}

  /** Connects; false when it was stopped or overtaken meanwhile (then nothing of it is left open). */
  async open(): Promise<boolean> {
    const sdk = await loadSdk();
    if (!this.events.live()) return false;
    const transport = this.entry.kind === 'stdio' ? await this.#spawn(this.entry, sdk) : this.#http(this.entry, sdk);
    if (!transport) return false;
    const { ownerRequests } = sdk;
    const { owner } = this.options;
    const capabilities = ownerRequests.ownerCapabilities(owner);
    const client = new sdk.Client({ name: 'pincer', version: this.options.version }, { capabilities, jsonSchemaValidator: linearOutputValidator() });
    if (owner) ownerRequests.installOwnerRequests(client, this.name, owner, this.running, capabilities);
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => this.events.toolsChanged());
    let connected = false;
    client.onclose = () => {
      // A failure while connecting is told by the connect's own error, which says more.
      if (!connected || !this.events.live()) return;
      this.events.crashed('the connection to the server closed');
    };
    this.client = client;
    await connectEitherEra(client, transport, this.entry, CONNECT_TIMEOUT_MS);
    connected = true;
    if (this.events.live()) return true;
    await this.close();
    return false;
  }

  async close(): Promise<void> {
    const { client, child } = this;
    this.client = undefined;
    this.child = undefined;
    await client?.close().catch(() => undefined);
    await child?.stop(1000).catch(() => undefined);
  }

  #http(entry: Extract<McpServerEntry, { kind: 'http' }>, sdk: Sdk): Transport {
    return new sdk.StreamableHTTPClientTransport(new URL(entry.url), {
      requestInit: { headers: entry.token ? { authorization: `Bearer ${entry.token}` } : {} },
    });
  }

  /** Starts the server's process; undefined when it was stopped meanwhile (the process is then ended). */
  async #spawn(entry: Extract<McpServerEntry, { kind: 'stdio' }>, sdk: Sdk): Promise<Transport | undefined> {
    const env = { ...scrubbedEnvironment(), ...entry.env };
    const ownPath = Object.keys(entry.env).some((k) => k.toUpperCase() === 'PATH');
    const found = await this.options.findCommand(entry.command, entry.args, { env, ...(entry.cwd && { cwd: entry.cwd }), askLoginShell: !ownPath });
    if (!this.events.live()) return undefined;
    if ('problem' in found) throw new CommandMissing(`could not start: ${found.problem}`);
    // The program was found on this PATH: what it starts (`#!/usr/bin/env node`) is looked up on it too.
    if (!ownPath && found.path) env[Object.keys(env).find((k) => k.toUpperCase() === 'PATH') ?? 'PATH'] = found.path;
    const child = await this.options.runner.start({
      kind: `mcp:${this.name}`,
      command: found.command,
      args: found.args,
      env,
      ...(entry.cwd && { cwd: entry.cwd }),
      tag: true,
      ...(found.verbatim && { windowsVerbatimArguments: true }),
    });
    this.child = child;
    // Stopped while it was starting (the gateway closing): it must not outlive the stop.
    if (!this.events.live()) {
      this.child = undefined;
      await child.stop(1000).catch(() => undefined);
      return undefined;
    }
    const stdio = new sdk.ChildStdioTransport(child);
    void child.exited.then(({ exitCode, signal }) => {
      if (!this.events.live()) return;
      // Kept apart from the error, which reaches clients and models; what a server prints may hold its secrets.
      const stderr = child.stderr().trim().split('\n').slice(-3).join('\n') || null;
      this.events.crashed(stdio.failure ? `Pincer ended the server process: ${stdio.failure}` : `the server process exited (${signal ?? `code ${exitCode}`})`, stderr);
    });
    return stdio;
  }
}

/**
 * The wire shapes of tool sources: plugins and imported MCP servers seen through one lifecycle (`GET /sources`;
 * viewers refetch it on the `plugins` and `mcp_servers` events). Types only: the server's records are checked
 * against them at compile time and the dashboard imports them as types.
 */

/** Which adapter a source comes from; the next kind of source adds one word here. */
export type SourceKind = 'plugin' | 'mcp';

/**
 * A source as a whole.
 * starting: being loaded or connected. running: its tools that may run are registered. held: waiting for the owner
 * (see `held_because`); none of its code runs. restarting: it ended or crashed and comes back after a backoff.
 * failed: it could not start or is invalid (`reason` says why). disabled: the owner turned it off. stopped: not run by
 * this gateway (one started for a command line only lists them) or shut down.
 */
export type SourceStatus = 'starting' | 'running' | 'held' | 'restarting' | 'failed' | 'disabled' | 'stopped';

/**
 * Why a source or a tool waits for the owner. new: never accepted. changed: differs from what the owner accepted
 * (files, definition or package version). flagged: its definition looks like it gives the model instructions.
 */
export type HeldBecause = 'new' | 'changed' | 'flagged';

/**
 * One tool of a source.
 * active: registered and callable. held: known but refused with TOOL_HELD until the owner accepts it (see
 * `held_because`). disabled: the owner turned it (or its source) off. invalid: cannot be imported (`problem` says why).
 * inactive: nothing stops it but its source is not running right now.
 */
export type SourceToolStatus = 'active' | 'held' | 'disabled' | 'invalid' | 'inactive';

export type SourceRisk = 'safe' | 'sensitive' | 'dangerous';

/** A phrase in a tool's definition that reads like orders to the model. */
export interface SourceToolFlag {
  rule: string;
  reason: string;
  where: string;
  phrase: string;
}

export interface SourceToolView {
  /** Its name at the source (what `accept {"tools"}` names). */
  name: string;
  /** Its name in Pincer's tool list (`<server>__<tool>` for MCP; the same name for a plugin). */
  tool: string;
  status: SourceToolStatus;
  held_because: HeldBecause | null;
  /** The risk it runs with (effectiveRisk: the rating, raised never lowered by what the tool says of itself). */
  risk: SourceRisk;
  /** Why the risk is higher than the rating it started from; empty when it is not. */
  raised_because: string[];
  /** The owner accepted it as it is now. */
  accepted: boolean;
  description: string;
  flags: SourceToolFlag[];
  problem: string | null;
}

export interface SourceView {
  kind: SourceKind;
  name: string;
  status: SourceStatus;
  held_because: HeldBecause | null;
  /** Why it is not running, or its last error (kept after it recovers: `restarts` says it did). */
  reason: string | null;
  restarts: number;
  /** When the owner accepted a source accepted as a whole (a plugin); null if never, or if it is accepted tool by tool. */
  accepted_at: string | null;
  tools: SourceToolView[];
  /** Where the kind's own detailed view is (`/plugins/<name>`, `/mcp-servers/<name>`). */
  detail: string;
}

/** `GET /sources`. */
export interface SourceList {
  sources: SourceView[];
}

/**
 * `POST /sources/{kind}/{name}/accept`: `tools` names tools of the source (an MCP server accepts tool by tool; a
 * plugin only as a whole, so it refuses `tools`), `risk` rates them (MCP), `hash` is the hash the owner looked at
 * (plugins: refused if the files changed since).
 */
export interface SourceAcceptBody {
  tools?: string[];
  risk?: SourceRisk;
  hash?: string;
}

// ---- Each kind's own detailed view: GET /plugins[/{name}] and GET /mcp-servers[/{name}] -------------------------------
// These keep each kind's own status words, which scripts rely on; /sources maps them to the vocabulary above.

/**
 * running: its tools are registered. new / changed: held back until the owner accepts it (none of its code runs; the
 * tools its manifest declares are listed, not registered). disabled: the owner turned it off. failed: it could not
 * load, or is not a valid plugin. crashed: its process ended and is being restarted. loading: being read.
 */
export type PluginStatus = 'loading' | 'running' | 'new' | 'changed' | 'disabled' | 'failed' | 'crashed';

/** What a plugin may do beyond reading its own folder, as its manifest declares it. */
export interface PluginPermissions {
  /** Hosts its HTTP client may reach (the URL policy still applies). */
  hosts: string[];
  /** Paths it may read besides its own folder. */
  read: string[];
  /** Paths it may write. */
  write: string[];
  childProcess: boolean;
  workers: boolean;
  addons: boolean;
}

export interface PluginToolView {
  name: string;
  description: string;
  /** The risk Pincer gives it: the declared one, raised (never lowered) for the reasons in `raised_because`. */
  risk: string;
  declared_risk: string;
  raised_because: string[];
  /** False while the plugin is held back, disabled or not running: the tool cannot be called. */
  registered: boolean;
  /** Why its description or schema reads as orders to the model (empty for most). */
  flags: SourceToolFlag[];
}

/** For a changed plugin: what differs from what the owner accepted (its declared tools, permissions and files). */
export interface PluginChanges {
  added: string[];
  removed: string[];
  changed: { name: string; fields: { field: string; before: unknown; after: unknown }[] }[];
  permissions: { before: unknown; after: unknown } | null;
  /** Which files differ; null when what was accepted did not record its files. */
  files: { added: string[]; removed: string[]; changed: string[]; more: number } | null;
}

/** One of a plugin's files as hashed; a link says where it points inside the plugin. */
export interface PluginFile {
  path: string;
  size: number;
  link?: string;
}

/** `GET /plugins/{name}`, and each plugin of `GET /plugins`. */
export interface PluginView {
  name: string;
  origin: 'bundled' | 'user';
  dir: string;
  status: PluginStatus;
  /** Why it is not running, or its last error. */
  reason: string | null;
  /** Null when its manifest could not be read. */
  version: string | null;
  description: string | null;
  /** The module its process imports, relative to its folder. */
  entry: string | null;
  hash: string | null;
  permissions: PluginPermissions | null;
  /** Held back: the tools its manifest declares (what accepting turns on). Running: those its code defines. */
  tools: PluginToolView[];
  /** Its files (its own first, then its dependencies'), capped: `file_count` says how many there are in all. */
  files: PluginFile[];
  file_count: number;
  file_bytes: number;
  changes: PluginChanges | null;
  accepted_at: string | null;
  restarts: number;
  /** Its last warnings and errors. */
  log: { at: string; level: string; message: string }[];
  /** What contains its process: the OS sandbox, or (`none`) Node's permission model alone. */
  sandbox: { kind: 'bubblewrap' | 'sandbox-exec' | 'none'; detail: string };
}

/** A plugin folder that was found and not loaded, with why (a user's folder named like a bundled plugin). */
export interface IgnoredPluginFolder {
  name: string;
  dir: string;
  reason: string;
}

/** `GET /plugins`: every plugin found, and the folder where the owner's own go. */
export interface PluginList {
  plugins: PluginView[];
  count: number;
  folder: string;
  ignored: IgnoredPluginFolder[];
}

/**
 * An imported MCP server (config.json `mcp_servers`). starting / restarting: connecting (again, after a crash, with
 * backoff); failed: it cannot start (its entry is wrong, its program is missing); disabled: the owner turned it off;
 * stopped: this gateway does not run it.
 */
export type McpServerStatus = 'starting' | 'running' | 'restarting' | 'failed' | 'disabled' | 'stopped';

/**
 * active: imported and callable; changed / flagged: held back until the owner accepts it; disabled: the owner turned
 * it off (until they accept it); invalid: it cannot be imported (`problem` says why).
 */
export type ImportedToolStatus = 'active' | 'changed' | 'flagged' | 'disabled' | 'invalid';

export interface ImportedToolView {
  name: string;
  /** Its name in Pincer: `<server>__<tool>`. */
  imported_as: string;
  status: ImportedToolStatus;
  /** The risk it runs with: the owner's rating (until then `sensitive`), raised by the server's own annotations. */
  risk: SourceRisk;
  /** The owner accepted it as it is now. */
  accepted: boolean;
  description: string;
  flags: SourceToolFlag[];
  /** For a changed tool: what the owner accepted and what the server says now. */
  change: { field: string; before: unknown; after: unknown }[] | null;
  problem: string | null;
}

/** The npx or uvx package a server's command runs: the version written on the command line, or the one that ran. */
export interface PackageView {
  runner: 'npx' | 'uvx';
  name: string;
  /** As written on the command line (`@scope/pkg`, `pkg@1.2.3`, `pkg==1.2.3`). */
  spec: string;
  /** The exact version written on the command line, or null. */
  pinned: string | null;
  version: string | null;
}

/** `GET /mcp-servers/{name}`, and each server of `GET /mcp-servers`. */
export interface McpServerView {
  name: string;
  transport: 'stdio' | 'http' | null;
  /** The command line or URL (a token is never shown); null to anyone but the owner. */
  target: string | null;
  status: McpServerStatus;
  /** The last thing that went wrong (kept after the server recovers, with when: the restarts say it did). */
  last_error: string | null;
  last_error_at: string | null;
  /** The last lines its process wrote to standard error before it ended (may hold secrets: the owner's only). */
  stderr: string | null;
  restarts: number;
  server_info: { name: string; version: string } | null;
  package: PackageView | null;
  tools: ImportedToolView[];
  /** Said wherever the owner accepts its tools. */
  notice: string;
}

/** `GET /mcp-servers`. */
export interface McpServerList {
  servers: McpServerView[];
  count: number;
}

/** One well-known server of `GET /mcp-servers/catalog`, its command line filled in for the shared folders. */
export interface McpCatalogEntry {
  /** The name it is added as, unless the owner picks another. */
  name: string;
  title: string;
  description: string;
  runner: 'npx' | 'uvx';
  /** The package and its pinned version (for a PyPI package, as uvx reads it). */
  package: string;
  version: string;
  command: string;
  args: string[];
  /** Where its documentation is. */
  homepage: string;
  /** What it needs on this machine, or how it uses the shared folders. */
  note: string;
  /** Why it cannot be added as it stands (it is pointed at the shared folders, and none is shared), or null. */
  problem: string | null;
}

/** `GET /mcp-servers/catalog`. */
export interface McpCatalog {
  catalog: McpCatalogEntry[];
}

/** A `mcp_servers` entry as `PUT /mcp-servers/{name}` takes it (and config.json keeps it). */
export type McpServerEntryBody =
  | { command: string; args?: string[]; env?: Record<string, string>; cwd?: string; disabled?: boolean; timeout_ms?: number; prefix?: boolean }
  | { url: string; token?: string; disabled?: boolean; timeout_ms?: number; prefix?: boolean };

import type { ApprovalView, ProvenanceView } from '../../../electron/ipc-contract';

// The gateway's JSON as the dashboard reads it (SPEC §3). The renderer reaches the gateway only over HTTP/SSE, so
// these mirror the wire, not the server's modules.

export type CallStatus = 'running' | 'pending' | 'succeeded' | 'failed' | 'denied' | 'cancelled';
export type CallPhase = 'started' | 'succeeded' | 'failed' | 'denied' | 'pending' | 'cancelled';
export type Risk = 'safe' | 'sensitive' | 'dangerous';

export interface CallRecord {
  id: string;
  tool: string;
  client: string;
  via: string;
  arguments: unknown;
  result: unknown;
  status: CallStatus;
  error: { name: string; message: string } | null;
  http_status: number | null;
  decision: string | null;
  rule: string | null;
  reason: string | null;
  cache_hit: boolean;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
}

/**
 * A call as a live row shows it: what `call` events carry, and what the call log keeps of every call. The whole
 * record (arguments, result, the error's message) is `GET /calls/{id}`.
 */
export interface LiveCall {
  id: string;
  tool: string;
  client: string;
  via: string;
  status: CallStatus;
  error: { name: string } | null;
  http_status: number | null;
  decision: string | null;
  rule: string | null;
  /** The policy's reason, possibly cut short. */
  reason: string | null;
  cache_hit: boolean;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  /** The arguments in one line, at most 240 characters. */
  preview: string;
}

export interface CallPage {
  calls: CallRecord[];
  next_cursor: string | null;
}

export type RuleScope = 'exact' | 'tool' | 'prefix' | 'folder' | 'host';
export type RuleEffect = 'allow' | 'ask' | 'deny';

/**
 * A pending or ended approval, as `GET /approvals/{id}` answers it: the IPC contract's description, which the desktop
 * shell checks against the gateway's own type at compile time, so the dashboard and the popup read one shape.
 */
export type Approval = ApprovalView;
/** A file a command runs and the client call that wrote it. */
export type Provenance = ProvenanceView;

/** `GET /approvals`: what waits for the owner, oldest first. */
export interface ApprovalList {
  approvals: Approval[];
  count: number;
}

/** `POST /approvals/{id}`: the owner's answer. allow_always makes a rule with one of the approval's `scopes`. */
export type ApprovalAnswer =
  | { decision: 'allow_once' }
  | { decision: 'allow_always'; scope: RuleScope; pattern?: string }
  | { decision: 'deny'; message?: string }
  | { decision: 'accept'; content: Record<string, unknown> }
  | { decision: 'decline' };

export interface Rule {
  id: string;
  effect: RuleEffect;
  tool: string;
  scope: RuleScope;
  pattern: string | null;
  note: string | null;
  created_by: string;
  created_at: string;
  expires_at: string | null;
  uses: number;
  last_used_at: string | null;
}

export interface ToolInfo {
  name: string;
  description: string;
  parameters: JsonSchema;
  category: string;
  enabled: boolean;
  risk: Risk;
  source: string;
  annotations: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean; title?: string };
}

/** How a word of a tool search met a tool: itself, its stem, a synonym, a related word, or a typo away. */
export type ToolMatchHow = 'word' | 'stem' | 'synonym' | 'related' | 'fuzzy';

/** One word of a tool search and the tool's word it matched. */
export interface ToolMatch {
  word: string;
  matched: string;
  how: ToolMatchHow;
}

/** A tool `GET /tools/search` found, best first. */
export interface FoundTool {
  name: string;
  title: string | null;
  description: string;
  source: string;
  risk: Risk;
  score: number;
  match: ToolMatch[];
}

export interface JsonSchema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  default?: unknown;
  [key: string]: unknown;
}

export interface ToolStats {
  tool: string;
  calls: number;
  succeeded: number;
  failed: number;
  refused: number;
  denied: number;
  success_rate: number | null;
  cache_hits: number;
  latency_ms: { avg: number | null; p50: number | null; p95: number | null; max: number | null };
  top_errors: { name: string; count: number }[];
  last_call: { id: string; status: CallStatus; at: string } | null;
}

export interface TimeBucket {
  at: string;
  calls: number;
  failed: number;
}

/** Windows `GET /stats?range=` accepts for calls over time. */
export type StatsRange = '1h' | '24h' | '7d';

export interface StatsReport {
  totals: { calls: number; succeeded: number; failed: number; refused: number; denied: number; cache_hits: number };
  tools: ToolStats[];
  /** Every bucket of the range, oldest first, empty ones as zeros; `failed` counts failed, refused and denied calls. */
  over_time: { since: string; bucket_s: number; range: StatsRange; buckets: TimeBucket[] };
  cache: { size: number; max_entries: number; hits: number; misses: number; hit_rate: number | null; evictions: number; expirations: number };
}

export interface ClientToken {
  name: string;
  token_hint: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface ClientProfile {
  name: string;
  tools: string[] | null;
  /** Its budget: at most this many tools in its lists (search_tools counted); null for no limit. */
  max_tools: number | null;
  /** Tools always in its lists while it is over its budget. */
  pinned: string[];
  /** Whether it sees only the memories it wrote, or every one (the default client: always all). */
  memories: MemoryScope;
  /** Whether it reads only its own calls in the history, or every client's (the default client: always all). */
  history: HistoryScope;
  /** null for the default client, whose token lives in the data directory. */
  token: ClientToken | null;
}

export type MemoryScope = 'own' | 'all';
export type HistoryScope = 'own' | 'all';

export interface Settings {
  paused: boolean;
  address: string;
  data_dir: string;
  roots: string[];
  /** With no roots, when the gateway's working folder was not taken as one at start: why. */
  roots_notice?: string;
  approval_timeout_s: number;
  /**
   * `max_context`: the largest context window (num_ctx, tokens) asked of Ollama. `max_tools`: the tools offered per
   * turn besides search_tools (Chat and the proxies); null: worked out from the model's window.
   */
  llm: { base_url: string; model: string | null; api: 'ollama' | 'openai'; max_context?: number; max_tools?: number | null };
  /** Keys set by an environment variable or flag, with where they came from; the dashboard cannot change them. */
  locked: Record<string, string>;
  /** The OS sandbox of run_shell and run_python here; `none` means the policy alone. */
  sandbox?: { kind: string; detail: string };
  /** How long the call history is kept, and what the next pruning would remove. */
  history?: HistoryRetention;
  /** The Ollama-compatible proxy without a token: on or off, and the client such requests act as. */
  ollama_proxy?: { tokenless: boolean; client: string };
  /** Whether imported MCP servers may ask to use the configured model (each request still asks the owner). */
  mcp_sampling?: boolean;
}

export interface HistoryRetention {
  /** 0: no age limit. */
  retention_days: number;
  /** null: no row limit. */
  max_rows: number | null;
  /** False while calls outside the limits wait for the owner to allow their pruning (an older history, lowered limits). */
  pruning_confirmed: boolean;
  /** Finished calls outside the retention now: what the next pruning deletes. */
  prunable: number;
  /** Calls deleted since the gateway started. */
  pruned: number;
  last_pruned_at: string | null;
}

export type SettingsPatch = Partial<Pick<Settings, 'paused' | 'roots' | 'approval_timeout_s'>> & {
  llm?: Partial<Settings['llm']>;
  history?: Partial<HistoryLimits>;
  history_pruning_confirmed?: boolean;
  ollama_proxy?: Partial<NonNullable<Settings['ollama_proxy']>>;
  mcp_sampling?: boolean;
};

/** The history's limits as PATCH /settings takes them; max_rows null: no row limit. */
export type HistoryLimits = Pick<HistoryRetention, 'retention_days' | 'max_rows'>;

/** `POST /settings/history/preview`: what limits not yet saved would delete. */
export interface HistoryPreview extends HistoryLimits {
  /** Calls outside these limits now. */
  prunable: number;
  /** Of those, the calls the saved limits keep: saving then holds pruning back until the owner allows it. */
  newly_prunable: number;
  /** Chat conversations the saved limits keep and these would delete: saving holds pruning back for them too. */
  newly_prunable_conversations: number;
}

export interface CacheCounters {
  hits: number;
  misses: number;
  evictions: number;
  expirations: number;
  hit_rate: number | null;
}

/** `GET /cache`: the result cache as a whole and per tool (every tool that declares a cache, used or not). */
export interface CacheReport extends CacheCounters {
  size: number;
  max_entries: number;
  tools: (CacheCounters & { tool: string; size: number; ttl_s: number | null })[];
}

export type SearchMethod = 'hybrid' | 'keyword' | 'tfidf' | 'fuzzy';

/**
 * One query term and the memory term it matched; `distance` 0 is an exact match. With `part`, the query term is part
 * of the memory's term (a word typed in part, or a piece of a longer one) and `distance` is the characters beyond it.
 */
export interface TermMatch {
  query: string;
  term: string;
  distance: number;
  part?: true;
}

export interface MemoryMatch {
  method: SearchMethod;
  terms: TermMatch[];
  /** Query terms the memory does not contain, even approximately. */
  missing: string[];
}

export interface Memory {
  id: number;
  content: string;
  tags: string[];
  category: string | null;
  /** The client that wrote it ("owner" for the dashboard and the CLI). */
  client: string;
  call_id: string | null;
  created_at: string;
  updated_at: string;
  /** Set when the text reads as instructions to a model ("ignore previous instructions", "send … to http…"). */
  flagged?: { rule: string; reason: string } | null;
}

/** `GET /memory`: with a query, scored and explained best first; without one, the newest with null scores. */
export interface MemoryResult extends Memory {
  score: number | null;
  match: MemoryMatch | null;
}

/** What the owner writes (POST /memory, PATCH /memory/{id}). */
export interface MemoryDraft {
  content: string;
  tags: string[];
  category: string | null;
}

/**
 * running: its tools are registered. new / changed: held back until the owner accepts it (none of its code runs; the
 * tools its manifest declares are listed, not registered). disabled: the owner turned it off. failed: it could not
 * load, or is not a valid plugin. crashed: its process ended and is being restarted.
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

export interface PluginTool {
  name: string;
  description: string;
  /** The risk Pincer gives it: the declared one, raised (never lowered) for the reasons in `raised_because`. */
  risk: string;
  declared_risk: string;
  raised_because: string[];
  /** False while the plugin is held back, disabled or not running: the tool cannot be called. */
  registered: boolean;
  /** Why its description or schema reads as orders to the model (empty for most). */
  flags: DefinitionFlag[];
}

/** For a changed plugin: what differs from what the owner accepted (its declared tools, permissions and files). */
export interface PluginChanges {
  added: string[];
  removed: string[];
  changed: { name: string; fields: { field: string; before: unknown; after: unknown }[] }[];
  permissions: { before: unknown; after: unknown } | null;
  /** Null when what was accepted did not record its files. */
  files: { added: string[]; removed: string[]; changed: string[]; more: number } | null;
}

/** One of a plugin's files as hashed; a link says where it points inside the plugin. */
export interface PluginFile {
  path: string;
  size: number;
  link?: string;
}

export interface PluginInfo {
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
  /** Held back: the tools its manifest declares. Running: those its code defines. */
  tools: PluginTool[];
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

/** `GET /plugins`: every plugin found, and the folder where the owner's own go. */
export interface PluginList {
  plugins: PluginInfo[];
  count: number;
  folder: string;
  /** Folders found and not loaded, with why (a user's folder named like a bundled plugin). */
  ignored: { name: string; dir: string; reason: string }[];
}

/**
 * An imported MCP server (config.json `mcp_servers`). starting / restarting: connecting (again, after a crash, with
 * backoff); failed: its entry is wrong; disabled: the owner turned it off; stopped: this gateway does not run it.
 */
export type McpServerStatus = 'starting' | 'running' | 'restarting' | 'failed' | 'disabled' | 'stopped';

/**
 * active: imported and callable; changed / flagged: held back until the owner accepts it; disabled: the owner turned
 * it off (until they accept it); invalid: it cannot be imported (`problem` says why).
 */
export type ImportedToolStatus = 'active' | 'changed' | 'flagged' | 'disabled' | 'invalid';

/** Why an imported tool's definition reads as instructions aimed at the model rather than a description. */
export interface DefinitionFlag {
  rule: string;
  reason: string;
  /** `description`, or the schema path of a property's description. */
  where: string;
  /** The words that tripped the rule. */
  phrase: string;
}

export interface ImportedTool {
  name: string;
  /** Its name in Pincer: `<server>__<tool>`. */
  imported_as: string;
  status: ImportedToolStatus;
  /** The owner's rating (until then sensitive), raised by the server's own annotations. */
  risk: Risk;
  /** The owner accepted it as it is now. */
  accepted: boolean;
  description: string;
  flags: DefinitionFlag[];
  /** For a changed tool: what the owner accepted and what the server says now. */
  change: { field: string; before: unknown; after: unknown }[] | null;
  problem: string | null;
}

export interface McpServer {
  name: string;
  transport: 'stdio' | 'http' | null;
  /** The command line or URL; null to anyone but the owner, and for an entry that cannot be read. */
  target: string | null;
  status: McpServerStatus;
  /** The last thing that went wrong, kept after the server recovers (its restarts say it did), and when. */
  last_error: string | null;
  last_error_at: string | null;
  /** The last lines its process wrote to standard error before it ended (the owner's only). */
  stderr: string | null;
  restarts: number;
  server_info: { name: string; version: string } | null;
  /** The npx or uvx package its command runs: the version written on the command line, or the one that ran last. */
  package: { runner: 'npx' | 'uvx'; name: string; spec: string; pinned: string | null; version: string | null } | null;
  tools: ImportedTool[];
  /** Said wherever the owner accepts its tools. */
  notice: string;
}

/** One well-known server of `GET /mcp-servers/catalog`, its command line filled in for the shared folders. */
export interface McpCatalogEntry {
  name: string;
  title: string;
  description: string;
  runner: 'npx' | 'uvx';
  package: string;
  version: string;
  command: string;
  args: string[];
  homepage: string;
  note: string;
  /** Why it cannot be added as it stands (no folder shared for the filesystem server), or null. */
  problem: string | null;
}

/** `GET /mcp-servers`. */
export interface McpServerList {
  servers: McpServer[];
  count: number;
}

/** A `mcp_servers` entry as `PUT /mcp-servers/{name}` takes it. */
export type McpServerEntry =
  | { command: string; args?: string[]; env?: Record<string, string>; cwd?: string; disabled?: boolean; timeout_ms?: number }
  | { url: string; token?: string; disabled?: boolean; timeout_ms?: number };

export interface GatewayErrorBody {
  name: string;
  code: number;
  message: string;
  details?: unknown;
}

/** Server-Sent Events, by event name. */
export interface GatewayEvents {
  hello: { version: string };
  call: { phase: CallPhase; call: LiveCall };
  approval: { phase: 'requested' | 'resolved' | 'expired'; approval: Approval };
  tools: { reason: string; names: string[] };
  rules: { change: 'added' | 'removed'; rule: Rule };
  output: { call_id: string; tool: string; chunk: string };
  notify: { call_id: string; client: string; title: string; message: string; urgency: 'low' | 'normal' | 'critical' };
  plugins: { name: string; status: PluginStatus; reason: string | null };
  mcp_servers: { name: string; status: McpServerStatus | 'removed'; last_error: string | null; restarts: number };
}

// POST /chat (the Chat view). The turn's own shapes (steps, entries) are in state/chat-turn.ts.

/** How the chat model is given its tools: in the request, or described in the system prompt and read from its text. */
export type ChatToolMode = 'native' | 'prompted';

/** Why a tool was offered to the model in a turn when not every tool was. */
export type ToolOfferReason = 'all' | 'yours' | 'used' | 'found' | 'relevant' | 'search';

export interface ToolOffer {
  name: string;
  why: ToolOfferReason;
}

/** What Pincer did to a model's call before it ran: absent for a clean native call. */
export interface ChatCallRecovery {
  /** The model family's shape the call was written in as text (`hermes`, `mistral`, `pythonic`…). */
  shape?: string;
  /** Repairs made to the arguments (`json`, `unwrapped`, `coerced limit`…). */
  repairs?: string[];
  /** The tool name as the model wrote it, when it was normalised to an offered one. */
  written_name?: string;
}

/** Ollama only: the window Pincer asked for, and the tools left out to fit it. */
export interface ChatWindowReport {
  estimated_tokens: number;
  /** The `num_ctx` sent; absent when Ollama's default window held the request. */
  num_ctx?: number;
  /** The largest window allowed (the model's context length and `llm.max_context`, whichever is smaller). */
  limit: number;
  tools_offered: number;
  tools_left_out: string[];
}

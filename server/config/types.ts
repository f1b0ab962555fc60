/** The configuration's vocabulary: its shape after loading, its keys, where a value came from, and its error. */

/** Everything the gateway is configured with, after flags > environment > config.json > defaults. */
export interface PincerConfig {
  host: string;
  port: number;
  dataDir: string;
  /** false only with --no-auth on a loopback host: clients need no token. Never extends to owner actions. */
  clientAuth: boolean;
  /** A client token given by PINCER_TOKEN instead of the generated `<data-dir>/token`. */
  token: string | undefined;
  /** Folders file tools may touch; none until the owner shares one (then the file tools and run_shell refuse). */
  roots: string[];
  /**
   * Set when no roots were configured and the working folder was not taken as one: why (`/`, the home folder, one
   * of Pincer's own folders), for the start-up lines.
   */
  rootsNotice?: string;
  /** Extra `Host` header values accepted besides the gateway's own loopback names. */
  allowedHosts: string[];
  /**
   * Outbound exceptions for the HTTP tools: host names, IP addresses or CIDR ranges they may reach even though
   * they are loopback or private (a local service the user trusts).
   */
  httpAllow: string[];
  /** The web_search provider; unset means web_search answers "not configured". */
  webSearch: { provider: 'searxng'; baseUrl: string } | undefined;
  bodyLimitBytes: number;
  jsonMaxDepth: number;
  toolTimeoutMs: number;
  maxOutputBytes: number;
  approvalTimeoutS: number;
  /** `maxContext`: the largest context window (tokens) asked of Ollama, for machines with little memory (unset: the default). */
  llm: {
    baseUrl: string;
    model: string | undefined;
    api: LlmApi;
    maxContext?: number | undefined;
    /** Tools offered per turn by the LLM bridge and proxies, besides search_tools (unset: worked out from the window). */
    maxTools?: number | undefined;
  };
  /** The LLM server's API key (PINCER_LLM_API_KEY or config.json llm.api_key), sent as a Bearer token. */
  llmApiKey?: string | undefined;
  /** Body limit of the chat routes (POST /chat, /v1/chat/completions, /api/chat): long histories are big. */
  chatBodyLimitBytes: number;
  /**
   * The Ollama-compatible proxy without a token (apps that cannot send a header): off unless the owner turns it on;
   * such requests then act as `client`, whose tool set the owner picks (by default no tool above "safe").
   */
  ollamaProxy: { tokenless: boolean; client: string };
  /** Whether imported MCP servers may ask to use the configured LLM (sampling), each request approved by the owner. */
  mcpSampling: boolean;
  /** How many answers the result cache keeps (least recently used go first); 0 caches nothing. */
  cacheMaxEntries: number;
  /** Each plugin's own settings (`plugins.<name>` in config.json), handed to the plugin as `ctx.config`. */
  plugins: Record<string, Record<string, unknown>>;
  /**
   * MCP servers whose tools are imported (`mcp_servers.<name>` in config.json), each entry as written: it is checked
   * when that server starts, so a bad entry fails that server and not the gateway.
   */
  mcpServers: Record<string, unknown>;
  /** How long call history is kept: calls older than `retentionDays` (0: no age limit) and beyond the newest `maxRows`. */
  history: { retentionDays: number; maxRows: number | undefined };
  /** PINCER_DASHBOARD_DIR: serve a dashboard built elsewhere (`vite build --outDir …`) instead of the bundled one. */
  dashboardDir: string | undefined;
  /**
   * Where each value came from (a key that is absent came from the defaults). A value from the environment or a
   * flag wins over config.json, so the dashboard cannot change it: it says which variable or flag holds it instead.
   */
  sources: Partial<Record<ConfigKey, ConfigSource>>;
}

export const LLM_APIS = ['ollama', 'openai'] as const;
export type LlmApi = (typeof LLM_APIS)[number];

/** Where one configuration value came from. */
export type ConfigSource =
  | { kind: 'file' }
  /** `file` is set when the variable was read from the data directory's .env rather than the real environment. */
  | { kind: 'env'; name: string; file?: string }
  | { kind: 'flag'; name: string };

/** Flags from the command line; undefined means "not given". */
export interface ConfigFlags {
  host?: string;
  port?: string | number;
  dataDir?: string;
  noAuth?: boolean;
}

/** A bad configuration value: start-up stops with this one line. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    message: string,
    /** For a bad value: the key, and what is wrong with it, without where it came from (`must be …, got 3`). */
    readonly problem?: { key: string; text: string },
  ) {
    super(message);
  }
}

export interface LoadConfigOptions {
  flags?: ConfigFlags;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  home?: string;
}

/** A raw value and where it came from, as the parsers take it; `from` is how errors name the source. */
export type Source = { value: unknown; from: string; origin?: ConfigSource };

export const CONFIG_KEYS = [
  'host',
  'port',
  'roots',
  'allowed_hosts',
  'http_allow',
  'web_search',
  'body_limit_bytes',
  'json_max_depth',
  'tool_timeout_ms',
  'max_output_bytes',
  'approval_timeout_s',
  'llm',
  'cache',
  'history',
  'plugins',
  'mcp_servers',
  'chat_body_limit_bytes',
  'ollama_proxy',
  'mcp_sampling',
] as const;
/** The largest context window asked of Ollama unless `llm.max_context` says otherwise: more costs memory. */
export const DEFAULT_LLM_MAX_CONTEXT = 32_768;

export const LLM_KEYS = ['base_url', 'model', 'api', 'api_key', 'max_context', 'max_tools'] as const;

/** Every configuration key, with llm's keys spelt as in error messages (`llm.model`), plus PINCER_TOKEN's `token`. */
export type ConfigKey = Exclude<(typeof CONFIG_KEYS)[number], 'llm'> | `llm.${(typeof LLM_KEYS)[number]}` | 'token';

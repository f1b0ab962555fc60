import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isIPv6 } from 'node:net';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { defaultRootProblem, ownFolderProblem, ownFolders, type OwnFolder } from './own-folders.js';

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

/** A raw value and where it came from, as the parsers below take it; `from` is how errors name the source. */
export type Source = { value: unknown; from: string; origin?: ConfigSource };

const CONFIG_KEYS = [
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

const LLM_KEYS = ['base_url', 'model', 'api', 'api_key', 'max_context', 'max_tools'] as const;

/** Every configuration key, with llm's keys spelt as in error messages (`llm.model`), plus PINCER_TOKEN's `token`. */
export type ConfigKey = Exclude<(typeof CONFIG_KEYS)[number], 'llm'> | `llm.${(typeof LLM_KEYS)[number]}` | 'token';

/**
 * The parsers of the settings the owner may also change while the gateway runs (PATCH /settings): start-up and the
 * dashboard validate with the same functions, so a value one accepts the other accepts too.
 */
export const settingParsers = {
  /** `own`: Pincer's own folders (ownFolders), which no root may be or lie inside. */
  roots: (source: Source, cwd: string, own: readonly OwnFolder[]): string[] => parseRoots(source, cwd, own)!,
  approval_timeout_s: (source: Source): number => parseInteger(source, 'approval_timeout_s', 5, 86_400)!,
  'llm.base_url': (source: Source): string => parseHttpUrl(source, 'llm.base_url')!,
  'llm.model': (source: Source): string => parseNonEmptyString(source, 'llm.model'),
  'llm.api': (source: Source): LlmApi => parseEnum(source, 'llm.api', LLM_APIS)!,
  'llm.max_context': (source: Source): number => parseInteger(source, 'llm.max_context', 2048, 1_048_576)!,
  'llm.max_tools': (source: Source): number => parseInteger(source, 'llm.max_tools', 1, 1000)!,
  'history.retention_days': (source: Source): number => parseInteger(source, 'history.retention_days', 0, 36_500)!,
  'history.max_rows': (source: Source): number => parseInteger(source, 'history.max_rows', 100, 1_000_000_000)!,
  'ollama_proxy.tokenless': (source: Source): boolean => {
    if (typeof source.value !== 'boolean') fail('ollama_proxy.tokenless', source, 'must be true or false');
    return source.value;
  },
  mcp_sampling: (source: Source): boolean => {
    if (typeof source.value !== 'boolean') fail('mcp_sampling', source, 'must be true or false');
    return source.value;
  },
  'ollama_proxy.client': (source: Source): string => {
    if (typeof source.value !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(source.value)) {
      fail('ollama_proxy.client', source, 'must be a client name (letters, digits, ".", "_", "-")');
    }
    return source.value;
  },
};

/** `$PINCER_HOME`, else `~/.pincer`; a --data-dir flag wins over both. A relative path is taken from `cwd`. */
export function resolveDataDir(
  flags: ConfigFlags = {},
  env: NodeJS.ProcessEnv = process.env,
  home = homedir(),
  cwd = process.cwd(),
): string {
  const chosen = flags.dataDir ?? env.PINCER_HOME;
  return resolve(cwd, chosen && chosen.trim() !== '' ? chosen : join(home, '.pincer'));
}

export function loadConfig(options: LoadConfigOptions = {}): PincerConfig {
  const flags = options.flags ?? {};
  const cwd = options.cwd ?? process.cwd();
  const realEnv = options.env ?? process.env;
  const dataDir = resolveDataDir(flags, realEnv, options.home, cwd);
  // The real environment wins over the data directory's .env file.
  const dotEnvFile = join(dataDir, '.env');
  const dotEnv = readDotEnv(dotEnvFile);
  const env = { ...dotEnv, ...realEnv };
  const fromDotEnv = (name: string) => realEnv[name] === undefined && name in dotEnv;
  // An error names where a value came from, so the user edits the .env file rather than hunting their shell.
  const envSource = (name: string) => (fromDotEnv(name) ? `${name} in ${dotEnvFile}` : name);
  const envOrigin = (name: string): ConfigSource => (fromDotEnv(name) ? { kind: 'env', name, file: dotEnvFile } : { kind: 'env', name });
  const file = readConfigFile(join(dataDir, 'config.json'));
  const fileLlm = (file.llm ?? {}) as Record<string, unknown>;

  const sources: PincerConfig['sources'] = {};
  const pick = (flag: unknown, flagName: string, envName: string | undefined, fileValue: unknown, fileKey: ConfigKey): Source | undefined => {
    let source: Source | undefined;
    if (flag !== undefined) source = { value: flag, from: `--${flagName}`, origin: { kind: 'flag', name: `--${flagName}` } };
    else if (envName && env[envName] !== undefined && env[envName] !== '') {
      source = { value: env[envName], from: envSource(envName), origin: envOrigin(envName) };
    } else if (fileValue !== undefined) source = { value: fileValue, from: `config.json ${fileKey}`, origin: { kind: 'file' } };
    if (source?.origin) sources[fileKey] = source.origin;
    return source;
  };

  const host = parseHost(pick(flags.host, 'host', 'PINCER_HOST', file.host, 'host')) ?? '127.0.0.1';
  const port = parseInteger(pick(flags.port, 'port', 'PINCER_PORT', file.port, 'port'), 'port', 0, 65535) ?? 7800;
  const clientAuth = !flags.noAuth;
  if (!clientAuth && !isLoopbackHost(host)) {
    throw new ConfigError(`--no-auth is refused with host ${host}: it is only allowed on a loopback address (127.0.0.1, ::1, localhost).`);
  }

  const own = ownFolders(dataDir);
  const rootsSource = pick(undefined, 'roots', 'PINCER_ROOTS', file.roots, 'roots');
  // Unconfigured, the working folder is the root, unless sharing it would share everything or Pincer itself.
  const unshared = rootsSource ? undefined : defaultRootProblem(cwd, own, options.home);
  const roots = rootsSource ? settingParsers.roots(rootsSource, cwd, own) : unshared ? [] : [cwd];

  let llmBase = pick(undefined, '', 'PINCER_LLM_BASE_URL', fileLlm.base_url, 'llm.base_url');
  if (!llmBase && env.OLLAMA_HOST) {
    llmBase = { value: ollamaHostUrl(env.OLLAMA_HOST), from: envSource('OLLAMA_HOST'), origin: envOrigin('OLLAMA_HOST') };
    sources['llm.base_url'] = llmBase.origin!;
  }
  const llmApi = pick(undefined, '', 'PINCER_LLM_API', fileLlm.api, 'llm.api');
  const llmModel = pick(undefined, '', 'PINCER_LLM_MODEL', fileLlm.model, 'llm.model');
  const llmApiKey = pick(undefined, '', 'PINCER_LLM_API_KEY', fileLlm.api_key, 'llm.api_key');
  const llmMaxContext = pick(undefined, '', 'PINCER_LLM_MAX_CONTEXT', fileLlm.max_context, 'llm.max_context');
  const llmMaxTools = pick(undefined, '', 'PINCER_LLM_MAX_TOOLS', fileLlm.max_tools, 'llm.max_tools');
  const tokenSource = pick(undefined, '', 'PINCER_TOKEN', undefined, 'token');

  return {
    host,
    port,
    dataDir,
    clientAuth,
    token: tokenSource ? parseToken(tokenSource) : undefined,
    roots,
    ...(unshared && { rootsNotice: `the working folder ${cwd} ${unshared}, so it is not shared by default` }),
    allowedHosts: parseStringList(pick(undefined, '', undefined, file.allowed_hosts, 'allowed_hosts'), 'allowed_hosts') ?? [],
    httpAllow: parseStringList(pick(undefined, '', undefined, file.http_allow, 'http_allow'), 'http_allow') ?? [],
    webSearch: parseWebSearch(pick(undefined, '', undefined, file.web_search, 'web_search')),
    bodyLimitBytes:
      parseInteger(pick(undefined, '', undefined, file.body_limit_bytes, 'body_limit_bytes'), 'body_limit_bytes', 1024, 64 * 2 ** 20) ??
      2 ** 20,
    jsonMaxDepth: parseInteger(pick(undefined, '', undefined, file.json_max_depth, 'json_max_depth'), 'json_max_depth', 2, 1000) ?? 64,
    toolTimeoutMs:
      parseInteger(pick(undefined, '', undefined, file.tool_timeout_ms, 'tool_timeout_ms'), 'tool_timeout_ms', 100, 3_600_000) ?? 30_000,
    maxOutputBytes:
      parseInteger(pick(undefined, '', undefined, file.max_output_bytes, 'max_output_bytes'), 'max_output_bytes', 1024, 256 * 2 ** 20) ??
      2 ** 20,
    approvalTimeoutS: optional(pick(undefined, '', undefined, file.approval_timeout_s, 'approval_timeout_s'), settingParsers.approval_timeout_s) ?? 120,
    llm: {
      baseUrl: optional(llmBase, settingParsers['llm.base_url']) ?? 'http://127.0.0.1:11434',
      model: optional(llmModel, settingParsers['llm.model']),
      api: optional(llmApi, settingParsers['llm.api']) ?? 'ollama',
      maxContext: optional(llmMaxContext, settingParsers['llm.max_context']),
      maxTools: optional(llmMaxTools, settingParsers['llm.max_tools']),
    },
    llmApiKey: optional(llmApiKey, (source) => parseNonEmptyString(source, 'llm.api_key')),
    chatBodyLimitBytes:
      parseInteger(pick(undefined, '', undefined, file.chat_body_limit_bytes, 'chat_body_limit_bytes'), 'chat_body_limit_bytes', 1024, 512 * 2 ** 20) ??
      20 * 2 ** 20,
    ollamaProxy: parseOllamaProxy(pick(undefined, '', undefined, file.ollama_proxy, 'ollama_proxy')),
    mcpSampling: optional(pick(undefined, '', undefined, file.mcp_sampling, 'mcp_sampling'), settingParsers.mcp_sampling) ?? false,
    cacheMaxEntries: parseCache(pick(undefined, '', undefined, file.cache, 'cache')) ?? 1000,
    history: parseHistory(pick(undefined, '', undefined, file.history, 'history')),
    plugins: parsePlugins(pick(undefined, '', undefined, file.plugins, 'plugins')),
    mcpServers: parseMcpServers(pick(undefined, '', undefined, file.mcp_servers, 'mcp_servers')),
    dashboardDir: env.PINCER_DASHBOARD_DIR ? resolve(cwd, env.PINCER_DASHBOARD_DIR) : undefined,
    sources,
  };
}

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

function optional<T>(source: Source | undefined, parse: (source: Source) => T): T | undefined {
  return source === undefined ? undefined : parse(source);
}

function fail(key: string, source: Source, problem: string): never {
  const text = `${problem}, got ${JSON.stringify(source.value)}`;
  throw new ConfigError(`Invalid configuration: ${key} (from ${source.from}) ${text}.`, { key, text });
}

function readDotEnv(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const parsed = parseEnv(readFileSync(file, 'utf8'));
  return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => e[1] !== undefined));
}

function readConfigFile(file: string): Record<string, unknown> {
  const config = readConfigObject(file);
  // A misspelt key would otherwise be ignored silently and the user would wonder why a setting has no effect.
  for (const key of Object.keys(config)) {
    if (!(CONFIG_KEYS as readonly string[]).includes(key)) {
      throw new ConfigError(`Invalid configuration: unknown key "${key}" in config.json (known keys: ${CONFIG_KEYS.join(', ')}).`);
    }
  }
  if (config.llm !== undefined) {
    if (!config.llm || typeof config.llm !== 'object' || Array.isArray(config.llm)) {
      throw new ConfigError('Invalid configuration: llm in config.json must be an object.');
    }
    for (const key of Object.keys(config.llm)) {
      if (!(LLM_KEYS as readonly string[]).includes(key)) {
        throw new ConfigError(`Invalid configuration: unknown key "llm.${key}" in config.json (known keys: ${LLM_KEYS.join(', ')}).`);
      }
    }
  }
  return config;
}

/** config.json as the JSON object it holds ({} when there is none), with whatever keys it has. */
export function readConfigObject(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    // V8 quotes the offending text, newlines included; the error must stay one line.
    const reason = (error as Error).message.replace(/\s+/g, ' ');
    throw new ConfigError(`Invalid configuration: ${file} is not valid JSON (${reason}).`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(`Invalid configuration: ${file} must hold a JSON object.`);
  }
  return parsed as Record<string, unknown>;
}

function parseInteger(source: Source | undefined, key: string, min: number, max: number): number | undefined {
  if (!source) return undefined;
  const raw = source.value;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) fail(key, source, `must be a whole number from ${min} to ${max}`);
  return n;
}

function parseHost(source: Source | undefined): string | undefined {
  if (!source) return undefined;
  if (typeof source.value !== 'string' || !/^(\[[0-9a-fA-F:.]+\]|[0-9a-fA-F:.]+|[A-Za-z0-9.-]{1,253})$/.test(source.value)) {
    fail('host', source, 'must be an IP address or host name');
  }
  return source.value.replace(/^\[|\]$/g, '');
}

/** A list of folders; empty shares none. Security: none may be one of Pincer's own folders or lie inside one. */
function parseRoots(source: Source | undefined, cwd: string, own: readonly OwnFolder[]): string[] | undefined {
  if (!source) return undefined;
  const list = typeof source.value === 'string' ? source.value.split(delimiter).filter((p) => p !== '') : source.value;
  if (!Array.isArray(list) || !list.every((p) => typeof p === 'string' && p !== '')) {
    fail('roots', source, `must be a list of folders (in PINCER_ROOTS separated by "${delimiter}")`);
  }
  // An empty list in config.json shares no folder; a variable of delimiters alone is more likely a slip.
  if (typeof source.value === 'string' && list.length === 0) {
    fail('roots', source, `names no folder (separate folders with "${delimiter}"; to share none, leave it unset and set "roots": [] in config.json)`);
  }
  const roots = (list as string[]).map((p) => (isAbsolute(p) ? resolve(p) : resolve(cwd, p)));
  for (const root of roots) {
    const problem = ownFolderProblem(root, own);
    if (problem) {
      fail('roots', source, `may not hold "${root}" (it ${problem}, which no tool may change; share a folder of your own work instead)`);
    }
  }
  return roots;
}

function parseStringList(source: Source | undefined, key: string): string[] | undefined {
  if (!source) return undefined;
  if (!Array.isArray(source.value) || !source.value.every((v) => typeof v === 'string' && v !== '')) {
    fail(key, source, 'must be a list of non-empty strings');
  }
  return (source.value as string[]).map((v) => v.toLowerCase());
}

function parseWebSearch(source: Source | undefined): PincerConfig['webSearch'] {
  if (!source) return undefined;
  const value = source.value as { provider?: unknown; base_url?: unknown } | null;
  if (!value || typeof value !== 'object' || Array.isArray(value)) fail('web_search', source, 'must be an object like {"provider": "searxng", "base_url": "http://…"}');
  const unknown = Object.keys(value).filter((k) => k !== 'provider' && k !== 'base_url');
  if (unknown.length > 0) fail('web_search', source, `has unknown key "${unknown[0]}" (known: provider, base_url)`);
  if (value.provider !== 'searxng') fail('web_search.provider', { ...source, value: value.provider }, 'must be "searxng"');
  const baseUrl = parseHttpUrl({ value: value.base_url, from: source.from }, 'web_search.base_url')!;
  return { provider: 'searxng', baseUrl };
}

/** `cache`: `{"max_entries": N}`. */
function parseCache(source: Source | undefined): number | undefined {
  if (!source) return undefined;
  const value = objectWithKeys(source, 'cache', ['max_entries'], '{"max_entries": 1000}');
  return parseInteger(value.max_entries === undefined ? undefined : { ...source, value: value.max_entries }, 'cache.max_entries', 0, 1_000_000);
}

/** `history`: `{"retention_days": 90, "max_rows": 100000}`, both optional; retention_days 0 keeps calls of any age. */
function parseHistory(source: Source | undefined): PincerConfig['history'] {
  const history: PincerConfig['history'] = { retentionDays: 90, maxRows: undefined };
  if (!source) return history;
  const value = objectWithKeys(source, 'history', ['retention_days', 'max_rows'], '{"retention_days": 90, "max_rows": 100000}');
  const days = value.retention_days === undefined ? undefined : { ...source, value: value.retention_days };
  const rows = value.max_rows === undefined ? undefined : { ...source, value: value.max_rows };
  history.retentionDays = optional(days, settingParsers['history.retention_days']) ?? history.retentionDays;
  history.maxRows = optional(rows, settingParsers['history.max_rows']);
  return history;
}

/** `ollama_proxy`: `{"tokenless": true, "client": "ollama-app"}`, both optional. */
function parseOllamaProxy(source: Source | undefined): PincerConfig['ollamaProxy'] {
  const proxy = { tokenless: false, client: 'ollama-app' };
  if (!source) return proxy;
  const value = objectWithKeys(source, 'ollama_proxy', ['tokenless', 'client'], '{"tokenless": true, "client": "ollama-app"}');
  const tokenless = value.tokenless === undefined ? undefined : settingParsers['ollama_proxy.tokenless']({ ...source, value: value.tokenless });
  const client = value.client === undefined ? undefined : settingParsers['ollama_proxy.client']({ ...source, value: value.client });
  return { tokenless: tokenless ?? proxy.tokenless, client: client ?? proxy.client };
}

/** `plugins`: `{"<plugin name>": { …its settings… }}`; what each plugin accepts is the plugin's business. */
function parsePlugins(source: Source | undefined): PincerConfig['plugins'] {
  if (!source) return {};
  const value = source.value;
  if (!value || typeof value !== 'object' || Array.isArray(value)) fail('plugins', source, 'must be an object like {"investment": {"quote_base_url": "…"}}');
  const plugins: PincerConfig['plugins'] = {};
  for (const [name, settings] of Object.entries(value as Record<string, unknown>)) {
    if (!/^[a-z0-9][a-z0-9_-]{0,39}$/.test(name)) fail(`plugins.${name}`, source, 'names a plugin that cannot exist (plugin names are lower-case letters, digits, "-" and "_")');
    if (!settings || typeof settings !== 'object' || Array.isArray(settings)) fail(`plugins.${name}`, { ...source, value: settings }, 'must be an object of settings');
    plugins[name] = settings as Record<string, unknown>;
  }
  return plugins;
}

/** `mcp_servers`: `{"<server name>": {…}}`; each entry is checked when its server starts (a bad one fails only it). */
function parseMcpServers(source: Source | undefined): PincerConfig['mcpServers'] {
  if (!source) return {};
  const value = source.value;
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    fail('mcp_servers', source, 'must be an object like {"serena": {"command": "uvx", "args": ["serena", "start-mcp-server"]}}');
  }
  return { ...(value as Record<string, unknown>) };
}

function objectWithKeys(source: Source, key: string, keys: readonly string[], example: string): Record<string, unknown> {
  const value = source.value;
  if (!value || typeof value !== 'object' || Array.isArray(value)) fail(key, source, `must be an object like ${example}`);
  const unknown = Object.keys(value).filter((k) => !keys.includes(k));
  if (unknown.length > 0) fail(key, source, `has unknown key "${unknown[0]}" (known: ${keys.join(', ')})`);
  return value as Record<string, unknown>;
}

function parseHttpUrl(source: Source | undefined, key: string): string | undefined {
  if (!source) return undefined;
  let url: URL | undefined;
  try {
    url = typeof source.value === 'string' ? new URL(source.value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) fail(key, source, 'must be an http:// or https:// URL');
  return url.href.replace(/\/+$/, '');
}

function parseNonEmptyString(source: Source, key: string): string {
  if (typeof source.value !== 'string' || source.value.trim() === '') fail(key, source, 'must be a non-empty string');
  return source.value;
}

function parseEnum<T extends string>(source: Source | undefined, key: string, allowed: readonly T[]): T | undefined {
  if (!source) return undefined;
  if (!allowed.includes(source.value as T)) fail(key, source, `must be one of ${allowed.join(', ')}`);
  return source.value as T;
}

function parseToken(source: Source): string {
  // Short tokens can be guessed; the generated ones are 46 characters. The value itself is a secret: never echoed.
  if (typeof source.value !== 'string' || source.value.length < 16) {
    throw new ConfigError(`Invalid configuration: PINCER_TOKEN (from ${source.from}) must be at least 16 characters.`);
  }
  return source.value;
}

/**
 * OLLAMA_HOST as Ollama itself reads it: "host", "host:port", ":port", "[::1]:port" or a URL. A bare host gets port
 * 11434; a URL without a port gets its scheme's (http 80, https 443). 0.0.0.0 (a bind address) means this machine.
 * Anything unparsable is returned as given so that parseHttpUrl reports it, naming OLLAMA_HOST.
 */
function ollamaHostUrl(value: string): string {
  const raw = value.trim().replace(/^["']+|["']+$/g, '').trim();
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw);
  const hostPort = isIPv6(raw) ? `[${raw}]` : raw.startsWith(':') ? `127.0.0.1${raw}` : raw;
  let url: URL;
  try {
    url = new URL(hasScheme ? raw : `http://${hostPort}`);
  } catch {
    return raw;
  }
  const authority = hostPort.split('/')[0] ?? '';
  if (!hasScheme && !/:\d+$/.test(authority)) url.port = '11434';
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  else if (url.hostname === '[::]') url.hostname = '[::1]';
  return url.href;
}

/** The host part of a URL that reaches a gateway bound to `host` (a wildcard bind is reached on loopback). */
export function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

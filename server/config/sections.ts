import { delimiter, isAbsolute, resolve } from 'node:path';
import { DEFAULT_CLIENT, OWNER } from '../store/clients.js';
import { ownFolderProblem, type OwnFolder } from './own-folders.js';
import { LLM_APIS, type LlmApi, type PincerConfig, type Source } from './types.js';
import { fail, objectWithKeys, optional, parseEnum, parseHttpUrl, parseInteger, parseNonEmptyString } from './values.js';

/** Parsers of the configuration's sections: roots, web search, cache, history, the Ollama proxy, plugins, MCP servers. */

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
    // Security: callers with no token would act as a name that reads every client's calls and memories.
    if (source.value === DEFAULT_CLIENT || source.value === OWNER) {
      fail('ollama_proxy.client', source, "must be a named client (the default client and the owner read every client's calls and memories)");
    }
    return source.value;
  },
};

/** A list of folders; empty shares none. Security: none may be one of Pincer's own folders or lie inside one. */
export function parseRoots(source: Source | undefined, cwd: string, own: readonly OwnFolder[]): string[] | undefined {
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

export function parseWebSearch(source: Source | undefined): PincerConfig['webSearch'] {
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
export function parseCache(source: Source | undefined): number | undefined {
  if (!source) return undefined;
  const value = objectWithKeys(source, 'cache', ['max_entries'], '{"max_entries": 1000}');
  return parseInteger(value.max_entries === undefined ? undefined : { ...source, value: value.max_entries }, 'cache.max_entries', 0, 1_000_000);
}

/** `history`: `{"retention_days": 90, "max_rows": 100000}`, both optional; retention_days 0 keeps calls of any age. */
export function parseHistory(source: Source | undefined): PincerConfig['history'] {
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
export function parseOllamaProxy(source: Source | undefined): PincerConfig['ollamaProxy'] {
  const proxy = { tokenless: false, client: 'ollama-app' };
  if (!source) return proxy;
  const value = objectWithKeys(source, 'ollama_proxy', ['tokenless', 'client'], '{"tokenless": true, "client": "ollama-app"}');
  const tokenless = value.tokenless === undefined ? undefined : settingParsers['ollama_proxy.tokenless']({ ...source, value: value.tokenless });
  const client = value.client === undefined ? undefined : settingParsers['ollama_proxy.client']({ ...source, value: value.client });
  return { tokenless: tokenless ?? proxy.tokenless, client: client ?? proxy.client };
}

/** `plugins`: `{"<plugin name>": { …its settings… }}`; what each plugin accepts is the plugin's business. */
export function parsePlugins(source: Source | undefined): PincerConfig['plugins'] {
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
export function parseMcpServers(source: Source | undefined): PincerConfig['mcpServers'] {
  if (!source) return {};
  const value = source.value;
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    fail('mcp_servers', source, 'must be an object like {"serena": {"command": "uvx", "args": ["serena", "start-mcp-server"]}}');
  }
  return { ...(value as Record<string, unknown>) };
}

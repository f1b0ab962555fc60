import { resolve } from 'node:path';
import { isLoopbackHost, ollamaHostUrl } from './hosts.js';
import { readLayers, type Layers } from './layers.js';
import { defaultRootProblem, ownFolders } from './own-folders.js';
import { parseCache, parseHistory, parseMcpServers, parseOllamaProxy, parsePlugins, parseWebSearch, settingParsers } from './sections.js';
import { ConfigError, type LoadConfigOptions, type PincerConfig, type Source } from './types.js';
import { optional, parseHost, parseInteger, parseNonEmptyString, parseStringList, parseToken } from './values.js';

// The configuration's public face: importers take everything from here, whichever file holds it.
export { isLoopbackHost, urlHost } from './hosts.js';
export { readConfigObject, resolveDataDir } from './layers.js';
export { settingParsers } from './sections.js';
export {
  ConfigError,
  DEFAULT_LLM_MAX_CONTEXT,
  LLM_APIS,
  type ConfigFlags,
  type ConfigKey,
  type ConfigSource,
  type LlmApi,
  type LoadConfigOptions,
  type PincerConfig,
  type Source,
} from './types.js';

/** The gateway's configuration: each value from its flag, else its variable, else config.json, else its default. */
export function loadConfig(options: LoadConfigOptions = {}): PincerConfig {
  const flags = options.flags ?? {};
  const cwd = options.cwd ?? process.cwd();
  const layers = readLayers(flags, options.env ?? process.env, options.home, cwd);
  const { pick, file } = layers;
  const host = parseHost(pick(flags.host, 'host', 'PINCER_HOST', file.host, 'host')) ?? '127.0.0.1';
  const port = parseInteger(pick(flags.port, 'port', 'PINCER_PORT', file.port, 'port'), 'port', 0, 65535) ?? 7800;
  const clientAuth = !flags.noAuth;
  if (!clientAuth && !isLoopbackHost(host)) {
    throw new ConfigError(`--no-auth is refused with host ${host}: it is only allowed on a loopback address (127.0.0.1, ::1, localhost).`);
  }
  const roots = sharedRoots(layers, cwd, options.home);
  const llm = llmSources(layers);
  const tokenSource = pick(undefined, '', 'PINCER_TOKEN', undefined, 'token');
  // Parsed in this order: of two bad values, the one earlier here is reported.
  return {
    host,
    port,
    dataDir: layers.dataDir,
    clientAuth,
    token: tokenSource ? parseToken(tokenSource) : undefined,
    ...roots,
    ...gatewayLimits(layers),
    llm: {
      baseUrl: optional(llm.baseUrl, settingParsers['llm.base_url']) ?? 'http://127.0.0.1:11434',
      model: optional(llm.model, settingParsers['llm.model']),
      api: optional(llm.api, settingParsers['llm.api']) ?? 'ollama',
      maxContext: optional(llm.maxContext, settingParsers['llm.max_context']),
      maxTools: optional(llm.maxTools, settingParsers['llm.max_tools']),
    },
    llmApiKey: optional(llm.apiKey, (source) => parseNonEmptyString(source, 'llm.api_key')),
    ...featureSettings(layers),
    dashboardDir: layers.env.PINCER_DASHBOARD_DIR ? resolve(cwd, layers.env.PINCER_DASHBOARD_DIR) : undefined,
    sources: layers.sources,
  };
}

/** The folders file tools may touch, and why none is shared when the working folder was not taken. */
function sharedRoots(layers: Layers, cwd: string, home: string | undefined): Pick<PincerConfig, 'roots' | 'rootsNotice'> {
  const own = ownFolders(layers.dataDir);
  const rootsSource = layers.pick(undefined, 'roots', 'PINCER_ROOTS', layers.file.roots, 'roots');
  // Unconfigured, the working folder is the root, unless sharing it would share everything or Pincer itself.
  const unshared = rootsSource ? undefined : defaultRootProblem(cwd, own, home);
  const roots = rootsSource ? settingParsers.roots(rootsSource, cwd, own) : unshared ? [] : [cwd];
  return { roots, ...(unshared && { rootsNotice: `the working folder ${cwd} ${unshared}, so it is not shared by default` }) };
}

/** The LLM's values as given, not yet parsed; OLLAMA_HOST stands in for an unset base URL, as Ollama's own tools read it. */
function llmSources(layers: Layers): Record<'baseUrl' | 'api' | 'model' | 'apiKey' | 'maxContext' | 'maxTools', Source | undefined> {
  const { pick, fileLlm, env } = layers;
  let baseUrl = pick(undefined, '', 'PINCER_LLM_BASE_URL', fileLlm.base_url, 'llm.base_url');
  if (!baseUrl && env.OLLAMA_HOST) {
    baseUrl = layers.fromEnv('OLLAMA_HOST', ollamaHostUrl(env.OLLAMA_HOST));
    layers.sources['llm.base_url'] = baseUrl.origin!;
  }
  return {
    baseUrl,
    api: pick(undefined, '', 'PINCER_LLM_API', fileLlm.api, 'llm.api'),
    model: pick(undefined, '', 'PINCER_LLM_MODEL', fileLlm.model, 'llm.model'),
    apiKey: pick(undefined, '', 'PINCER_LLM_API_KEY', fileLlm.api_key, 'llm.api_key'),
    maxContext: pick(undefined, '', 'PINCER_LLM_MAX_CONTEXT', fileLlm.max_context, 'llm.max_context'),
    maxTools: pick(undefined, '', 'PINCER_LLM_MAX_TOOLS', fileLlm.max_tools, 'llm.max_tools'),
  };
}

/** Who may reach the gateway, what the HTTP tools may reach, and how much a request or a tool may take. */
function gatewayLimits({ fromFile }: Layers) {
  return {
    allowedHosts: parseStringList(fromFile('allowed_hosts'), 'allowed_hosts') ?? [],
    httpAllow: parseStringList(fromFile('http_allow'), 'http_allow') ?? [],
    webSearch: parseWebSearch(fromFile('web_search')),
    bodyLimitBytes: parseInteger(fromFile('body_limit_bytes'), 'body_limit_bytes', 1024, 64 * 2 ** 20) ?? 2 ** 20,
    jsonMaxDepth: parseInteger(fromFile('json_max_depth'), 'json_max_depth', 2, 1000) ?? 64,
    toolTimeoutMs: parseInteger(fromFile('tool_timeout_ms'), 'tool_timeout_ms', 100, 3_600_000) ?? 30_000,
    maxOutputBytes: parseInteger(fromFile('max_output_bytes'), 'max_output_bytes', 1024, 256 * 2 ** 20) ?? 2 ** 20,
    approvalTimeoutS: optional(fromFile('approval_timeout_s'), settingParsers.approval_timeout_s) ?? 120,
  } satisfies Partial<PincerConfig>;
}

/** The chat routes, the Ollama proxy, sampling, the result cache, call history, plugins and imported MCP servers. */
function featureSettings({ fromFile }: Layers) {
  return {
    chatBodyLimitBytes: parseInteger(fromFile('chat_body_limit_bytes'), 'chat_body_limit_bytes', 1024, 512 * 2 ** 20) ?? 20 * 2 ** 20,
    ollamaProxy: parseOllamaProxy(fromFile('ollama_proxy')),
    mcpSampling: optional(fromFile('mcp_sampling'), settingParsers.mcp_sampling) ?? false,
    cacheMaxEntries: parseCache(fromFile('cache')) ?? 1000,
    history: parseHistory(fromFile('history')),
    plugins: parsePlugins(fromFile('plugins')),
    mcpServers: parseMcpServers(fromFile('mcp_servers')),
  } satisfies Partial<PincerConfig>;
}

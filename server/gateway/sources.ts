/** The outside sources of tools (plugins, imported MCP servers), built and started as one part of the gateway. */
import { join } from 'node:path';
import { GatewaySettings } from '../config/settings.js';
import { EventBus } from '../events/bus.js';
import { ApprovalBroker } from '../approvals/broker.js';
import { ToolRegistry } from '../tools/registry.js';
import { NetGuard } from '../security/net.js';
import { PluginManager } from '../plugins/manager.js';
import { McpServerManager } from '../mcp/client/servers.js';
import { McpPins } from '../mcp/client/pins.js';
import { PackageVersions } from '../mcp/client/package-version.js';
import { McpSource } from '../mcp/client/source.js';
import { PluginSource } from '../plugins/source.js';
import { SourceRegistry } from '../tools/sources/registry.js';
import { VERSION } from '../version.js';
import { Redactor } from '../util/redact.js';
import type { ModelAnswer, ModelPrompt } from '../llm/sampling.js';
import type { GatewayOptions } from './options.js';
import type { DataFolder, Endpoint } from './parts.js';

/**
 * The outside sources of tools: bundled and user plugins, and imported MCP servers. Both start processes: a gateway
 * started for one CLI command (loadPlugins false) starts them only when asked to.
 */
export function startToolSources(
  options: GatewayOptions,
  { store, processes }: DataFolder,
  registry: ToolRegistry,
  events: EventBus,
  settings: GatewaySettings,
  redactor: Redactor,
  endpoint: Endpoint,
  approvals: ApprovalBroker,
  log: (line: string) => void,
  sample: (prompt: ModelPrompt, signal: AbortSignal) => Promise<ModelAnswer>,
) {
  const { config } = options;
  const pluginNet = new NetGuard({ allow: config.httpAllow, selfPort: () => endpoint.port });
  const plugins = new PluginManager({
    dataDir: config.dataDir,
    bundledDir: options.bundledPluginsDir,
    ...(options.bundledPluginsRecord !== undefined && { bundledRecord: options.bundledPluginsRecord }),
    ...(options.pluginDebounceMs !== undefined && { debounceMs: options.pluginDebounceMs }),
    registry,
    store,
    runner: processes,
    settings: (name) => config.plugins[name] ?? {},
    fetch: async (url, init) => {
      const response = await pluginNet.fetch(url, {
        method: init.method ?? 'GET',
        headers: init.headers ?? {},
        ...(init.body !== undefined && { body: init.body }),
        signal: init.signal,
        maxBytes: init.maxBytes,
        timeoutMs: init.timeoutMs,
        checkHop: init.checkHop,
      });
      const headers = Object.fromEntries(Object.entries(response.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')]));
      return { status: response.status, url: response.finalUrl, headers, body: response.body };
    },
    log,
    events,
  });
  const mcpServers = new McpServerManager({
    entries: config.mcpServers,
    registry,
    runner: processes,
    pins: new McpPins(store.acceptances, config.dataDir, log),
    packages: new PackageVersions(store.acceptances, config.dataDir, log),
    version: VERSION,
    log,
    dataDir: config.dataDir,
    maxOutputBytes: config.maxOutputBytes,
    events,
    // Every viewer hears of it: an error that quotes a URL with its token is redacted.
    redact: (text) => redactor.text(text),
    ...(options.mcpBackoffMs && { backoffMs: options.mcpBackoffMs }),
    owner: {
      approvals,
      samplingAllowed: () => config.mcpSampling,
      roots: () => config.roots,
      sample,
    },
  });
  settings.onChange(({ changed }) => {
    if (changed.includes('roots')) mcpServers.rootsChanged();
    if (changed.includes('mcp_sampling')) mcpServers.samplingChanged();
  });
  // One lifecycle for every kind of source. Like plugins, MCP servers start processes: a gateway started for one CLI
  // command starts none of them unless asked to.
  const all = new SourceRegistry([new PluginSource(plugins), new McpSource(mcpServers)], log);
  if (options.loadPlugins !== false) void all.start();
  return { plugins, mcpServers, all };
}
export type ToolSources = ReturnType<typeof startToolSources>;

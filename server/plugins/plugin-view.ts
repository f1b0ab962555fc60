import type { PluginView } from '../contract/sources.js';
import { flagDefinition } from '../tools/poisoning.js';
import type { FoundPlugin } from './discover.js';
import type { PluginSandboxView } from './launch.js';
import type { ManifestTool, PluginManifest } from './manifest.js';
import type { DeclaredTool } from './protocol.js';
import { pluginToolRisk } from './tools.js';

export type { IgnoredPluginFolder, PluginStatus, PluginView } from '../contract/sources.js';

/** A plugin's view before anything of it is read: loading, nothing known yet. */
export function loadingView(found: FoundPlugin, sandbox: PluginSandboxView): PluginView {
  return {
    name: found.name,
    origin: found.origin,
    dir: found.dir,
    status: 'loading',
    reason: null,
    version: null,
    description: null,
    entry: null,
    hash: null,
    permissions: null,
    tools: [],
    files: [],
    file_count: 0,
    file_bytes: 0,
    changes: null,
    accepted_at: null,
    restarts: 0,
    log: [],
    sandbox,
  };
}

/** One tool as the view shows it: its risk as Pincer runs it and why, and what in it reads like orders to the model. */
export function pluginToolView(tool: DeclaredTool | ManifestTool, manifest: PluginManifest, registered: boolean): PluginView['tools'][number] {
  const { risk, why } = pluginToolRisk(tool, manifest);
  // Security: what the owner accepts includes what the tool tells the model; orders hidden there are named.
  const flags = flagDefinition({ description: tool.description, inputSchema: 'parameters' in tool ? tool.parameters : undefined });
  return { name: tool.name, description: tool.description ?? '', risk, declared_risk: tool.risk, raised_because: why, registered, flags };
}

import { ToolError } from '../errors.js';
import { RISKS, type Risk } from '../tools/types.js';
import { flagDefinition } from '../tools/poisoning.js';
import { effectiveRisk, type RiskFloor } from '../tools/sources/risk.js';
import { RESERVED_TOOL_NAMES, TOOL_NAME_PATTERN } from '../tools/registry.js';
import type { AnyTool, ToolAnnotations } from '../tools/types.js';
import type { PluginHost } from './host.js';
import { PluginCallError } from './channel.js';
import type { ManifestTool, PluginManifest } from './manifest.js';
import type { DeclaredTool } from './protocol.js';

const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_TIMEOUT_MS = 10 * 60_000;
const ANNOTATION_KEYS = ['title', 'readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/**
 * The risk Pincer gives a plugin's tool: the one rule for every source (effectiveRisk) from what the plugin declared,
 * with the floors its manifest sets: any tool of a plugin that reads or writes beyond its own folder or may start
 * processes or load native code asks. Reaching the hosts its manifest names does not by itself: the owner accepted
 * those hosts with the plugin.
 */
export function pluginToolRisk(tool: Pick<DeclaredTool, 'risk' | 'annotations'>, manifest: PluginManifest): { risk: Risk; why: string[] } {
  const p = manifest.permissions;
  const floors: RiskFloor[] = [
    ...(p.read.length > 0 || p.write.length > 0 ? [{ risk: 'sensitive' as const, why: 'its plugin reaches files beyond its own folder' }] : []),
    ...(p.childProcess || p.addons ? [{ risk: 'sensitive' as const, why: 'its plugin may start processes or load native code' }] : []),
  ];
  return effectiveRisk(tool.risk, tool.annotations, floors);
}

/** Why a declared tool cannot be registered, or undefined. */
export function declaredToolProblem(tool: DeclaredTool): string | undefined {
  if (typeof tool.name !== 'string' || !TOOL_NAME_PATTERN.test(tool.name)) return `tool name ${JSON.stringify(tool.name)} must be 1–64 letters, digits, "_" or "-"`;
  if (RESERVED_TOOL_NAMES.has(tool.name)) return `tool name "${tool.name}" is reserved`;
  if (typeof tool.description !== 'string' || tool.description.trim() === '') return `tool "${tool.name}" needs a description`;
  if (!RISKS.includes(tool.risk)) return `tool "${tool.name}" must declare its risk: safe, sensitive or dangerous`;
  if (tool.timeoutMs !== undefined && !(Number.isInteger(tool.timeoutMs) && tool.timeoutMs >= 100 && tool.timeoutMs <= MAX_TIMEOUT_MS)) {
    return `tool "${tool.name}": timeoutMs must be a whole number from 100 to ${MAX_TIMEOUT_MS}`;
  }
  // Security: the owner accepts a plugin before any of its code runs, so what its code tells the model (the tool's
  // description and its parameters' descriptions) was never before them. Orders to the model hidden there would reach
  // every client's model unseen: such a tool is refused, and the plugin with it, as a tool its manifest does not list.
  const flags = flagDefinition({ description: tool.description, inputSchema: tool.parameters });
  if (flags.length > 0) {
    const found = flags.map((flag) => `${flag.where}: ${flag.reason} ("${flag.phrase}")`).join('; ');
    return `tool "${tool.name}": what its code tells the model reads like orders to it — ${found}. The owner accepted the plugin without seeing this text, so none of its tools were turned on; say what the tool does, not what the model must do`;
  }
  return undefined;
}

/**
 * Why the tools a plugin's code defines are not those its manifest declared (what the owner accepted), naming each
 * difference; undefined when they match. A tool's code may say it is riskier than declared, never less risky.
 */
export function toolMismatch(declared: readonly ManifestTool[], code: readonly DeclaredTool[]): string | undefined {
  const byName = new Map(code.map((t) => [t.name, t]));
  const problems: string[] = [];
  for (const tool of declared) {
    const defined = byName.get(tool.name);
    if (!defined) problems.push(`plugin.json declares "${tool.name}", which its code does not define`);
    else if (RISKS.indexOf(defined.risk) < RISKS.indexOf(tool.risk)) {
      problems.push(`plugin.json declares "${tool.name}" ${tool.risk}, but its code says ${defined.risk}`);
    }
  }
  const names = new Set(declared.map((t) => t.name));
  for (const tool of code) if (!names.has(tool.name)) problems.push(`its code defines "${tool.name}", which plugin.json does not declare`);
  if (problems.length === 0) return undefined;
  return `its tools are not those its plugin.json declares (what the owner accepted): ${problems.join('; ')}. None of its tools were turned on; make the code and plugin.json's "tools" agree.`;
}

/** The registry's tool for a plugin's declared tool: it runs in the plugin's process, through the executor. */
export function pluginTool(tool: DeclaredTool, manifest: PluginManifest, host: () => PluginHost | undefined): AnyTool {
  const annotations: ToolAnnotations = {};
  for (const key of ANNOTATION_KEYS) if (tool.annotations?.[key] !== undefined) (annotations as Record<string, unknown>)[key] = tool.annotations[key];
  const cacheable = annotations.readOnlyHint === true && annotations.idempotentHint === true && annotations.destructiveHint !== true;
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    category: typeof tool.category === 'string' && tool.category ? tool.category : manifest.name,
    risk: pluginToolRisk(tool, manifest).risk,
    annotations,
    timeoutMs: tool.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(cacheable && tool.cache && Number.isInteger(tool.cache.ttl_s) && tool.cache.ttl_s > 0 && { cache: { ttl_s: Math.min(tool.cache.ttl_s, 86_400) } }),
    handler: async (args, ctx) => {
      const running = host();
      if (!running) throw new ToolError('PLUGIN_UNAVAILABLE', `The plugin "${manifest.name}" is not running.`);
      try {
        return await running.call(tool.name, args, { callId: ctx.callId, client: ctx.client, signal: ctx.signal });
      } catch (error) {
        if (error instanceof PluginCallError) throw new ToolError(error.errorName, error.message, { plugin: manifest.name });
        throw error;
      }
    },
  };
}

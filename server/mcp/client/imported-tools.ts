import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { RISKS, type AnyTool, type ObjectSchema, type Risk, type ToolAnnotations, type ToolIcon } from '../../tools/types.js';
import { flagDefinition, type DefinitionFlag } from '../../tools/poisoning.js';
import { effectiveRisk } from '../../tools/sources/risk.js';
import { isPlainObject } from '../../util/json.js';
import type { McpServerEntry } from './entry.js';
import { importedNames } from './naming.js';
import { definitionHash, SERVER_ROW, type McpPins, type ToolDefinitionText } from './pins.js';
import type { PackageVersions, PackageView } from './package-version.js';
import type { ImportedToolStatus, ImportedToolView } from './server-view.js';

/** One tool as the server last listed it, with what Pincer made of it. */
export interface RemoteTool {
  tool: Tool;
  importedAs: string;
  definition: ToolDefinitionText;
  hash: string;
  flags: DefinitionFlag[];
  problem: string | null;
}

export interface ImportedToolsOptions {
  registry: ToolRegistry;
  pins: McpPins;
  packages: PackageVersions;
  /** The server's entry (its prefix and time limit). */
  entry: () => McpServerEntry;
  /** The package its command ran at the last start (null when none is known). */
  ranPackage: () => PackageView | null;
  /** Builds the registry's handler of a tool: a call to the server. */
  callsTo: (remote: RemoteTool) => AnyTool['handler'];
}

/**
 * One server's tools as Pincer imports them: pinned to what the owner accepted, held back (TOOL_HELD) while changed
 * or poisoned-looking, registered as `<server>__<tool>` with `source: "mcp:<server>"` otherwise.
 */
export class ImportedTools {
  #remote = new Map<string, RemoteTool>();
  /** What this server has in the registry, by name: the definition registered and the definition hash and risk it came from. */
  readonly #registered = new Map<string, { definition: AnyTool; key: string }>();

  constructor(
    private readonly server: string,
    private readonly options: ImportedToolsOptions,
  ) {}

  get #source(): string {
    return `mcp:${this.server}`;
  }

  /** Takes a full listing of the server's tools (a partial one is never passed: none of it would be imported). */
  read(tools: Tool[]): void {
    const names = importedNames(this.server, tools.map((t) => t.name), this.options.entry().prefix);
    this.#remote = new Map(
      tools.map((tool) => {
        const definition: ToolDefinitionText = {
          ...(tool.title !== undefined && { title: tool.title }),
          description: tool.description ?? '',
          inputSchema: tool.inputSchema,
          // Security: what a tool says of its answers reaches the model too (MCP tools/list); unpinned, a server
          // accepted with a plain outputSchema could later put orders to the model in it and stay active.
          ...(tool.outputSchema !== undefined && { outputSchema: tool.outputSchema }),
          ...(tool.annotations !== undefined && { annotations: tool.annotations }),
        };
        const problem =
          tool.name === SERVER_ROW ? 'it has no name' : tool.inputSchema?.type !== 'object' ? 'its inputSchema is not of type "object"' : null;
        const flags = flagDefinition(definition);
        return [tool.name, { tool, importedAs: names.get(tool.name)!, definition, hash: definitionHash(definition), flags, problem }];
      }),
    );
  }

  views(): ImportedToolView[] {
    return [...this.#remote.values()].map((r) => this.#toolView(r));
  }

  /** The names among `names` that this server does not have (as it last listed its tools). */
  unknown(names: string[] | undefined): string[] {
    return (names ?? []).filter((name) => !this.#remote.has(name));
  }

  /** Without `risk`, a tool keeps the rating the owner gave it before (sensitive if never rated): never lowered. */
  accept(names: string[] | undefined, risk: Risk | undefined): void {
    for (const remote of this.#remote.values()) {
      if (remote.problem) continue;
      const pinned = this.options.pins.get(this.server, remote.tool.name);
      // Accepting "everything waiting" leaves alone what the owner turned off: that takes naming the tool.
      const waiting = !pinned || (!pinned.disabled && (pinned.hash !== remote.hash || this.#versionChange(remote) !== null));
      if (names ? !names.includes(remote.tool.name) : !waiting) continue;
      this.options.pins.accept(this.server, remote.tool.name, remote.definition, risk ?? this.#rated(remote));
    }
    const pkg = this.options.ranPackage();
    const ran = pkg && !pkg.pinned ? pkg.version : null;
    if (ran) this.options.packages.accept(this.server, ran, names);
    this.apply();
  }

  disable(names: string[] | undefined): void {
    for (const remote of this.#remote.values()) {
      if ((names && !names.includes(remote.tool.name)) || remote.tool.name === SERVER_ROW) continue;
      this.options.pins.disable(this.server, remote.tool.name, remote.definition);
    }
    this.apply();
  }

  /** Registers the tools that may run (accepted as they are, or new and unflagged) and takes the others away. */
  apply(): void {
    const registry = this.options.registry;
    const wanted = new Map<string, RemoteTool>();
    const held = new Map<string, string>();
    for (const remote of this.#remote.values()) {
      const status = this.#toolStatus(remote);
      if (status === 'active') wanted.set(remote.importedAs, remote);
      if (status === 'changed' || status === 'flagged') held.set(remote.importedAs, heldMessage(this.server, remote.tool.name, remote.importedAs, this.#heldWhy(remote, status)));
    }
    registry.setHeld(this.#source, held);
    for (const [name, registered] of [...this.#registered]) {
      const existing = registry.get(name);
      const keep = wanted.get(name);
      if (existing && keep && existing.definition === registered.definition && registered.key === `${keep.hash}:${this.#risk(keep)}`) {
        wanted.delete(name);
        continue;
      }
      if (existing?.source === this.#source) registry.unregister(name);
      this.#registered.delete(name);
    }
    for (const [name, remote] of wanted) {
      const definition = this.#registryTool(remote);
      try {
        registry.register(definition, this.#source);
        this.#registered.set(name, { definition, key: `${remote.hash}:${this.#risk(remote)}` });
      } catch (error) {
        remote.problem = (error as Error).message;
      }
    }
  }

  /** Takes every tool of this server out of the registry (and out of the held ones). */
  unregisterAll(): void {
    for (const name of this.#registered.keys()) {
      if (this.options.registry.get(name)?.source === this.#source) this.options.registry.unregister(name);
    }
    this.#registered.clear();
    this.options.registry.setHeld(this.#source, new Map());
  }

  #toolStatus(remote: RemoteTool): ImportedToolStatus {
    if (remote.problem) return 'invalid';
    const pinned = this.options.pins.get(this.server, remote.tool.name);
    if (pinned?.disabled) return 'disabled';
    if (this.#versionChange(remote)) return 'changed';
    if (pinned) return pinned.hash === remote.hash ? 'active' : 'changed';
    return remote.flags.length > 0 ? 'flagged' : 'active';
  }

  /**
   * The owner's rating (until they rate it: sensitive, so it asks), raised — never lowered — by the server's hints
   * (effectiveRisk, the rule every source follows). A changed tool shows the rating it had: accepting the change
   * keeps it unless the owner picks another.
   */
  #risk(remote: RemoteTool): Risk {
    return effectiveRisk(this.#rated(remote), remote.tool.annotations).risk;
  }

  #rated(remote: RemoteTool): Risk {
    const pinned = this.options.pins.get(this.server, remote.tool.name);
    return pinned && RISKS.includes(pinned.risk) ? pinned.risk : 'sensitive';
  }

  #toolView(remote: RemoteTool): ImportedToolView {
    const pinned = this.options.pins.get(this.server, remote.tool.name);
    const status = this.#toolStatus(remote);
    const version = status === 'changed' ? this.#versionChange(remote) : null;
    const change =
      status === 'changed'
        ? [
            ...(version ? [{ field: 'version', ...version }] : []),
            ...(pinned
              ? (['title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const)
                  .filter((f) => JSON.stringify(pinned.definition[f] ?? null) !== JSON.stringify(remote.definition[f] ?? null))
                  .map((field) => ({ field, before: pinned.definition[field] ?? null, after: remote.definition[field] ?? null }))
              : []),
          ]
        : null;
    return {
      name: remote.tool.name,
      imported_as: remote.importedAs,
      status,
      risk: this.#risk(remote),
      accepted: pinned !== undefined && !pinned.disabled && pinned.hash === remote.hash && status !== 'changed',
      description: remote.definition.description,
      flags: remote.flags,
      change,
      problem: remote.problem,
    };
  }

  /** The package version that ran, when it is not the one the owner accepted this tool with. */
  #versionChange(remote: RemoteTool): { before: string; after: string } | null {
    const pkg = this.options.ranPackage();
    const ran = pkg && !pkg.pinned ? pkg.version : null;
    if (!ran) return null;
    const accepted = this.options.packages.accepted(this.server, remote.tool.name);
    return accepted !== undefined && accepted !== ran ? { before: accepted, after: ran } : null;
  }

  #heldWhy(remote: RemoteTool, status: 'changed' | 'flagged'): string {
    if (status === 'flagged') return 'its description looks like it gives the model instructions';
    const version = this.#versionChange(remote);
    if (version) return `the package it runs, ${this.options.ranPackage()!.name}, is now version ${version.after}, not ${version.before} as when the owner accepted it`;
    return 'its definition changed since the owner accepted it';
  }

  #registryTool(remote: RemoteTool): AnyTool {
    const tool = remote.tool;
    const hints: ToolAnnotations = {};
    for (const key of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
      if (typeof tool.annotations?.[key] === 'boolean') hints[key] = tool.annotations[key];
    }
    const title = tool.title ?? tool.annotations?.title;
    const icons = safeIcons(tool.icons);
    return {
      name: remote.importedAs,
      description: remote.definition.description.trim() || `${tool.name} (from the MCP server "${this.server}")`,
      parameters: tool.inputSchema as ObjectSchema,
      category: this.#source,
      risk: this.#risk(remote),
      annotations: { ...(title && { title }), ...hints },
      ...(tool.outputSchema?.type === 'object' && { outputSchema: tool.outputSchema as ObjectSchema }),
      ...(icons.length > 0 && { icons }),
      timeoutMs: this.options.entry().timeoutMs,
      handler: this.options.callsTo(remote),
    };
  }
}

/** What a call to a held-back imported tool answers (TOOL_HELD): why, and what releases it. */
function heldMessage(server: string, tool: string, importedAs: string, why: string): string {
  return (
    `The tool "${importedAs}" of the MCP server "${server}" is held back (${why}): it stays off until the owner reviews and accepts it ` +
    `(pincer mcp-servers accept ${server} --tool ${tool}, or Accept in the dashboard's MCP servers view). Tell the user; calling it again before then fails the same way.`
  );
}

/**
 * Icons as a server declares them, kept only with an http(s) or data:image source.
 * Security: a client that shows icons would otherwise load `file:` or `javascript:` URLs a server chose.
 */
function safeIcons(icons: unknown): ToolIcon[] {
  if (!Array.isArray(icons)) return [];
  return icons.filter((icon): icon is ToolIcon => {
    if (!isPlainObject(icon) || typeof icon.src !== 'string') return false;
    return /^https?:\/\//i.test(icon.src) || /^data:image\/[a-z0-9.+-]+[;,]/i.test(icon.src);
  });
}

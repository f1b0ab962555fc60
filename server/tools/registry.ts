import { EventEmitter } from 'node:events';
import { PatternRefusal } from './linear-regexp.js';
import { SchemaRefusal } from './schema-dialects.js';
import { compileValidator, closeSchema, type ArgumentValidator } from './validator.js';
import { RISKS, type AnyTool, type ObjectSchema } from './types.js';

/** OpenAI's function-name rule; Anthropic and MCP accept it too. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** Names that would collide with the gateway's own routes (`/tools/openai`, `/tools/anthropic`, `/tools/search`, `/mcp`). */
export const RESERVED_TOOL_NAMES = new Set(['openai', 'anthropic', 'mcp', 'search']);

const MAX_TIMER_MS = 2 ** 31 - 1;

export class RegistryError extends Error {
  override readonly name = 'RegistryError';
}

export interface RegisteredTool {
  readonly definition: AnyTool;
  /** `builtin`, `plugin:<name>` or `mcp:<server>`. */
  readonly source: string;
  /** The schema as enforced and as published (unknown properties closed off). */
  readonly parameters: ObjectSchema;
  readonly validate: ArgumentValidator;
}

export interface RegistryEvents {
  changed: [{ reason: 'registered' | 'unregistered' | 'toggled'; names: string[] }];
}

/** Every tool the gateway knows, with its enabled state. Pure in-memory; persistence is wired by the gateway. */
export class ToolRegistry extends EventEmitter<RegistryEvents> {
  readonly #tools = new Map<string, RegisteredTool>();
  readonly #disabled = new Set<string>();
  /** By source: names held back until the owner accepts them, each with what tells the caller why. */
  readonly #held = new Map<string, ReadonlyMap<string, string>>();

  register(definition: AnyTool, source = 'builtin'): RegisteredTool {
    const problem = definitionProblem(definition);
    if (problem) throw new RegistryError(`Cannot register tool "${String(definition?.name)}" from ${source}: ${problem}`);
    const existing = this.#tools.get(definition.name);
    if (existing) {
      throw new RegistryError(
        `Cannot register tool "${definition.name}" from ${source}: a tool with that name is already registered by ${existing.source}.`,
      );
    }
    const parameters = closeSchema(definition.parameters);
    let validate: ArgumentValidator;
    try {
      validate = compileValidator(parameters);
    } catch (error) {
      // Security: never handed to the backtracking engine instead — any client could then stall the gateway.
      if (error instanceof PatternRefusal || error instanceof SchemaRefusal) {
        throw new RegistryError(`Cannot register tool "${definition.name}" from ${source}: in its parameters, ${error.message}.`);
      }
      throw new RegistryError(
        `Cannot register tool "${definition.name}" from ${source}: its parameters are not a valid JSON Schema (${(error as Error).message}).`,
      );
    }
    const tool: RegisteredTool = { definition, source, parameters, validate };
    this.#tools.set(definition.name, tool);
    this.emit('changed', { reason: 'registered', names: [definition.name] });
    return tool;
  }

  unregister(name: string): boolean {
    const removed = this.#tools.delete(name);
    if (removed) this.emit('changed', { reason: 'unregistered', names: [name] });
    return removed;
  }

  get(name: string): RegisteredTool | undefined {
    return this.#tools.get(name);
  }

  list(): RegisteredTool[] {
    return [...this.#tools.values()];
  }

  /**
   * The tools `source` holds back until the owner accepts them (a new or changed plugin, an imported tool that
   * changed or looks poisoned), each with the message a caller gets: not listed, not callable, answered TOOL_HELD.
   * Replaces what the source held before; an empty map releases them all.
   */
  setHeld(source: string, held: ReadonlyMap<string, string>): void {
    if (held.size === 0) this.#held.delete(source);
    else this.#held.set(source, new Map(held));
  }

  /** Why a tool that is not registered is held back, and by whom; undefined when no one holds that name. */
  held(name: string): { source: string; message: string } | undefined {
    for (const [source, names] of this.#held) {
      const message = names.get(name);
      if (message !== undefined) return { source, message };
    }
    return undefined;
  }

  isEnabled(name: string): boolean {
    return !this.#disabled.has(name);
  }

  /** Loads persisted toggles without announcing them (start-up). Names of tools not yet registered are kept. */
  restoreDisabled(names: Iterable<string>): void {
    for (const name of names) this.#disabled.add(name);
  }

  setEnabled(name: string, enabled: boolean): void {
    if (this.isEnabled(name) === enabled) return;
    if (enabled) this.#disabled.delete(name);
    else this.#disabled.add(name);
    this.emit('changed', { reason: 'toggled', names: [name] });
  }
}

function definitionProblem(tool: AnyTool): string | undefined {
  if (!tool || typeof tool !== 'object') return 'a tool definition must be an object';
  if (typeof tool.name !== 'string' || !TOOL_NAME_PATTERN.test(tool.name)) {
    return 'the name must be 1–64 characters of letters, digits, "_" or "-"';
  }
  if (RESERVED_TOOL_NAMES.has(tool.name.toLowerCase())) return `"${tool.name}" is a reserved name`;
  if (typeof tool.description !== 'string' || tool.description.trim() === '') return 'a description is required';
  if (!tool.parameters || tool.parameters.type !== 'object') return 'parameters must be a JSON Schema with type "object"';
  if (typeof tool.category !== 'string' || tool.category === '') return 'a category is required';
  if (!RISKS.includes(tool.risk)) return `risk must be one of ${RISKS.join(', ')}`;
  if (typeof tool.handler !== 'function') return 'a handler function is required';
  if (!tool.annotations || typeof tool.annotations !== 'object') return 'annotations are required';
  // Node fires a timer longer than 2^31-1 ms at once: a "very long" limit would stop every call immediately.
  if (tool.timeoutMs !== undefined && !(Number.isFinite(tool.timeoutMs) && tool.timeoutMs > 0 && tool.timeoutMs <= MAX_TIMER_MS)) {
    return `timeoutMs must be a positive number of at most ${MAX_TIMER_MS}`;
  }
  if (tool.cache) {
    if (!(Number.isFinite(tool.cache.ttl_s) && tool.cache.ttl_s > 0)) return 'cache.ttl_s must be a positive number';
    // A cached write would silently not run on repeat (Lobster's bug): only pure reads may be cached.
    if (!tool.annotations.readOnlyHint || !tool.annotations.idempotentHint) {
      return 'only tools annotated readOnlyHint and idempotentHint may declare a cache';
    }
  }
  return undefined;
}

/**
 * The plugin author's whole world: plugins import this module as `pincer/plugin` and nothing else of Pincer.
 * Everything here is types and identity helpers, so it loads inside a plugin's locked-down process in no time.
 *
 * ```js
 * import { definePlugin, defineTool } from 'pincer/plugin';
 * export default definePlugin({
 *   tools: [defineTool({ name: 'hello', description: 'Greets someone by name.', risk: 'safe',
 *     parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
 *     handler: ({ name }) => ({ greeting: `Hello, ${name}!` }) })],
 * });
 * ```
 */

/**
 * How careful Pincer is with a tool: `safe` runs, `sensitive` and `dangerous` ask the owner (docs/security.md, "The
 * policy").
 */
export type PluginRisk = 'safe' | 'sensitive' | 'dangerous';

/** MCP tool annotations. A plugin's declarations can only make Pincer more careful, never less. */
export interface PluginToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A JSON Schema for the tool's arguments; the top level is an object. Arguments are validated before a call. */
export interface PluginParameters {
  type: 'object';
  properties?: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean | Record<string, unknown>;
  [keyword: string]: unknown;
}

export interface PluginLogger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface PluginFetchInit {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Default 15 s; the call's own timeout still applies. */
  timeoutMs?: number;
  /** Largest body read; default 5 MiB. */
  maxBytes?: number;
}

export interface PluginResponse {
  status: number;
  /** The URL that answered, after redirects. */
  url: string;
  headers: Record<string, string>;
  body: Uint8Array;
  /** The body decoded as text: UTF-8 by default, or a WHATWG encoding label such as `gbk`. */
  text(encoding?: string): string;
  json<T = unknown>(): T;
}

/**
 * Outgoing HTTP for plugins. Requests go through the gateway: only to the hosts the plugin's manifest declares
 * (or the owner configured for it), and never to this machine or the local network unless the owner opened that
 * address in `http_allow`.
 */
export interface PluginHttpClient {
  fetch(url: string, init?: PluginFetchInit): Promise<PluginResponse>;
}

/** What a running handler gets besides its arguments. */
export interface PluginContext {
  /** Aborted when the call times out or its caller goes away: stop work when it fires. */
  signal: AbortSignal;
  callId: string;
  /** The client that made the call. */
  client: string;
  /** This plugin's settings: `plugins.<name>` in config.json. */
  config: Readonly<Record<string, unknown>>;
  logger: PluginLogger;
  http: PluginHttpClient;
}

export interface PluginTool<Args = Record<string, unknown>, Result = unknown> {
  /** snake_case, unique across every tool the gateway has. */
  name: string;
  /** Written for a model: what the tool does, when to use it, what it returns. */
  description: string;
  parameters: PluginParameters;
  risk: PluginRisk;
  /** Groups the tool in lists and the tray; default the plugin's name. */
  category?: string;
  annotations?: PluginToolAnnotations;
  /** Per-call time limit (default 30 s, at most 10 minutes). */
  timeoutMs?: number;
  /** Cache answers this long (read-only, idempotent tools only). */
  cache?: { ttl_s: number };
  handler(args: Args, ctx: PluginContext): Result | Promise<Result>;
}

export interface PluginDefinition {
  tools: PluginTool<any, unknown>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Typed helper: checks a tool's handler against its argument type. */
export function defineTool<Args = Record<string, unknown>, Result = unknown>(tool: PluginTool<Args, Result>): PluginTool<Args, Result> {
  return tool;
}

/** The entry module's default export. */
export function definePlugin(definition: PluginDefinition): PluginDefinition {
  return definition;
}

/** A failure the model should read (bad input it can fix, an upstream that said no): its message is shown as is. */
export class PluginToolError extends Error {
  override readonly name = 'PluginToolError';
}

/**
 * What every tool declares (docs/development.md, "Adding a built-in tool"). A tool file declares its schema,
 * annotations and handler, nothing else.
 */

import type { Risk, ToolAnnotations } from '../contract/tools.js';

// A tool's risk and annotations are the wire contract's (GET /tools).
export type { Risk, ToolAnnotations } from '../contract/tools.js';

export const RISKS: readonly Risk[] = ['safe', 'sensitive', 'dangerous'];

/** An MCP icon: an image a client may show beside the tool. */
export interface ToolIcon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

/** A JSON Schema for a tool's arguments; the top level is always an object. */
export interface ObjectSchema {
  type: 'object';
  properties?: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean | Record<string, unknown>;
  [keyword: string]: unknown;
}

/**
 * How far a call may reach, as its policy decision allowed: what the OS sandbox of `run_shell` and `run_python` is
 * widened to. A call the analyzers allowed on their own gets none of it (the roots, no network); one the owner or a
 * rule allowed gets what the approval showed.
 */
export interface SandboxGrant {
  /** Paths outside the roots it may read. */
  reads: readonly string[];
  /** Paths outside the roots it may write. */
  writes: readonly string[];
  network: boolean;
  /** Runs without the sandbox: the owner or a rule allowed a call whose reach cannot be known from its text. */
  unsandboxed: boolean;
}

/** What a running handler gets besides its arguments. */
/** How far a running call has got: `progress` grows with each update, out of `total` when known. */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

export interface ToolContext {
  /** Aborted on timeout, client disconnect or gateway shutdown; long work must stop when it fires. */
  signal: AbortSignal;
  callId: string;
  client: string;
  /** Streams live output (a command's terminal) to the log while the call runs. */
  output?: (chunk: string) => void;
  /** Tells the caller how far the call has got (an imported server's progress), when the caller asked to hear it. */
  progress?: (update: ProgressUpdate) => void;
  /** For sandboxed tools: what the decision allowed beyond the roots. Absent: the narrowest sandbox. */
  grant?: SandboxGrant;
  /** Waits for the owner (an imported server's question to them) with the call's time limit stopped meanwhile. */
  waitingForOwner?: <T>(wait: Promise<T>) => Promise<T>;
}

export interface ToolDefinition<Args = Record<string, unknown>, Result = unknown> {
  name: string;
  /** Written for a model: what the tool does, when to use it, what it returns. */
  description: string;
  parameters: ObjectSchema;
  /**
   * The JSON Schema of the result, where its shape is fixed: MCP publishes it as `outputSchema`, and the result (an
   * object) is sent as `structuredContent`, which clients check against it.
   */
  outputSchema?: ObjectSchema;
  /** MCP icons for clients that show them (an imported tool's own). */
  icons?: ToolIcon[];
  category: string;
  risk: Risk;
  annotations: ToolAnnotations;
  /** Per-call time limit; the handler's signal aborts when it passes. */
  timeoutMs?: number;
  /** Result cache; only allowed for read-only, idempotent tools. */
  cache?: { ttl_s: number };
  /** Largest serialized result accepted from the handler. */
  maxOutputBytes?: number;
  /** Runs inside the OS sandbox, widened to what the decision allowed (`ctx.grant`); its approvals say how. */
  sandboxed?: boolean;
  handler(args: Args, ctx: ToolContext): Promise<Result> | Result;
}

/** Typed helper so a tool file gets its argument type checked against its handler. */
export function defineTool<Args, Result>(tool: ToolDefinition<Args, Result>): ToolDefinition<Args, Result> {
  return tool;
}

// Handlers are contravariant in their arguments; the registry stores them erased.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = ToolDefinition<any, unknown>;

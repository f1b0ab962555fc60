/**
 * What the gateway and a plugin's process say to each other: one JSON object per line on the child's standard
 * input and output. Types only, shared by both sides.
 */
import type { PluginFetchInit, PluginTool } from '../plugin-api.js';

/** A tool as the plugin declared it (everything but its handler), before Pincer's own checks. */
export type DeclaredTool = Omit<PluginTool, 'handler'>;

export type ToParent =
  | { type: 'loaded'; tools: DeclaredTool[] }
  | { type: 'load-failed'; message: string }
  | { type: 'result'; id: number; value: unknown }
  | { type: 'error'; id: number; name: string; message: string }
  | { type: 'log'; level: 'debug' | 'info' | 'warn' | 'error'; message: string }
  | { type: 'fetch'; id: number; url: string; init: PluginFetchInit };

export type ToChild =
  | { type: 'load'; entry: string; name: string; config: Record<string, unknown> }
  | { type: 'call'; id: number; tool: string; args: unknown; callId: string; client: string }
  | { type: 'cancel'; id: number }
  | { type: 'fetched'; id: number; status: number; url: string; headers: Record<string, string>; body: string }
  | { type: 'fetch-failed'; id: number; message: string };

import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { CallOutcome } from '../executor/executor.js';
import type { RegisteredTool } from '../tools/registry.js';

/** How the gateway's tools and call outcomes read in MCP (protocol 2025-11-25). */

/** One registry tool as `tools/list` publishes it: the enforced schema, the annotations and a title. */
export function toMcpTool(tool: RegisteredTool): Tool {
  const def = tool.definition;
  const { title, ...hints } = def.annotations;
  return {
    name: def.name,
    title: title ?? titleFrom(def.name),
    description: def.description,
    inputSchema: tool.parameters as Tool['inputSchema'],
    annotations: { title: title ?? titleFrom(def.name), ...hints },
  };
}

/** `file_read` → "File read": a readable title for tools that declare none. */
function titleFrom(name: string): string {
  const words = name.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * A finished call as a `tools/call` result. A tool that ran and failed, and every refusal the model can act on
 * (bad arguments, a disabled tool, a policy or owner denial, an approval timeout), is an `isError` result whose text
 * starts with the envelope's error name; the whole envelope is in `structuredContent` for programs.
 */
export function toCallToolResult(outcome: CallOutcome): CallToolResult {
  const envelope = outcome.envelope;
  if (envelope.success) {
    const result = envelope.result;
    return {
      content: [{ type: 'text', text: typeof result === 'string' ? result : JSON.stringify(result ?? null) }],
      ...(isPlainObject(result) && { structuredContent: result }),
    };
  }
  const error = envelope.error;
  return {
    isError: true,
    content: [{ type: 'text', text: `${error.name}: ${error.message}` }],
    structuredContent: { success: false, error, call_id: envelope.call_id },
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

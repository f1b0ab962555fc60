import { Ajv } from 'ajv';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { CallOutcome } from '../executor/executor.js';
import type { RegisteredTool } from '../tools/registry.js';
import { isContentBlock, isContentResult } from '../tools/content.js';
import { isPlainObject } from '../util/json.js';

/** How the gateway's tools and call outcomes read in MCP (protocol 2025-11-25). */

/**
 * One registry tool as `tools/list` publishes it: the enforced schema, the annotations and a title, and the result's
 * schema and icons where the tool has them (an imported tool's are its server's).
 */
export function toMcpTool(tool: RegisteredTool): Tool {
  const def = tool.definition;
  const { title, ...hints } = def.annotations;
  const outputSchema = publishedOutputSchema(def.outputSchema);
  return {
    name: def.name,
    title: title ?? titleFrom(def.name),
    description: def.description,
    inputSchema: tool.parameters as Tool['inputSchema'],
    ...(outputSchema && { outputSchema }),
    ...(def.icons && def.icons.length > 0 && { icons: def.icons }),
    annotations: { title: title ?? titleFrom(def.name), ...hints },
  };
}

/** Output schemas as published, by the schema they came from (a tool keeps its definition while registered). */
const published = new WeakMap<object, Tool['outputSchema'] | null>();
let checker: Ajv | undefined;

/**
 * An outputSchema as clients can use it, or undefined. SDK clients compile every listed outputSchema when they list
 * tools, and one that does not compile fails the whole listing: an imported server's schema that a stock client
 * cannot compile (a remote or broken `$ref`) is not published, so the other tools stay listed. The `$schema` is left
 * out, so each client reads it in its own dialect.
 */
function publishedOutputSchema(schema: object | undefined): Tool['outputSchema'] | undefined {
  if (!schema) return undefined;
  let result = published.get(schema);
  if (result === undefined) {
    const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
    try {
      // The SDK clients' own checker: draft-07 Ajv, not strict. Compiled only, never run here.
      checker ??= new Ajv({ strict: false, validateSchema: false, logger: false });
      checker.compile(rest);
      result = rest as Tool['outputSchema'];
    } catch {
      result = null;
    }
    checker?.removeSchema();
    published.set(schema, result);
  }
  return result ?? undefined;
}

/** `file_read` → "File read": a readable title for tools that declare none. */
function titleFrom(name: string): string {
  const words = name.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * A finished call as a `tools/call` result. MCP content (an imported tool's answer) is passed on block for block,
 * with its `structuredContent`. A tool that ran and failed, and every refusal the model can act on (bad arguments, a
 * disabled tool, a policy or owner denial, an approval timeout), is an `isError` result whose text starts with the
 * envelope's error name; an imported server's own error keeps its blocks. The whole envelope is in
 * `structuredContent` for programs — unless the tool declares an `outputSchema`, which an error's envelope would
 * break (clients check an error's structuredContent against it too).
 */
export function toCallToolResult(outcome: CallOutcome, outputSchema = false): CallToolResult {
  const envelope = outcome.envelope;
  if (envelope.success) {
    const result = envelope.result;
    if (isContentResult(result)) return { ...result } as CallToolResult;
    return {
      content: [{ type: 'text', text: typeof result === 'string' ? result : JSON.stringify(result ?? null) }],
      ...(isPlainObject(result) && { structuredContent: result }),
    };
  }
  const error = envelope.error;
  const blocks = error.name === 'MCP_TOOL_ERROR' ? error.details.content : undefined;
  const content = Array.isArray(blocks) && blocks.length > 0 && blocks.every(isContentBlock) ? blocks : [{ type: 'text' as const, text: `${error.name}: ${error.message}` }];
  return {
    isError: true,
    content: content as CallToolResult['content'],
    ...(!outputSchema && { structuredContent: { success: false, error, call_id: envelope.call_id } }),
  };
}


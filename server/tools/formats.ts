import type { JsonSchema, ToolInfo } from '../contract/tools.js';
import type { RegisteredTool, ToolRegistry } from './registry.js';
import { toDraft2020 } from './schema-convert.js';
import type { ObjectSchema } from './types.js';

/** The shapes each kind of assistant reads tool lists in. */

/** A tool as GET /tools lists it (the wire contract's ToolInfo). */
export function toolSummary(tool: RegisteredTool, registry: ToolRegistry): ToolInfo {
  const def = tool.definition;
  return {
    name: def.name,
    description: def.description,
    // A tool's schema is any JSON Schema; the contract names only the keywords the dashboard reads.
    parameters: tool.parameters as JsonSchema,
    category: def.category,
    enabled: registry.isEnabled(def.name),
    risk: def.risk,
    source: tool.source,
    annotations: def.annotations,
  };
}

/** OpenAI function calling (Ollama takes the same array): the parameters as JSON Schema 2020-12. */
export function toOpenAITool(tool: RegisteredTool) {
  const def = tool.definition;
  return { type: 'function' as const, function: { name: def.name, description: def.description, parameters: parametersIn2020(tool) } };
}

/** Anthropic tool use: `input_schema` as JSON Schema 2020-12. */
export function toAnthropicTool(tool: RegisteredTool) {
  const def = tool.definition;
  return { name: def.name, description: def.description, input_schema: parametersIn2020(tool) };
}

// Converted once per registered schema (tool lists are rebuilt on every change).
const converted = new WeakMap<ObjectSchema, ObjectSchema>();

/** A tool's enforced schema rewritten in 2020-12 (draft-04/07 and 2019-09 forms converted, the same constraints). */
export function parametersIn2020(tool: RegisteredTool): ObjectSchema {
  let schema = converted.get(tool.parameters);
  if (!schema) {
    schema = toDraft2020(tool.parameters);
    converted.set(tool.parameters, schema);
  }
  return schema;
}

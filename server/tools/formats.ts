import type { RegisteredTool, ToolRegistry } from './registry.js';

/** The shapes each kind of assistant reads tool lists in. */

export function toolSummary(tool: RegisteredTool, registry: ToolRegistry) {
  const def = tool.definition;
  return {
    name: def.name,
    description: def.description,
    parameters: tool.parameters,
    category: def.category,
    enabled: registry.isEnabled(def.name),
    risk: def.risk,
    source: tool.source,
    annotations: def.annotations,
  };
}

/** OpenAI function calling (Ollama takes the same array). */
export function toOpenAITool(tool: RegisteredTool) {
  const def = tool.definition;
  return { type: 'function' as const, function: { name: def.name, description: def.description, parameters: tool.parameters } };
}

export function toAnthropicTool(tool: RegisteredTool) {
  const def = tool.definition;
  return { name: def.name, description: def.description, input_schema: tool.parameters };
}

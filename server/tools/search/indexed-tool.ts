import type { RegisteredTool } from '../registry.js';
import type { IndexedTool } from './fields.js';

const cache = new WeakMap<RegisteredTool, IndexedTool>();

/**
 * What the index needs of a registered tool, the same object each time for the same registration: the index keeps
 * a tool whose object it already holds without looking at it again.
 */
export function indexedTool(tool: RegisteredTool): IndexedTool {
  let indexed = cache.get(tool);
  if (!indexed) {
    const { definition } = tool;
    // An imported tool's title is kept in its annotations (the MCP client puts `title` there).
    const title = (definition as { title?: unknown }).title ?? definition.annotations?.title;
    indexed = {
      name: definition.name,
      ...(typeof title === 'string' && title.trim() !== '' && { title }),
      description: definition.description,
      source: tool.source,
      risk: definition.risk,
      parameters: tool.parameters,
    };
    cache.set(tool, indexed);
  }
  return indexed;
}

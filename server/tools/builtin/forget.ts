import { ToolError } from '../../errors.js';
import type { Memories } from '../../memory/memories.js';
import { defineTool } from '../types.js';

interface ForgetArgs {
  id: number;
}

export function createForgetTool(memories: Memories) {
  return defineTool<ForgetArgs, { id: number; deleted: true }>({
    name: 'forget',
    description:
      'Delete one memory by its id (from recall or remember). The person is asked to approve first, and a deleted ' +
      'memory cannot be brought back.',
    parameters: {
      type: 'object',
      properties: { id: { type: 'integer', minimum: 1, description: 'The memory id.' } },
      required: ['id'],
      additionalProperties: false,
    },
    outputSchema: { type: 'object', properties: { id: { type: 'integer' }, deleted: { const: true } }, required: ['id', 'deleted'] },
    category: 'memory',
    // Deleting what the person (or another assistant) stored is not the model's decision alone: it asks.
    risk: 'sensitive',
    annotations: { title: 'Forget', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    timeoutMs: 10_000,
    handler(args, ctx) {
      if (!memories.remove(args.id, ctx.client)) throw new ToolError('MEMORY_NOT_FOUND', `There is no memory ${args.id}; recall finds ids.`, { id: args.id });
      return { id: args.id, deleted: true };
    },
  });
}

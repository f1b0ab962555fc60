import { ToolError } from '../../errors.js';
import { MEMORY_LIMITS, MemoryInputError, type Memories, type Memory } from '../../memory/memories.js';
import { defineTool } from '../types.js';

interface RememberArgs {
  content: string;
  tags?: string[];
  category?: string;
}

export function createRememberTool(memories: Memories) {
  return defineTool<RememberArgs, Memory>({
    name: 'remember',
    description:
      'Store a fact, preference or note in long-term memory so it can be found later with recall (also in other ' +
      'conversations). Write it as a self-contained sentence; add tags and a category to make it easier to filter. ' +
      'Returns the stored memory with its id.',
    parameters: {
      type: 'object',
      properties: {
        // Security: denial of service. Indexing costs in proportion to the text: at most 32 KiB of UTF-8 (MEMORY_LIMITS),
        // checked in bytes by Memories.add; the schema's characters can only be fewer.
        content: { type: 'string', description: 'What to remember, at most 32 KiB (UTF-8).', minLength: 1, maxLength: MEMORY_LIMITS.content },
        tags: {
          type: 'array',
          items: { type: 'string', minLength: 1, maxLength: MEMORY_LIMITS.tag },
          maxItems: MEMORY_LIMITS.tags,
          description: 'Short labels, e.g. ["work", "stocks"].',
        },
        category: { type: 'string', maxLength: MEMORY_LIMITS.category, description: 'One broad group, e.g. "preferences".' },
      },
      required: ['content'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        id: { type: 'integer' },
        content: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' } },
        category: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        client: { type: 'string' },
        call_id: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        created_at: { type: 'string' },
        updated_at: { type: 'string' },
      },
      required: ['id', 'content', 'tags', 'category', 'client', 'created_at', 'updated_at'],
    },
    category: 'memory',
    risk: 'safe',
    annotations: { title: 'Remember', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    timeoutMs: 10_000,
    handler(args, ctx) {
      try {
        return memories.add({ content: args.content, tags: args.tags, category: args.category, client: ctx.client, callId: ctx.callId });
      } catch (error) {
        if (error instanceof MemoryInputError) throw new ToolError('INVALID_MEMORY', error.message, { field: error.field });
        throw error;
      }
    },
  });
}

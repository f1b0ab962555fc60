import type { ToolHit } from '../search/tool-index.js';
import { defineTool } from '../types.js';

export const SEARCH_TOOLS = 'search_tools';
export const SEARCH_LIMITS = { query: 1000, default: 10, max: 50 } as const;

/** One tool found for a request, as `GET /tools/search` and `search_tools` answer it. */
export type FoundTool = ToolHit;

/** Searches the calling client's own tools (the gateway wires it to the tool index and the client's set). */
export type ToolFinder = (client: string, query: string, limit: number) => FoundTool[];

/**
 * Finds tools by what a person asks for: a client whose list is short (its budget) finds the rest here, and every
 * tool found can then be called by its name. Only the caller's own enabled tools are searched; nothing runs.
 */
export function createSearchToolsTool(find: ToolFinder) {
  return defineTool<{ query: string; limit?: number }, { results: FoundTool[]; count: number }>({
    name: SEARCH_TOOLS,
    description:
      'Find the tool for a task when the tool you need is not in your list: describe the task in plain words ' +
      '("how high above sea level is Denver", "delete a git branch") and get the best matching tools, best first, ' +
      'with their descriptions. Any tool found can then be called by its name.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'The task, in your own words.', minLength: 1, maxLength: SEARCH_LIMITS.query },
        limit: { type: 'integer', minimum: 1, maximum: SEARCH_LIMITS.max, default: SEARCH_LIMITS.default, description: 'How many tools to return.' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        results: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              title: { anyOf: [{ type: 'string' }, { type: 'null' }] },
              description: { type: 'string' },
              source: { type: 'string' },
              risk: { type: 'string' },
              score: { type: 'number' },
              match: { type: 'array', items: { type: 'object', properties: { word: { type: 'string' }, matched: { type: 'string' }, how: { type: 'string' } } } },
            },
            required: ['name', 'description', 'source', 'risk', 'score'],
          },
        },
        count: { type: 'integer' },
      },
      required: ['results', 'count'],
    },
    category: 'tools',
    risk: 'safe',
    annotations: { title: 'Search tools', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    timeoutMs: 10_000,
    handler(args, ctx) {
      const results = find(ctx.client, args.query, args.limit ?? SEARCH_LIMITS.default);
      return { results, count: results.length };
    },
  });
}

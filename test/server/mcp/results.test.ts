import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { describe, expect, it } from 'vitest';
import { toCallToolResult, toMcpTool } from '../../../server/mcp/results.js';
import { ToolRegistry } from '../../../server/tools/registry.js';
import type { ObjectSchema } from '../../../server/tools/types.js';

/** How a registry tool and a call's outcome read in MCP: the outputSchema a stock SDK client can compile, or none. */

function published(outputSchema: ObjectSchema) {
  const registry = new ToolRegistry();
  const name = `t${Math.random().toString(36).slice(2, 8)}`;
  registry.register({ name, description: 'Test tool.', parameters: { type: 'object' }, outputSchema, category: 'test', risk: 'safe', annotations: {}, handler: () => ({ n: 1 }) }, 'mcp:test');
  return toMcpTool(registry.get(name)!);
}

const shape = { type: 'object' as const, properties: { n: { type: 'number' } }, required: ['n'] };

describe('outputSchema as tools/list publishes it', () => {
  it('publishes a draft-07 schema (the SDK\'s) without its $schema, and the SDK client compiles it', () => {
    const tool = published({ $schema: 'http://json-schema.org/draft-07/schema#', ...shape });
    expect(tool.outputSchema).toEqual(shape);
    const check = new AjvJsonSchemaValidator().getValidator(tool.outputSchema!);
    expect(check({ n: 1 }).valid).toBe(true);
    expect(check({ n: 'one' }).valid).toBe(false);
  });

  it('publishes a 2020-12 schema without its $schema too, and the SDK client compiles it', () => {
    const schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', ...shape };
    const tool = published(schema);
    expect(tool.outputSchema).toEqual(shape);
    expect(() => new AjvJsonSchemaValidator().getValidator(tool.outputSchema!)).not.toThrow();
  });

  it('leaves out a schema no client could compile (a remote $ref), which would fail a client\'s whole listing', () => {
    const schema: ObjectSchema = { type: 'object', properties: { n: { $ref: 'https://example.org/n.json' } } };
    expect(() => new AjvJsonSchemaValidator().getValidator(schema as never)).toThrow(/can't resolve reference/);
    expect(published(schema).outputSchema).toBeUndefined();
  });
});

describe('a call outcome as a tools/call result', () => {
  const failed = { callId: 'c_1', status: 'failed' as const, httpStatus: 200, envelope: { success: false as const, call_id: 'c_1', error: { name: 'MCP_TOOL_ERROR' as const, code: 0, message: 'bad', details: { content: [{ type: 'text', text: 'bad' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }] } } } };

  it('passes an imported server\'s error blocks through, and no envelope for a tool with an outputSchema', () => {
    expect(toCallToolResult(failed, true)).toEqual({ isError: true, content: failed.envelope.error.details.content });
    expect(toCallToolResult(failed, false).structuredContent).toMatchObject({ success: false, call_id: 'c_1' });
  });

  it('answers with the error name when the details hold no valid blocks', () => {
    const odd = { ...failed, envelope: { ...failed.envelope, error: { ...failed.envelope.error, details: { content: [{ type: 'video', url: 'x' }] } } } };
    expect(toCallToolResult(odd, true).content).toEqual([{ type: 'text', text: 'MCP_TOOL_ERROR: bad' }]);
  });
});

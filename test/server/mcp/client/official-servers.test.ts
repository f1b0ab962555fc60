import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchemaCompilers } from '../../../../server/tools/schema-dialects.js';
import { closeSchema, compileValidator } from '../../../../server/tools/validator.js';
import type { ObjectSchema } from '../../../../server/tools/types.js';
import { startGateway, tempDir, type TestGateway } from '../../../helpers/gateway.js';
import { until } from '../../../helpers/wait.js';

/**
 * The MCP servers people install, imported as they are: the official filesystem, memory and everything packages
 * run over stdio (their draft-07 schemas are the MCP SDK's default output), every tool registers, and calls are
 * checked against those schemas; the recorded tools/list answers of 14 published servers all compile.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const require = createRequire(import.meta.url);
const entry = (pkg: string) => join(dirname(require.resolve(`@modelcontextprotocol/${pkg}/package.json`)), 'dist/index.js');
const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

const shared = tempDir('pincer-fs-shared-');
const memoryDir = tempDir('pincer-memory-');
let tg: TestGateway;

const server = async (name: string): Promise<Json> => (await tg.api(`/mcp-servers/${name}`)).json();
const execute = async (tool: string, args: unknown) => {
  const response = await tg.api(`/tools/${tool}/execute`, { method: 'POST', json: args });
  return { status: response.status, body: (await response.json()) as Json };
};
const acceptAsSafe = async (name: string, tools: string[]) => {
  const response = await tg.asOwner(`/mcp-servers/${name}/accept`, { json: { tools, risk: 'safe' } });
  expect(response.status).toBe(200);
};

beforeAll(async () => {
  writeFileSync(join(shared, 'notes.txt'), 'first line\nsecond line\n');
  // The filesystem server asks Pincer for its roots (roots/list) and serves those: the shared folder is one.
  tg = await startGateway({
    roots: [shared],
    mcpServers: {
      filesystem: { command: process.execPath, args: [entry('server-filesystem'), shared] },
      memory: { command: process.execPath, args: [entry('server-memory')], env: { MEMORY_FILE_PATH: join(memoryDir, 'memory.jsonl') } },
      everything: { command: process.execPath, args: [entry('server-everything'), 'stdio'] },
    },
  });
  for (const name of ['filesystem', 'memory', 'everything']) {
    await until(async () => {
      const view = await server(name);
      return view.status === 'running' && view.tools.length > 0;
    }, `${name} running`, 30_000);
  }
});
afterAll(async () => {
  await tg?.close();
});

describe('the official MCP servers, imported over stdio', () => {
  it.each([
    ['filesystem', 14],
    ['memory', 9],
    ['everything', 13],
  ])('registers every tool of %s (at least %i), none invalid', async (name, atLeast) => {
    const view = await server(name);
    expect(view.tools.length).toBeGreaterThanOrEqual(atLeast);
    for (const tool of view.tools) {
      // Registered, or held only for the owner's acceptance: never refused.
      expect({ name: tool.name, status: tool.status, problem: tool.problem }).toEqual({
        name: tool.name,
        status: expect.stringMatching(/^(active|flagged|changed)$/),
        problem: null,
      });
      if (tool.status === 'active') {
        const listed = (await (await tg.api(`/tools/${tool.imported_as}`)).json()) as Json;
        expect(listed).toMatchObject({ name: tool.imported_as, source: `mcp:${name}` });
      }
    }
    expect(view.tools.filter((t: Json) => t.status === 'active').length).toBeGreaterThan(0);
  });

  it('refuses a wrong argument with INVALID_ARGUMENTS naming it, against the draft-07 schema', async () => {
    const wrongType = await execute('filesystem__read_text_file', { path: 42 });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error).toMatchObject({ name: 'INVALID_ARGUMENTS', message: expect.stringContaining('"path" must be string') });
    const missing = await execute('everything__get-sum', { a: 1 });
    expect(missing.body.error).toMatchObject({ name: 'INVALID_ARGUMENTS', message: expect.stringContaining('missing required property "b"') });
    const nested = await execute('memory__create_entities', { entities: [{ name: 'pincer', entityType: 'tool' }] });
    expect(nested.body.error).toMatchObject({ name: 'INVALID_ARGUMENTS', message: expect.stringContaining('missing required property "observations"') });
    expect(nested.body.error.details.errors[0]).toMatchObject({ path: '/entities/0' });
    const outOfRange = await execute('everything__get-resource-links', { count: 11 });
    expect(outOfRange.body.error).toMatchObject({ name: 'INVALID_ARGUMENTS', message: expect.stringContaining('"count" must be <= 10') });
    const invented = await execute('everything__echo', { message: 'hi', loud: true });
    expect(invented.body.error).toMatchObject({ name: 'INVALID_ARGUMENTS', message: expect.stringContaining('unknown property "loud"') });
  });

  it('runs a call whose arguments match, through the pipeline to the real server', async () => {
    await acceptAsSafe('everything', ['get-sum', 'echo']);
    expect((await execute('everything__get-sum', { a: 2, b: 3 })).body).toMatchObject({ success: true, result: expect.stringContaining('5') });
    expect((await execute('everything__echo', { message: 'over draft-07' })).body).toMatchObject({ success: true, result: expect.stringContaining('over draft-07') });

    await acceptAsSafe('filesystem', ['read_text_file']);
    const read = await execute('filesystem__read_text_file', { path: join(shared, 'notes.txt'), head: 1 });
    expect(read.body).toMatchObject({ success: true });
    expect(JSON.stringify(read.body.result)).toContain('first line');
    expect(JSON.stringify(read.body.result)).not.toContain('second line');

    await acceptAsSafe('memory', ['create_entities', 'read_graph']);
    const created = await execute('memory__create_entities', { entities: [{ name: 'pincer', entityType: 'tool', observations: ['imports draft-07'] }] });
    expect(created.body).toMatchObject({ success: true });
    const graph = await execute('memory__read_graph', {});
    expect(JSON.stringify(graph.body.result)).toContain('imports draft-07');
    expect(readFileSync(join(memoryDir, 'memory.jsonl'), 'utf8')).toContain('pincer');
  });

  it('re-exports the imported tools in 2020-12 to OpenAI, Anthropic and OpenAPI, and as published over MCP', async () => {
    const openai = (await (await tg.api('/tools/openai')).json()) as Json;
    const fs = openai.tools.find((t: Json) => t.function.name === 'filesystem__read_text_file');
    expect(fs.function.parameters).toMatchObject({ type: 'object', properties: { path: { type: 'string' } }, additionalProperties: false });
    expect(fs.function.parameters.$schema).toBeUndefined();
    const anthropic = (await (await tg.api('/tools/anthropic')).json()) as Json;
    expect(anthropic.tools.find((t: Json) => t.name === 'filesystem__read_text_file').input_schema.$schema).toBeUndefined();
    const openapi = (await (await tg.api('/openapi.json')).json()) as Json;
    expect(openapi.paths['/tools/filesystem__read_text_file/execute']).toBeDefined();
    expect(JSON.stringify(openapi)).not.toContain('draft-07');

    const client = new Client({ name: 'official-servers-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${tg.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tg.token}` } } }));
    try {
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'filesystem__read_text_file')?.inputSchema).toMatchObject({ $schema: DRAFT_07, properties: { path: { type: 'string' } } });
    } finally {
      await client.close();
    }
  });
});

describe('the recorded tools/list answers of 14 published servers', () => {
  const fixture = JSON.parse(readFileSync(resolve(import.meta.dirname, '../fixtures/published-tools.json'), 'utf8')) as {
    servers: Record<string, { package: string; tools: { name: string; inputSchema: ObjectSchema; outputSchema?: Record<string, unknown> }[] }>;
  };
  const outputs = new SchemaCompilers({ validateSchema: false, allErrors: true });

  it('holds 14 servers, desktop-commander among them', () => {
    expect(Object.keys(fixture.servers)).toHaveLength(14);
    expect(fixture.servers['desktop-commander']!.package).toMatch(/^@wonderwhy-er\/desktop-commander@/);
  });

  it.each(Object.keys(fixture.servers))("compiles every input and output schema of %s", (name) => {
    for (const tool of fixture.servers[name]!.tools) {
      expect(() => compileValidator(closeSchema(tool.inputSchema)), `${name} ${tool.name} inputSchema`).not.toThrow();
      if (tool.outputSchema) expect(() => outputs.compile(tool.outputSchema!), `${name} ${tool.name} outputSchema`).not.toThrow();
    }
  });
});

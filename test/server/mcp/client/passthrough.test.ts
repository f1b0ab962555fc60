import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../../../helpers/cli.js';
import { startGateway, type TestGateway } from '../../../helpers/gateway.js';
import { until } from '../../../helpers/wait.js';
import { startStubLlm, type StubLlm } from '../../llm/stub-llm.js';

/**
 * What an imported server's results become at each door, against the real `@modelcontextprotocol/server-everything`:
 * through Pincer's /mcp they are the server's own, block for block (compared with the same call made to the server
 * directly); over HTTP the envelope carries them whole; in a tool message (/tool_calls) an image is described with
 * where its bytes are; resource links it returned can be read back through Pincer, by the client that got them only.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const EVERYTHING = resolve(import.meta.dirname, '../../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
// Takes the draft-07 "$schema" out of the listing only, so the tools import whatever the gateway's schema dialects.
let tg: TestGateway;
let llm: StubLlm;
let direct: Client;
const pincerClients: Client[] = [];

async function pincer(token = tg.token): Promise<Client> {
  const client = new Client({ name: 'passthrough-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${tg.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  pincerClients.push(client);
  return client;
}

beforeAll(async () => {
  llm = await startStubLlm();
  tg = await startGateway({
    mcpServers: { every: { command: process.execPath, args: [EVERYTHING, 'stdio'] } },
    llm: { baseUrl: llm.url, model: 'stub-model', api: 'ollama' },
  });
  await until(async () => {
    const view = (await (await tg.api('/mcp-servers/every')).json()) as Json;
    return view.status === 'running' && view.tools.some((t: Json) => t.name === 'get-tiny-image' && t.status === 'active');
  }, 'the everything server running');
  // Rated safe by the owner, so its calls run without asking.
  expect((await tg.asOwner('/mcp-servers/every/accept', { json: { risk: 'safe' } })).status).toBe(200);
  direct = new Client({ name: 'direct', version: '1.0.0' });
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
});
afterAll(async () => {
  for (const client of pincerClients) await client.close().catch(() => undefined);
  await direct?.close().catch(() => undefined);
  await tg?.close();
  await llm?.close();
});

describe('results of an imported MCP server through Pincer', () => {
  it('passes an image block through /mcp as the server sent it, beside its text blocks', async () => {
    const client = await pincer();
    const viaPincer = (await client.callTool({ name: 'every__get-tiny-image', arguments: {} })) as CallToolResult;
    const own = (await direct.callTool({ name: 'get-tiny-image', arguments: {} })) as CallToolResult;
    expect(viaPincer.content).toEqual(own.content);
    expect(viaPincer.content[1]).toMatchObject({ type: 'image', mimeType: 'image/png', data: expect.stringMatching(/^iVBORw0KGgo/) });
    expect(viaPincer.isError).toBeFalsy();
  });

  it('passes the blocks through `pincer mcp` over stdio too, and reads a returned link there', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--data-dir', tg.dataDir, '--port', String(tg.port)],
      env: getDefaultEnvironment(),
      stderr: 'ignore',
    });
    const client = new Client({ name: 'stdio-passthrough', version: '1.0.0' });
    await client.connect(transport);
    pincerClients.push(client);
    const image = (await client.callTool({ name: 'every__get-tiny-image', arguments: {} })) as CallToolResult;
    const own = (await direct.callTool({ name: 'get-tiny-image', arguments: {} })) as CallToolResult;
    expect(image.content).toEqual(own.content);
    await client.callTool({ name: 'every__get-resource-links', arguments: { count: 1 } });
    expect((await client.readResource({ uri: 'demo://resource/dynamic/blob/1' })).contents[0]).toMatchObject({ uri: 'demo://resource/dynamic/blob/1' });
  });

  it('keeps content annotations on text and image blocks', async () => {
    const client = await pincer();
    const args = { messageType: 'error', includeImage: true };
    const viaPincer = (await client.callTool({ name: 'every__get-annotated-message', arguments: args })) as CallToolResult;
    const own = (await direct.callTool({ name: 'get-annotated-message', arguments: args })) as CallToolResult;
    expect(viaPincer.content).toEqual(own.content);
    expect(viaPincer.content.some((b) => b.annotations?.priority === 1)).toBe(true);
    expect(viaPincer.content.some((b) => b.type === 'image' && b.annotations !== undefined)).toBe(true);
  });

  it('keeps resource links as links and embedded resources as resources', async () => {
    const client = await pincer();
    const links = (await client.callTool({ name: 'every__get-resource-links', arguments: { count: 2 } })) as CallToolResult;
    const ownLinks = (await direct.callTool({ name: 'get-resource-links', arguments: { count: 2 } })) as CallToolResult;
    expect(links.content).toEqual(ownLinks.content);
    expect(links.content.filter((b) => b.type === 'resource_link')).toHaveLength(2);
    const embedded = (await client.callTool({ name: 'every__get-resource-reference', arguments: { resourceType: 'Blob', resourceId: 3 } })) as CallToolResult;
    const resource = embedded.content.find((b) => b.type === 'resource');
    expect(resource).toMatchObject({ type: 'resource', resource: { uri: 'demo://resource/dynamic/blob/3', mimeType: 'text/plain', blob: expect.any(String) } });
  });

  it('lists the imported tool with its outputSchema, title and annotations, and its structuredContent passes the SDK client\'s check', async () => {
    const client = await pincer();
    const { tools } = await client.listTools();
    const structured = tools.find((t) => t.name === 'every__get-structured-content')!;
    const own = (await direct.listTools()).tools.find((t) => t.name === 'get-structured-content')!;
    expect(structured.outputSchema).toMatchObject({ type: 'object', properties: own.outputSchema!.properties, required: own.outputSchema!.required });
    expect(structured.title).toBe(own.title);
    expect(structured.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    // The SDK client validates structuredContent against the listed outputSchema: a mismatch would throw here.
    const result = (await client.callTool({ name: 'every__get-structured-content', arguments: { location: 'Chicago' } })) as CallToolResult;
    expect(result.structuredContent).toEqual({ temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(result.structuredContent) }]);
  });

  it('answers POST /tools/{name}/execute with the blocks whole, and history keeps them', async () => {
    const answer = (await (await tg.api('/tools/every__get-tiny-image/execute', { method: 'POST', json: {} })).json()) as Json;
    expect(answer.success).toBe(true);
    expect(answer.result.content.map((b: Json) => b.type)).toEqual(['text', 'image', 'text']);
    const own = (await direct.callTool({ name: 'get-tiny-image', arguments: {} })) as CallToolResult;
    expect(answer.result.content).toEqual(own.content);
    const recorded = (await (await tg.api(`/calls/${answer.call_id}`)).json()) as Json;
    expect(recorded.result.content[1].data).toBe((own.content[1] as { data: string }).data);
    // A structured answer stays the plain object HTTP callers had.
    const weather = (await (await tg.api('/tools/every__get-structured-content/execute', { method: 'POST', json: { location: 'New York' } })).json()) as Json;
    expect(weather.result).toEqual({ temperature: 33, conditions: 'Cloudy', humidity: 82 });
  });

  it('describes an image in a /tool_calls message, with where to fetch it, instead of inlining its base64', async () => {
    const body = { tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'every__get-tiny-image', arguments: '{}' } }] };
    const { messages } = (await (await tg.api('/tool_calls', { method: 'POST', json: body })).json()) as Json;
    const text = messages[0].content as string;
    const own = (await direct.callTool({ name: 'get-tiny-image', arguments: {} })) as CallToolResult;
    expect(text).not.toContain((own.content[1] as { data: string }).data.slice(0, 64));
    const envelope = JSON.parse(text);
    expect(envelope.result.content[0]).toEqual({ type: 'text', text: "Here's the image you requested:" });
    const image = envelope.result.content[1];
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png', bytes: expect.any(Number) });
    expect(image.note).toContain(`GET /calls/${envelope.call_id}`);
    expect(image.note).toContain('result.content[1].data');
    // The handle works: the bytes are there.
    const recorded = (await (await tg.api(`/calls/${envelope.call_id}`)).json()) as Json;
    expect(Buffer.from(recorded.result.content[1].data, 'base64')).toHaveLength(image.bytes);
  });

  it('describes a blob resource in a tool message, and keeps a resource link\'s uri and name', async () => {
    const body = {
      tool_calls: [
        { id: 'a', type: 'function', function: { name: 'every__get-resource-reference', arguments: JSON.stringify({ resourceType: 'Blob', resourceId: 2 }) } },
        { id: 'b', type: 'function', function: { name: 'every__get-resource-links', arguments: JSON.stringify({ count: 1 }) } },
      ],
    };
    const { messages } = (await (await tg.api('/tool_calls', { method: 'POST', json: body })).json()) as Json;
    const blob = JSON.parse(messages[0].content).result.content.find((b: Json) => b.type === 'resource');
    expect(blob).toMatchObject({ uri: 'demo://resource/dynamic/blob/2', mimeType: 'text/plain', bytes: expect.any(Number), note: expect.stringContaining('.resource.blob') });
    expect(blob.blob).toBeUndefined();
    const link = JSON.parse(messages[1].content).result.content.find((b: Json) => b.type === 'resource_link');
    expect(link).toMatchObject({ uri: 'demo://resource/dynamic/blob/1', name: 'Blob Resource 1', mimeType: 'text/plain' });
  });
});

describe('reading resource links through Pincer', () => {
  it('reads a link the server returned to this client, through that server', async () => {
    const client = await pincer();
    const links = (await client.callTool({ name: 'every__get-resource-links', arguments: { count: 2 } })) as CallToolResult;
    const uri = (links.content.find((b) => b.type === 'resource_link') as { uri: string }).uri;
    expect(client.getServerCapabilities()?.resources).toBeDefined();
    const read = await client.readResource({ uri });
    const own = await direct.readResource({ uri });
    expect(read.contents[0]).toMatchObject({ uri, mimeType: own.contents[0]!.mimeType });
    expect(read.contents[0]).toHaveProperty('blob');
    const listed = await client.listResources();
    expect(listed.resources.map((r) => r.uri)).toContain(uri);
  });

  it('refuses a URI no result of this client named: another of the server\'s resources, and a file of this machine', async () => {
    const client = await pincer();
    // The server has it, but never named it to this client.
    await expect(client.readResource({ uri: 'demo://resource/dynamic/text/9' })).rejects.toThrow(/Resource not found/);
    await expect(client.readResource({ uri: `file://${tg.dataDir}/token` })).rejects.toThrow(/Resource not found/);
    await expect(client.readResource({ uri: 'file:///etc/passwd' })).rejects.toBeInstanceOf(McpError);
  });

  it('refuses a link another client was given', async () => {
    const first = await pincer();
    await first.callTool({ name: 'every__get-resource-links', arguments: { count: 4 } });
    const created = (await (await tg.asOwner('/clients', { json: { name: 'other-reader' } })).json()) as Json;
    const second = await pincer(created.token);
    await expect(second.readResource({ uri: 'demo://resource/dynamic/text/4' })).rejects.toThrow(/Resource not found/);
    expect((await second.listResources()).resources).toEqual([]);
    // The first client still reads it.
    expect((await first.readResource({ uri: 'demo://resource/dynamic/text/4' })).contents[0]).toMatchObject({ uri: 'demo://resource/dynamic/text/4' });
  });

  it('refuses a link once the tool that returned it is turned off', async () => {
    const client = await pincer();
    await client.callTool({ name: 'every__get-resource-links', arguments: { count: 5 } });
    const uri = 'demo://resource/dynamic/blob/5';
    expect((await client.readResource({ uri })).contents).toHaveLength(1);
    expect((await tg.asOwner('/tools/every__get-resource-links', { method: 'PATCH', json: { enabled: false } })).status).toBe(200);
    try {
      await expect(client.readResource({ uri })).rejects.toThrow(/Resource not found/);
    } finally {
      await tg.asOwner('/tools/every__get-resource-links', { method: 'PATCH', json: { enabled: true } });
    }
  });
});

describe.each(['ollama', 'openai'] as const)('an image through the LLM bridge (%s)', (api) => {
  it('reaches the model as a description with a handle, and the chat steps keep the image whole', async () => {
    expect((await tg.asOwner('/settings', { method: 'PATCH', json: { llm: { api } } })).status).toBe(200);
    llm.setScript((request) => {
      const last = request.messages[request.messages.length - 1]!;
      if (last.role === 'user') return { tool_calls: [{ name: 'every__get-tiny-image', arguments: {} }] };
      return { content: `I was told: ${String(last.content)}` };
    });
    const before = llm.requests.length;
    const body = (await (await tg.api('/chat', { method: 'POST', json: { message: 'Show me the logo.' } })).json()) as Json;
    const own = (await direct.callTool({ name: 'get-tiny-image', arguments: {} })) as CallToolResult;
    const data = (own.content[1] as { data: string }).data;
    const toolMessage = llm.requests.slice(before).flatMap((r) => r.messages).find((m) => m.role === 'tool')!;
    expect(typeof toolMessage.content).toBe('string');
    expect(toolMessage.content as string).not.toContain(data.slice(0, 64));
    const told = JSON.parse(toolMessage.content as string);
    expect(told.result.content[1]).toMatchObject({ type: 'image', mimeType: 'image/png', note: expect.stringContaining(`GET /calls/${body.steps[0].call_id}`) });
    expect(body.steps[0].result.content[1]).toEqual(own.content[1]);
    const recorded = (await (await tg.api(`/calls/${body.steps[0].call_id}`)).json()) as Json;
    expect(recorded).toMatchObject({ via: expect.stringMatching(/^llm|chat/), status: 'succeeded' });
    expect(recorded.result.content[1].data).toBe(data);
  });
});

describe('an imported result over the output cap', () => {
  it('is refused as OUTPUT_TOO_LARGE, saying how big it was, as any tool\'s is; history keeps the refusal', async () => {
    const small = await startGateway({
      maxOutputBytes: 2048,
      mcpServers: { every: { command: process.execPath, args: [EVERYTHING, 'stdio'] } },
    });
    try {
      await until(async () => {
        const view = (await (await small.api('/mcp-servers/every')).json()) as Json;
        return view.status === 'running' && view.tools.some((t: Json) => t.name === 'get-tiny-image' && t.status === 'active');
      }, 'the everything server running');
      await small.asOwner('/mcp-servers/every/accept', { json: { risk: 'safe' } });
      const answer = (await (await small.api('/tools/every__get-tiny-image/execute', { method: 'POST', json: {} })).json()) as Json;
      expect(answer).toMatchObject({ success: false, error: { name: 'OUTPUT_TOO_LARGE', details: { limit: 2048 } } });
      expect(answer.error.details.bytes).toBeGreaterThan(2048);
      const recorded = (await (await small.api(`/calls/${answer.call_id}`)).json()) as Json;
      expect(recorded).toMatchObject({ status: 'failed', result: null, error: { name: 'OUTPUT_TOO_LARGE' } });
      // A result under the cap is kept whole.
      const weather = (await (await small.api('/tools/every__get-structured-content/execute', { method: 'POST', json: { location: 'Chicago' } })).json()) as Json;
      expect(weather).toMatchObject({ success: true, result: { humidity: 82 } });
    } finally {
      await small.close();
    }
  });
});

describe('error results, _meta, icons and outputSchemas of an imported server', () => {
  let other: TestGateway;
  let client: Client;
  beforeAll(async () => {
    const server = resolve(import.meta.dirname, '../fixtures/content-server.mjs');
    other = await startGateway({ mcpServers: { content: { command: process.execPath, args: [server] } } });
    await until(async () => {
      const view = (await (await other.api('/mcp-servers/content')).json()) as Json;
      return view.status === 'running' && view.tools.length === 4 && view;
    }, 'the content server running');
    await other.asOwner('/mcp-servers/content/accept', { json: { risk: 'safe' } });
    client = new Client({ name: 'content-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${other.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${other.token}` } } }));
  });
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await other?.close();
  });

  it('passes the server\'s own error blocks through /mcp, image included, and names the error over HTTP', async () => {
    const failed = (await client.callTool({ name: 'content__broken_chart', arguments: {} })) as CallToolResult;
    expect(failed.isError).toBe(true);
    expect(failed.content).toEqual([
      { type: 'text', text: 'The chart failed half way.' },
      { type: 'image', data: expect.stringMatching(/^iVBOR/), mimeType: 'image/png' },
    ]);
    const answer = (await (await other.api('/tools/content__broken_chart/execute', { method: 'POST', json: {} })).json()) as Json;
    expect(answer).toMatchObject({ success: false, error: { name: 'MCP_TOOL_ERROR', message: 'The chart failed half way.' } });
    // In a tool message the error's image is described too.
    const body = { tool_calls: [{ id: 'x', type: 'function', function: { name: 'content__broken_chart', arguments: '{}' } }] };
    const { messages } = (await (await other.api('/tool_calls', { method: 'POST', json: body })).json()) as Json;
    expect(messages[0].content).not.toContain('iVBOR');
    expect(JSON.parse(messages[0].content).error.details.content[1]).toMatchObject({ type: 'image', mimeType: 'image/png', bytes: expect.any(Number) });
  });

  it('keeps _meta on the result and on its blocks', async () => {
    const result = (await client.callTool({ name: 'content__with_meta', arguments: {} })) as CallToolResult;
    expect(result._meta).toEqual({ 'example.org/tag': 'result' });
    expect(result.content).toEqual([{ type: 'text', text: 'tagged', _meta: { 'example.org/tag': 'block' } }]);
  });

  it('lists only the icons with an http(s) or data:image source', async () => {
    const { tools } = await client.listTools();
    const icons = tools.find((t) => t.name === 'content__iconic')!.icons!;
    expect(icons.map((i) => i.src.slice(0, 16))).toEqual(['https://example.', 'data:image/png;b']);
    expect(icons[0]).toEqual({ src: 'https://example.org/icon.png', mimeType: 'image/png', sizes: ['48x48'] });
  });

  it('lists a tool whose outputSchema no client could compile without it, so the listing of every other tool stands', async () => {
    const { tools } = await client.listTools();
    const far = tools.find((t) => t.name === 'content__far_schema')!;
    expect(far).toBeDefined();
    expect(far.outputSchema).toBeUndefined();
    // Pincer's own check of the server's answer cannot use that schema either: the call fails saying why.
    const result = (await client.callTool({ name: 'content__far_schema', arguments: {} })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toMatch(/outputSchema cannot be checked/);
  });
});

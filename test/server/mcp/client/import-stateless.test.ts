import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../../helpers/gateway.js';
import { until } from '../../../helpers/wait.js';

/**
 * An imported Streamable HTTP server that speaks only MCP 2026-07-28 (the SDK 2.x server with its 2025 serving
 * turned off, on loopback): Pincer's client finds it refuses the handshake, discovers it, and lists and calls its
 * tools in the stateless revision, with the token and the caller's identity as for any imported server.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

let stub: HttpServer;
let stubUrl: string;
const seen: { method: string; version: unknown; authorization: string | undefined }[] = [];
let gateway: TestGateway;

beforeAll(async () => {
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'modern-only', version: '3.1.0' });
      server.registerTool('shout', { description: 'Says the text louder.', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
        content: [{ type: 'text', text: text.toUpperCase() }],
        structuredContent: { loud: text.toUpperCase() },
      }));
      server.registerTool('fail', { description: 'Always fails.', inputSchema: z.object({}) }, async () => ({ isError: true, content: [{ type: 'text', text: 'it broke' }] }));
      return server;
    },
    { legacy: 'reject' },
  );
  stub = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (req.headers.authorization !== 'Bearer stub-secret') return void res.writeHead(401).end();
    try {
      const parsed = JSON.parse(body.toString('utf8'));
      seen.push({ method: parsed.method, version: parsed.params?._meta?.['io.modelcontextprotocol/protocolVersion'], authorization: req.headers.authorization });
    } catch {
      // Not JSON: the handler answers that.
    }
    const response = await handler.fetch(
      new Request(`http://127.0.0.1${req.url}`, { method: req.method!, headers: req.headers as Record<string, string>, ...(req.method === 'POST' && { body }) }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
    res.end();
  });
  await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
  stubUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}/mcp`;
  gateway = await startGateway(
    { mcpServers: { modern: { url: stubUrl, token: 'stub-secret' }, stdio26: { command: process.execPath, args: [resolve(import.meta.dirname, '../fixtures/stateless-stdio-server.mjs')] } } },
    { loadPlugins: true, mcpBackoffMs: [60_000] },
  );
});
afterAll(async () => {
  await gateway?.close();
  await new Promise((resolve) => stub?.close(resolve));
});

describe('an imported server that speaks only 2026-07-28', () => {
  it('is discovered after it refuses the handshake, and its tools are listed', async () => {
    const view = await until(async () => {
      const server = (await (await gateway.api('/mcp-servers/modern')).json()) as Json;
      return server.status === 'running' && server;
    }, 'the 2026-only server running');
    expect(view.server_info).toMatchObject({ name: 'modern-only', version: '3.1.0' });
    expect(view.tools.map((t: Json) => t.imported_as).sort()).toEqual(['modern__fail', 'modern__shout']);
    expect(seen.some((s) => s.method === 'initialize')).toBe(true);
    expect(seen.some((s) => s.method === 'server/discover' && s.version === '2026-07-28')).toBe(true);
    expect(seen.find((s) => s.method === 'tools/list')).toMatchObject({ version: '2026-07-28', authorization: 'Bearer stub-secret' });
  });

  it('calls its tools through the pipeline, results and error results intact', async () => {
    await gateway.asOwner('/mcp-servers/modern/accept', { json: { risk: 'safe' } });
    const answer = (await (await gateway.api('/tools/modern__shout/execute', { method: 'POST', json: { text: 'hello' } })).json()) as Json;
    expect(answer.success).toBe(true);
    expect(JSON.stringify(answer.result)).toContain('HELLO');
    const failed = (await (await gateway.api('/tools/modern__fail/execute', { method: 'POST', json: {} })).json()) as Json;
    expect(failed.success).toBe(false);
    expect(JSON.stringify(failed.error)).toContain('it broke');
    expect(seen.filter((s) => s.method === 'tools/call').every((s) => s.version === '2026-07-28')).toBe(true);
  });
});

describe('an imported stdio server that speaks only 2026-07-28', () => {
  it('keeps its process after the refused handshake, discovers it, and lists and calls its tools', async () => {
    const view = await until(async () => {
      const server = (await (await gateway.api('/mcp-servers/stdio26')).json()) as Json;
      return server.status === 'running' && server;
    }, 'the 2026-only stdio server running');
    expect(view).toMatchObject({ restarts: 0, server_info: { name: 'modern-stdio', version: '2.0.0' } });
    expect(view.tools.map((t: Json) => t.imported_as)).toEqual(['stdio26__reverse']);
    await gateway.asOwner('/mcp-servers/stdio26/accept', { json: { risk: 'safe' } });
    const answer = (await (await gateway.api('/tools/stdio26__reverse/execute', { method: 'POST', json: { text: 'pincer' } })).json()) as Json;
    expect(answer.success).toBe(true);
    expect(JSON.stringify(answer.result)).toContain('recnip');
  });
});

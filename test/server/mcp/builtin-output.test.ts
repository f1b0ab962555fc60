import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson, startGateway, type TestGateway } from '../../helpers/gateway.js';

/**
 * Every built-in called through the official SDK client over Streamable HTTP against a real gateway. The client
 * checks each result's structuredContent against the outputSchema it listed (and rejects a mismatch), errors
 * included: so a tool whose declared shape and answer disagree fails here.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
let tg: TestGateway;
let client: Client;
let upstream: Server;
let tools: Tool[];
let approving = true;

beforeAll(async () => {
  // A local web server (reachable through http_allow) for http_get, http_post and a SearXNG-style web_search.
  upstream = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url?.startsWith('/search')) {
      res.end(JSON.stringify({ results: [{ title: 'Pincer', url: 'https://example.org/pincer', content: 'A local tool gateway.' }] }));
      return;
    }
    req.resume();
    req.on('end', () => res.end(JSON.stringify({ method: req.method, ok: true })));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  tg = await startGateway({ httpAllow: ['127.0.0.1'], webSearch: { provider: 'searxng', baseUrl: base } });
  // The owner allows whatever asks, so every tool runs to its answer.
  void (async () => {
    while (approving) {
      try {
        const { approvals } = await readJson(await tg.asOwner('/approvals'));
        for (const approval of approvals ?? []) await tg.asOwner(`/approvals/${approval.id}`, { json: { decision: 'allow_once' } });
      } catch {
        // The gateway is closing.
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  client = new Client({ name: 'builtin-output-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${tg.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tg.token}` } } }));
  ({ tools } = await client.listTools());
  (globalThis as { upstreamBase?: string }).upstreamBase = base;
});
afterAll(async () => {
  approving = false;
  await client?.close().catch(() => undefined);
  await tg?.close();
  await new Promise((resolve) => upstream?.close(resolve));
});

const base = () => (globalThis as { upstreamBase?: string }).upstreamBase!;
const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args }, undefined, { timeout: 30_000 })) as CallToolResult;

/** The built-ins whose answer has one shape; text_process and clipboard answer one of several. */
const FIXED = ['calculate', 'get_time', 'json_parse', 'forget', 'notify', 'file_read', 'file_list', 'file_write', 'file_delete', 'run_shell', 'run_python', 'web_search', 'remember', 'recall', 'http_get', 'http_post', 'search_tools'];

describe('built-in tools through the SDK client', () => {
  it('declares an outputSchema for every built-in whose answer has a fixed shape', () => {
    for (const name of FIXED) {
      const tool = tools.find((t) => t.name === name);
      expect(tool, name).toBeDefined();
      expect(tool!.outputSchema, name).toMatchObject({ type: 'object', required: expect.any(Array) });
    }
  });

  it('answers each built-in with structuredContent its outputSchema accepts (the client checks it)', async () => {
    const results: Record<string, CallToolResult> = {};
    const run = async (name: string, args: Record<string, unknown>) => (results[name] = await call(name, args));
    await run('calculate', { expression: '6*7' });
    await run('get_time', { timezone: 'Europe/Oslo' });
    await run('json_parse', { text: '{"a": [1, 2]}' });
    await run('text_process', { operation: 'upper', text: 'pincer' });
    await run('notify', { title: 'Test', message: 'From the output test.' });
    await run('file_write', { path: 'out.txt', content: 'hello' });
    await run('file_read', { path: 'out.txt' });
    await run('file_list', { path: '.' });
    await run('file_delete', { path: 'out.txt' });
    await run('run_shell', { command: 'echo hi' });
    await run('run_python', { code: 'print(6*7)' });
    await run('http_get', { url: `${base()}/thing` });
    await run('http_post', { url: `${base()}/thing`, body: { a: 1 } });
    await run('web_search', { query: 'pincer' });
    const memory = await run('remember', { content: 'The output test remembers this.' });
    await run('recall', { query: 'output test' });
    await run('forget', { id: (memory.structuredContent as { id: number }).id });
    await run('clipboard', { action: 'read' });
    await run('search_tools', { query: 'what time is it', limit: 3 });
    // Every built-in was called; each one whose answer is fixed ran to a result its schema accepted.
    expect(Object.keys(results).sort()).toEqual(tools.map((t) => t.name).filter((n) => !n.includes('__')).sort());
    for (const name of FIXED) {
      expect(results[name]!.isError, `${name}: ${JSON.stringify(results[name]!.content)}`).toBeFalsy();
      expect(results[name]!.structuredContent, name).toBeDefined();
    }
    expect(results.calculate!.structuredContent).toMatchObject({ result: 42 });
    expect(results.run_python!.structuredContent).toMatchObject({ stdout: '42\n', exit_code: 0 });
    expect(results.web_search!.structuredContent).toMatchObject({ results: [{ title: 'Pincer' }] });
    expect((results.search_tools!.structuredContent as { results: { name: string }[] }).results[0]).toMatchObject({ name: 'get_time' });
  });

  it('sends no structuredContent with an error of a tool that declares an outputSchema (it would break the schema)', async () => {
    const failed = await call('file_read', { path: 'no-such-file.txt' });
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toBeUndefined();
    expect((failed.content[0] as { text: string }).text).toMatch(/^FILE_NOT_FOUND: /);
    const refused = await call('calculate', { expression: 5 });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toBeUndefined();
    // A tool without one still carries the envelope for programs.
    const other = await call('text_process', { operation: 'upper' });
    expect(other).toMatchObject({ isError: true, structuredContent: { success: false, error: { name: 'INVALID_ARGUMENTS' } } });
  });
});

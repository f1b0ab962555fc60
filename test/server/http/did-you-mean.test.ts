import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson, startGateway, type TestGateway } from '../../helpers/gateway.js';

/**
 * Errors that say what to do instead, through the real HTTP API and the official MCP client: an unknown tool is
 * answered with the closest names the caller may use (never one outside its tool set), and a path hit with a
 * method it does not take is answered 405 with the methods it does.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

let tg: TestGateway;
let narrowToken: string;

beforeAll(async () => {
  tg = await startGateway(undefined, { loadPlugins: false });
  narrowToken = (await readJson(await tg.asOwner('/clients', { json: { name: 'narrow-agent' } }))).token;
  const set = await tg.asOwner('/clients/narrow-agent/tools', { method: 'PUT', json: { tools: ['calculate', 'file_read'] } });
  expect(set.status).toBe(200);
});
afterAll(async () => {
  await tg?.close();
});

const as = (token: string, path: string, init: RequestInit & { json?: unknown } = {}) => tg.api(path, { ...init, headers: { authorization: `Bearer ${token}` } });
const post = (token: string, path: string, body: unknown) => as(token, path, { method: 'POST', json: body });

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'did-you-mean-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${tg.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

describe('an unknown tool is answered with the closest names the caller may use', () => {
  it('POST /tools/{name}/execute names "calculate" for "calcualte", in the message and in details.did_you_mean', async () => {
    const res = await post(tg.token, '/tools/calcualte/execute', { expression: '1+1' });
    expect(res.status).toBe(404);
    const { error } = await readJson(res);
    expect(error).toMatchObject({ name: 'TOOL_NOT_FOUND', code: 600 });
    expect(error.details.did_you_mean[0]).toBe('calculate');
    expect(error.message).toContain('There is no tool named "calcualte". Did you mean "calculate"');
  });

  it('POST /execute and GET /tools/{name} suggest the same way', async () => {
    const execute = await readJson(await post(tg.token, '/execute', { name: 'file_raed', arguments: {} }));
    expect(execute.error.details.did_you_mean[0]).toBe('file_read');
    const show = await as(tg.token, '/tools/get_tme');
    expect(show.status).toBe(404);
    const shown = await readJson(show);
    expect(shown.error.details.did_you_mean[0]).toBe('get_time');
    expect(shown.error.message).toContain('Did you mean "get_time"');
  });

  it('POST /tool_calls answers the misspelt call with the suggestion the model can act on', async () => {
    const res = await post(tg.token, '/tool_calls', {
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'json_prase', arguments: '{}' } }],
    });
    expect(res.status).toBe(200);
    const content = JSON.parse((await readJson(res)).messages[0].content);
    expect(content.error.name).toBe('TOOL_NOT_FOUND');
    expect(content.error.details.did_you_mean).toContain('json_parse');
    expect(content.error.message).toContain('"json_parse"');
  });

  it('never suggests a tool outside a client’s tool set, where the owner is offered it', async () => {
    const owner = await readJson(await tg.asOwner('/tools/file_writ/execute', { json: {} }));
    expect(owner.error.details.did_you_mean).toContain('file_write');

    const narrow = await readJson(await post(narrowToken, '/tools/file_writ/execute', {}));
    expect(narrow.error.name).toBe('TOOL_NOT_FOUND');
    expect(narrow.error.details.did_you_mean).toEqual(['file_read']);
    expect(narrow.error.message).not.toContain('file_write');

    const shown = await readJson(await as(narrowToken, '/tools/file_writ'));
    expect(shown.error.details.did_you_mean).not.toContain('file_write');
  });

  it('says nothing of a close name when none is close', async () => {
    const { error } = await readJson(await post(tg.token, '/tools/zzqqxx/execute', {}));
    expect(error.details.did_you_mean).toEqual([]);
    expect(error.message).toBe('There is no tool named "zzqqxx". List the available tools with GET /tools.');
  });

  it('MCP tools/call refuses an unknown tool with the closest names of the session’s own set', async () => {
    const client = await connect(narrowToken);
    try {
      const error = await client.callTool({ name: 'calculat', arguments: {} }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
      expect((error as McpError).message).toContain('Did you mean "calculate"?');
      const leaked = await client.callTool({ name: 'file_writ', arguments: {} }).catch((e: unknown) => e);
      expect((leaked as McpError).message).not.toContain('file_write');
      expect((leaked as McpError).data).toEqual({ did_you_mean: ['file_read'] });
    } finally {
      await client.close();
    }
  });
});

describe('a path hit with a method it does not take', () => {
  it('answers GET /tools/{name}/execute with 405, an Allow header and "takes POST"', async () => {
    const res = await tg.api('/tools/calculate/execute');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    const { error } = await readJson(res);
    expect(error).toMatchObject({ name: 'METHOD_NOT_ALLOWED', code: 405, details: { allow: ['POST'] } });
    expect(error.message).toBe('/tools/calculate/execute takes POST, not GET.');
  });

  it('lists every method a path takes, HEAD with GET', async () => {
    const res = await tg.api('/tools/calculate', { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'HEAD', 'PATCH']);
    expect((await readJson(res)).error.message).toMatch(/^\/tools\/calculate takes (GET or PATCH|PATCH or GET), not DELETE\.$/);
  });

  it('matches as the router does: a trailing slash and upper case reach the same answer', async () => {
    expect((await tg.api('/tools/calculate/execute/')).status).toBe(405);
    expect((await tg.api('/TOOLS/calculate/EXECUTE')).status).toBe(405);
  });

  it('keeps an unknown path 404 NOT_FOUND, and GET /mcp 405 (never 404)', async () => {
    const unknown = await tg.api('/tools/calculate/execute/now');
    expect(unknown.status).toBe(404);
    expect((await readJson(unknown)).error.name).toBe('NOT_FOUND');
    expect((await tg.api('/no/such/place', { method: 'PUT', json: {} })).status).toBe(404);
    const mcp = await tg.api('/mcp');
    expect(mcp.status).toBe(405);
    await mcp.body?.cancel();
  });
});

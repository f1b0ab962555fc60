import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson, startGateway, type TestGateway } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';

/**
 * Tool budgets, through the real HTTP API and the official MCP client: a client over its budget is listed its pinned
 * tools and search_tools, N in all; a tool search_tools finds joins its lists (MCP sessions hear list_changed) and
 * every tool of its set can be called by name all along.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

let tg: TestGateway;
let agentToken: string;

beforeAll(async () => {
  tg = await startGateway();
  agentToken = (await readJson(await tg.asOwner('/clients', { json: { name: 'budget-agent' } }))).token;
});
afterAll(async () => {
  await tg?.close();
});

const as = (token: string, path: string, init: RequestInit & { json?: unknown } = {}) => tg.api(path, { ...init, headers: { authorization: `Bearer ${token}` } });
const openAINames = async (token: string) => ((await readJson(await as(token, '/tools/openai'))).tools as Json[]).map((t) => t.function.name as string);
const budget = (name: string, body: unknown) => tg.asOwner(`/clients/${name}/budget`, { method: 'PUT', json: body });

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'budget-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${tg.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

describe('PUT /clients/{name}/budget', () => {
  it('sets the budget and the pinned tools, and shows them in GET /clients', async () => {
    const res = await budget('budget-agent', { max_tools: 4, pinned: ['calculate'] });
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({ name: 'budget-agent', max_tools: 4, pinned: ['calculate'] });
    const clients = (await readJson(await tg.asOwner('/clients'))).clients as Json[];
    expect(clients.find((c) => c.name === 'budget-agent')).toMatchObject({ max_tools: 4, pinned: ['calculate'] });
    expect((await budget('budget-agent', { max_tools: null })).status).toBe(200);
  });

  it.each([
    [{ max_tools: 0 }, 'max_tools'],
    [{ max_tools: 2.5 }, 'max_tools'],
    [{ max_tools: '10' }, 'max_tools'],
    [{}, 'max_tools is required'],
    [{ max_tools: 5, pinned: ['no_such_tool'] }, 'no_such_tool'],
    [{ max_tools: 5, pinned: 'calculate' }, 'pinned'],
    [{ max_tools: 5, extra: true }, '"extra"'],
  ])('refuses %j naming what is wrong', async (body, named) => {
    const res = await budget('budget-agent', body);
    expect(res.status).toBe(400);
    expect((await readJson(res)).error.message).toContain(named);
  });

  it('is the owner\'s: a client token cannot set a budget, even its own', async () => {
    const res = await as(agentToken, '/clients/budget-agent/budget', { method: 'PUT', json: { max_tools: null } });
    expect(res.status).toBe(403);
  });

  it('no longer rides on PUT /clients/{name}/tools, which says where it went', async () => {
    const res = await tg.asOwner('/clients/budget-agent/tools', { method: 'PUT', json: { tools: null, max_tools: 3 } });
    expect(res.status).toBe(400);
    expect((await readJson(res)).error.message).toContain('/clients/budget-agent/budget');
  });
});

describe('a client over its budget', () => {
  it('is listed its pinned tools and search_tools, N in all, on every list; Anthropic defers the rest', async () => {
    const all = await openAINames(agentToken);
    expect(all.length).toBeGreaterThan(10);
    await budget('budget-agent', { max_tools: 3, pinned: ['calculate', 'json_parse', 'text_process'] });
    const listed = await openAINames(agentToken);
    expect(listed.sort()).toEqual(['calculate', 'json_parse', 'search_tools']);
    const anthropic = (await readJson(await as(agentToken, '/tools/anthropic'))).tools as Json[];
    expect(anthropic.filter((t) => !t.defer_loading).map((t) => t.name).sort()).toEqual(['calculate', 'json_parse', 'search_tools']);
    expect(anthropic.filter((t) => t.defer_loading === true)).toHaveLength(all.length + (all.includes('search_tools') ? 0 : 1) - 3);
    // The default client and the owner are untouched.
    expect((await openAINames(tg.token)).length).toBe(all.length);
    await budget('budget-agent', { max_tools: null });
  });

  it('may call any tool of its set by name, listed or not', async () => {
    await budget('budget-agent', { max_tools: 1 });
    expect(await openAINames(agentToken)).toEqual(['search_tools']);
    const res = await as(agentToken, '/tools/get_time/execute', { method: 'POST', json: { timezone: 'UTC' } });
    expect(res.status).toBe(200);
    expect((await readJson(res)).success).toBe(true);
    await budget('budget-agent', { max_tools: null });
  });

  it('applies to the default client too', async () => {
    await budget('default', { max_tools: 2, pinned: ['get_time'] });
    expect((await openAINames(tg.token)).sort()).toEqual(['get_time', 'search_tools']);
    await budget('default', { max_tools: null });
  });
});

describe('GET /tools/search', () => {
  it('ranks the caller\'s own tools for a request, with what matched', async () => {
    const res = await as(agentToken, `/tools/search?q=${encodeURIComponent('what time is it in Sydney')}&limit=5`);
    expect(res.status).toBe(200);
    const { results } = await readJson(res);
    expect(results[0]).toMatchObject({ name: 'get_time', source: 'builtin', risk: 'safe' });
    expect(results[0].score).toBeGreaterThan(0);
    expect(results[0].match.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThanOrEqual(5);
  });

  it('searches only the tools the client may use', async () => {
    await tg.asOwner('/clients/budget-agent/tools', { method: 'PUT', json: { tools: ['calculate'] } });
    const { results } = await readJson(await as(agentToken, `/tools/search?q=${encodeURIComponent('what time is it')}`));
    expect((results as Json[]).map((r) => r.name)).not.toContain('get_time');
    await tg.asOwner('/clients/budget-agent/tools', { method: 'PUT', json: { tools: null } });
  });

  it.each([['', 'q'], ['q=', 'q'], ['q=time&limit=0', 'limit'], ['q=time&limit=51', 'limit'], ['q=time&limit=x', 'limit']])('refuses ?%s naming %s', async (query, named) => {
    const res = await as(agentToken, `/tools/search?${query}`);
    expect(res.status).toBe(400);
    expect((await readJson(res)).error.message).toContain(named);
  });
});

describe('MCP: a budget of 10', () => {
  it('lists at most 10 tools with search_tools, finds get_time for the time in Sydney, calls it, and the list grows', async () => {
    await budget('budget-agent', { max_tools: 10 });
    const client = await connect(agentToken);
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
    });
    try {
      const before = (await client.listTools()).tools.map((t) => t.name);
      expect(before.length).toBeLessThanOrEqual(10);
      expect(before).toContain('search_tools');
      expect(before).not.toContain('get_time');
      const found = (await client.callTool({ name: 'search_tools', arguments: { query: 'what time is it in Sydney?', limit: 3 } })) as CallToolResult;
      expect(found.isError).toBeFalsy();
      const results = (found.structuredContent as { results: { name: string }[] }).results;
      expect(results.map((r) => r.name)).toContain('get_time');
      const called = (await client.callTool({ name: 'get_time', arguments: { timezone: 'Australia/Sydney' } })) as CallToolResult;
      expect(called.isError).toBeFalsy();
      await until(() => changed > 0, 'notifications/tools/list_changed');
      const after = (await client.listTools()).tools.map((t) => t.name);
      expect(after).toContain('get_time');
      // What was found is listed on the HTTP lists too.
      expect(await openAINames(agentToken)).toContain('get_time');
    } finally {
      await client.close();
      await budget('budget-agent', { max_tools: null });
    }
  });
});

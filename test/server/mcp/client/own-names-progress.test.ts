import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema, type CallToolResult, type LoggingMessageNotification, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../../helpers/gateway.js';
import { until } from '../../../helpers/wait.js';

/**
 * A server imported under its tools' own names (`"prefix": false`), and what Pincer's /mcp tells a client while its
 * call runs: the imported tool's own progress (after the beats of a wait for the owner, each value above the last),
 * and, for a client that asked for logs, a log line saying the call waits for the owner.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const SERVER = resolve(import.meta.dirname, '../fixtures/own-names-server.mjs');
let tg: TestGateway;

beforeAll(async () => {
  tg = await startGateway({ mcpServers: { own: { command: process.execPath, args: [SERVER], prefix: false } } }, { mcpProgressIntervalMs: 100 });
  await view();
});
afterAll(async () => {
  await tg?.close();
});

async function view(): Promise<Json> {
  return until(async () => {
    const body = (await (await tg.api('/mcp-servers/own')).json()) as Json;
    return body.status === 'running' && body.tools.length === 3 && body;
  }, 'the server "own" running with its tools');
}

async function connect(): Promise<Client> {
  const client = new Client({ name: 'own-names-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${tg.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tg.token}` } } }));
  return client;
}

/** Allows the pending call to `tool` as the owner, once it waits; returns its approval. */
async function allow(tool: string): Promise<Json> {
  const approval = await until(async () => {
    const body = (await (await tg.asOwner('/approvals')).json()) as Json;
    return (body.approvals as Json[]).find((a) => a.tool === tool);
  }, `a pending approval for ${tool}`);
  expect((await tg.asOwner(`/approvals/${approval.id}`, { json: { decision: 'allow_once' } })).status).toBe(200);
  return approval;
}

describe('a server imported with "prefix": false', () => {
  it('has its tools under their own names, for every door', async () => {
    const tools = (await view()).tools as Json[];
    expect(tools.find((t) => t.name === 'echo_back')).toMatchObject({ imported_as: 'echo_back', status: 'active' });
    expect(await (await tg.api('/tools/echo_back')).json()).toMatchObject({ name: 'echo_back', source: 'mcp:own' });
    expect((await tg.api('/tools/own__echo_back')).status).toBe(404);
    const client = await connect();
    const listed = (await client.listTools()).tools.map((t) => t.name);
    expect(listed).toContain('echo_back');
    expect(listed).not.toContain('own__echo_back');
    await client.close();
  });

  it('cannot take a name a built-in holds: that tool is invalid, naming the holder, and the built-in still answers', async () => {
    const calculate = ((await view()).tools as Json[]).find((t) => t.name === 'calculate');
    expect(calculate).toMatchObject({ imported_as: 'calculate', status: 'invalid', problem: expect.stringMatching(/already registered by builtin/) });
    expect(await (await tg.api('/tools/calculate')).json()).toMatchObject({ source: 'builtin' });
    const answer = (await (await tg.api('/tools/calculate/execute', { method: 'POST', json: { expression: '6*7' } })).json()) as Json;
    expect(answer).toMatchObject({ success: true, result: { result: 42 } });
  });
});

describe('progress of an imported tool', () => {
  it('reaches the MCP caller after the beats of its wait for the owner, each value above the one before', async () => {
    const client = await connect();
    const progress: Progress[] = [];
    const answer = client.callTool({ name: 'count', arguments: {} }, undefined, { onprogress: (p) => void progress.push(p), resetTimeoutOnProgress: true });
    await until(() => progress.length > 0, 'a beat of the wait for the owner');
    await allow('count');
    const result = (await answer) as CallToolResult;
    expect(result.structuredContent).toEqual({ token: true });
    expect(progress[0]!.message).toMatch(/Waiting for the owner/);
    const values = progress.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
    // The server's count from 0 cannot go below the beats: what it says above them is passed on as it said it.
    expect(progress.at(-1)).toEqual({ progress: 100, total: 100, message: 'at 100' });
    await client.close();
  });

  it('is not asked of the imported server when the caller sent no progress token', async () => {
    const accepted = await tg.asOwner('/mcp-servers/own/accept', { json: { tools: ['count'], risk: 'safe' } });
    expect(accepted.status).toBe(200);
    const client = await connect();
    expect(((await client.callTool({ name: 'count', arguments: {} })) as CallToolResult).structuredContent).toEqual({ token: false });
    await client.close();
    expect(await (await tg.api('/tools/count/execute', { method: 'POST', json: {} })).json()).toMatchObject({ success: true, result: { structuredContent: { token: false } } });
  });
});

describe('logging', () => {
  async function callLogged(level: 'notice' | 'error' | undefined): Promise<{ logs: LoggingMessageNotification['params'][]; approval: Json }> {
    const client = await connect();
    expect(client.getServerCapabilities()?.logging).toEqual({});
    const logs: LoggingMessageNotification['params'][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (note) => void logs.push(note.params));
    if (level) expect(await client.setLoggingLevel(level)).toEqual({});
    const answer = client.callTool({ name: 'echo_back', arguments: { text: 'hi' } }, undefined, { resetTimeoutOnProgress: true });
    const approval = await allow('echo_back');
    // The answer comes on the same stream after anything sent about the call, so every log line is in by now.
    expect(((await answer) as CallToolResult).content).toEqual([{ type: 'text', text: 'echo: hi' }]);
    await client.close();
    return { logs, approval };
  }

  it('tells a client that asked for notices that its call waits for the owner', async () => {
    const { logs, approval } = await callLogged('notice');
    expect(logs).toEqual([
      { level: 'notice', logger: 'pincer', data: { tool: 'echo_back', approval_id: approval.id, message: expect.stringMatching(/Waiting for the owner/) } },
    ]);
  });

  it('sends nothing below the level a client set, and nothing to a client that never set one', async () => {
    expect((await callLogged('error')).logs).toEqual([]);
    expect((await callLogged(undefined)).logs).toEqual([]);
  });
});

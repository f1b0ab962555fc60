import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPincer } from '../../../helpers/cli.js';
import { readJson, startGateway, tempDir, type TestGateway } from '../../../helpers/gateway.js';
import { until } from '../../../helpers/wait.js';

/**
 * A held-back imported tool (flagged, or changed since the owner accepted it) answers 409 TOOL_HELD through every
 * door — POST /tools/{name}/execute, /execute, /tool_calls and Pincer's /mcp — naming what releases it; accepting the
 * server without naming tools releases every waiting tool, flagged ones included; and the CLI says what it could not
 * import and when there was nothing to accept.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const FIXTURE = resolve(import.meta.dirname, '../fixtures/held-server.mjs');
const work = tempDir('pincer-held-');
const descriptionFile = join(work, 'description.txt');
let tg: TestGateway;
let client: Client;

const view = async (): Promise<Json> => readJson(await tg.api('/mcp-servers/held'));
const toolOf = (server: Json, name: string): Json => server.tools.find((t: Json) => t.name === name);
const cli = (...args: string[]) => runPincer(['mcp-servers', ...args, '--data-dir', tg.dataDir], { PINCER_TOKEN: '' });

async function runningWith(restarts = 0): Promise<Json> {
  return until(async () => {
    const server = await view();
    return server.status === 'running' && server.restarts >= restarts && server.tools.length > 0 && server;
  }, 'the held server running', 30_000);
}

/** The four doors a client calls a tool through, each answering what it answers for a gateway refusal. */
async function everyDoor(tool: string, args: Json): Promise<{ execute: Json; named: Json; toolCalls: string; mcp: CallToolResult }> {
  const execute = await tg.api(`/tools/${tool}/execute`, { method: 'POST', json: args });
  expect(execute.status).toBe(409);
  const named = await tg.api('/execute', { method: 'POST', json: { name: tool, arguments: args } });
  expect(named.status).toBe(409);
  const batch = await readJson(await tg.api('/tool_calls', { method: 'POST', json: { tool_calls: [{ id: 'c1', type: 'function', function: { name: tool, arguments: JSON.stringify(args) } }] } }));
  const mcp = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
  return { execute: (await readJson(execute)).error, named: (await readJson(named)).error, toolCalls: batch.messages[0].content, mcp };
}

beforeAll(async () => {
  writeFileSync(descriptionFile, 'Says hello.');
  tg = await startGateway({ mcpServers: { held: { command: process.execPath, args: [FIXTURE], env: { HELD_DESCRIPTION_FILE: descriptionFile } } } }, { mcpBackoffMs: [50, 100] });
  client = new Client({ name: 'held-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${tg.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tg.token}` } } }));
  await runningWith();
}, 60_000);
afterAll(async () => {
  await client?.close();
  await tg?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('a held-back imported tool', { timeout: 60_000 }, () => {
  it('a flagged tool answers TOOL_HELD through every door, naming the command that releases it', async () => {
    expect(toolOf(await view(), 'poisoned')).toMatchObject({ status: 'flagged' });
    const { execute, named, toolCalls, mcp } = await everyDoor('held__poisoned', { note: 'x' });
    const release = 'pincer mcp-servers accept held --tool poisoned';
    for (const error of [execute, named]) {
      expect(error).toMatchObject({ name: 'TOOL_HELD', code: 611, details: { tool: 'held__poisoned', source: 'mcp:held' } });
      expect(error.message).toContain(release);
      expect(error.message).toMatch(/owner/);
    }
    expect(JSON.parse(toolCalls)).toMatchObject({ success: false, error: { name: 'TOOL_HELD', message: expect.stringContaining(release) } });
    // MCP: an error result the model reads, not "unknown tool".
    expect(mcp.isError).toBe(true);
    expect((mcp.content[0] as { text: string }).text).toMatch(/^TOOL_HELD: .*pincer mcp-servers accept held --tool poisoned/s);
  });

  it('a tool whose definition changed answers TOOL_HELD through every door, saying it changed', async () => {
    await tg.asOwner('/mcp-servers/held/accept', { json: { tools: ['changing', 'restart'], risk: 'safe' } });
    expect((await tg.api('/tools/held__changing/execute', { method: 'POST', json: {} })).status).toBe(200);
    writeFileSync(descriptionFile, 'Says hello, now in another way.');
    const before = (await view()).restarts;
    await tg.api('/tools/held__restart/execute', { method: 'POST', json: {} });
    await until(async () => toolOf(await runningWith(before + 1), 'changing').status === 'changed', 'the changed definition seen');
    const { execute, named, toolCalls, mcp } = await everyDoor('held__changing', {});
    for (const message of [execute.message, named.message, JSON.parse(toolCalls).error.message, (mcp.content[0] as { text: string }).text]) {
      expect(message).toMatch(/definition changed since the owner accepted it/);
      expect(message).toContain('pincer mcp-servers accept held --tool changing');
    }
    expect(mcp.isError).toBe(true);
  });

  it('the CLI lists the problem of a tool that cannot be imported', async () => {
    const listed = await cli('list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/broken\s+held__broken\s+invalid/);
    expect(listed.stdout).toMatch(/x broken: cannot be imported: .*uses a lookahead \(\?=…\), which the linear-time engine cannot run; rewrite the pattern without it/);
  });

  it('accept without tools releases every waiting tool, flagged and changed included, and leaves the invalid one out', async () => {
    const accepted = await cli('accept', 'held');
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toMatch(/poisoned\s+active/);
    expect(accepted.stdout).toMatch(/changing\s+active/);
    expect(accepted.stdout).toMatch(/plain\s+active/);
    expect(accepted.stdout).toMatch(/broken\s+invalid/);
    const server = await view();
    for (const name of ['poisoned', 'changing', 'plain', 'restart']) expect(toolOf(server, name)).toMatchObject({ status: 'active', accepted: true });
    const ran = await readJson(await tg.api('/tools/held__poisoned/execute', { method: 'POST', json: {}, headers: { prefer: 'respond-async' } }));
    // Released: the call reaches the pipeline (an unrated tool asks), it is no longer refused.
    expect(ran.success === true || ran.pending === true).toBe(true);
    expect((await client.callTool({ name: 'held__changing', arguments: {} })) as CallToolResult).toMatchObject({ content: [{ type: 'text', text: 'changing ran' }] });
  });

  it('accept with nothing waiting exits non-zero saying so; an unknown server and an unknown tool too', async () => {
    const again = await cli('accept', 'held');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^pincer: nothing to accept: no tool of the MCP server "held" waits for you/);
    const unknown = await cli('accept', 'nosuch');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/NOT_FOUND: .*nosuch/);
    const unknownTool = await cli('accept', 'held', '--tool', 'nosuch');
    expect(unknownTool.code).toBe(1);
    expect(unknownTool.stderr).toMatch(/has no tool named "nosuch"/);
    // Naming a tool accepts it again (with a new rating), so that is not "nothing".
    const rerated = await cli('accept', 'held', '--tool', 'plain', '--risk', 'safe');
    expect(rerated.code, rerated.stderr).toBe(0);
    expect(rerated.stdout).toMatch(/plain\s+active\s+safe/);
  });
});

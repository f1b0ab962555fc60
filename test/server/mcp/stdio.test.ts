import { spawn } from 'node:child_process';
import { writeFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, freePort } from '../../helpers/cli.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';

/**
 * `pincer mcp` (the real command) driven by the SDK's stdio client: forwarding to a running gateway with the data
 * directory's token, and starting the whole gateway on its configured port when none runs.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const text = (result: CallToolResult) => (result.content[0] as { type: 'text'; text: string }).text;

function stdioClient(args: string[], extra: { cwd?: string; env?: Record<string, string> } = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: { ...getDefaultEnvironment(), ...extra.env },
    stderr: 'pipe',
    ...(extra.cwd && { cwd: extra.cwd }),
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const errors: Error[] = [];
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  client.onerror = (error) => void errors.push(error);
  return { client, transport, stderr: () => stderr, errors };
}

describe('pincer mcp forwarding to a running gateway', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await startGateway();
  });
  afterAll(async () => {
    await tg?.close();
  });

  it('lists and calls tools as the data directory\'s client, with -32602, isError and list_changed', async () => {
    const { client, transport, errors } = stdioClient(['--data-dir', tg.dataDir, '--port', String(tg.port)]);
    await client.connect(transport);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changes += 1));

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('calculate');

    const ok = (await client.callTool({ name: 'calculate', arguments: { expression: '2**10' } })) as CallToolResult;
    expect(JSON.parse(text(ok))).toMatchObject({ result: 1024 });
    const calls = (await (await tg.api('/calls?tool=calculate')).json()) as Json;
    expect(calls.calls[0]).toMatchObject({ client: 'default', via: 'mcp (stdio-test)' });

    const bad = (await client.callTool({ name: 'calculate', arguments: {} })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/^INVALID_ARGUMENTS: /);

    const unknown = await client.callTool({ name: 'nope', arguments: {} }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(McpError);
    expect((unknown as McpError).code).toBe(ErrorCode.InvalidParams);

    await until(async () => {
      await tg.asOwner('/tools/json_parse', { method: 'PATCH', json: { enabled: false } });
      await tg.asOwner('/tools/json_parse', { method: 'PATCH', json: { enabled: true } });
      return changes > 0;
    }, 'list_changed through the stdio bridge');

    await client.close();
    // Nothing but JSON-RPC came on standard output.
    expect(errors).toEqual([]);
  });
});

describe('pincer mcp with a call that waits', () => {
  it('lets other requests, and the cancel of the waiting call, go by while it waits', async () => {
    // An answer that stays plain JSON until it is ready (no progress token, a long stream-after interval): its POST
    // stays open the whole time.
    const tg = await startGateway({}, { mcpProgressIntervalMs: 600_000 });
    const target = join(tg.workspace, 'keep.txt');
    writeFileSync(target, 'x');
    const { client, transport } = stdioClient(['--data-dir', tg.dataDir, '--port', String(tg.port)]);
    try {
      await client.connect(transport);
      const abort = new AbortController();
      const waiting = client.callTool({ name: 'file_delete', arguments: { path: target } }, undefined, { signal: abort.signal }).catch((e: unknown) => e);
      await until(async () => ((await (await tg.asOwner('/approvals')).json()) as Json).approvals.length === 1, 'the call to wait for the owner');
      // Not held back behind the waiting call.
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      abort.abort('not needed');
      await waiting;
      await until(async () => ((await (await tg.asOwner('/approvals')).json()) as Json).approvals.length === 0, 'the approval withdrawn by the cancel');
      expect(existsSync(target)).toBe(true);
    } finally {
      await client.close();
      await tg.close();
    }
  });
});

describe('pincer mcp across a restart of the gateway', () => {
  it('opens a new session when the gateway restarts, and waits for one that is starting again; the client sees list_changed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pincer-mcp-restart-'));
    const port = await freePort();
    let tg: TestGateway | undefined = await startGateway({ dataDir, port });
    const { client, transport, stderr } = stdioClient(['--data-dir', dataDir, '--port', String(port)]);
    try {
      await client.connect(transport);
      let changes = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changes += 1));
      const sum = async (expression: string) => JSON.parse(text((await client.callTool({ name: 'calculate', arguments: { expression } })) as CallToolResult)).result;
      expect(await sum('1+1')).toBe(2);

      // Restarted: the new gateway does not know the session.
      await tg.close();
      tg = await startGateway({ dataDir, port });
      expect(await sum('2+2')).toBe(4);
      await until(() => changes > 0, 'list_changed after the new session');
      expect(stderr()).toMatch(/opened a new session/);

      // Down for a moment: the call waits for it to come back rather than failing.
      await tg.close();
      tg = undefined;
      const pending = sum('3+3');
      tg = await startGateway({ dataDir, port });
      expect(await pending).toBe(6);
      const calls = (await (await tg.api('/calls?tool=calculate')).json()) as Json;
      // Each call ran once, in the gateway that answered it.
      expect(calls.calls.filter((c: Json) => c.arguments.expression === '3+3')).toHaveLength(1);
    } finally {
      await client.close();
      await tg?.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('pincer mcp fed by a pipe', () => {
  it('answers requests sent all at once before its input ends, on standard output as JSON-RPC only', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pincer-mcp-pipe-'));
    try {
      const port = await freePort();
      const child = spawn(process.execPath, [BIN, 'mcp', '--data-dir', dataDir, '--port', String(port)], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, PINCER_TOKEN: '' } });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      const lines = [
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'pipe', version: '0' } } },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'calculate', arguments: { expression: '1+1' } } },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } },
      ];
      child.stdin.end(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
      expect(await exited).toBe(0);
      const messages = stdout.trim().split('\n').map((l) => JSON.parse(l) as Json);
      // Besides the answers, a notification may come (tools/list_changed when a plugin finishes loading meanwhile).
      const answers = messages.filter((m) => 'id' in m);
      for (const note of messages.filter((m) => !('id' in m))) expect(note).toMatchObject({ jsonrpc: '2.0', method: expect.stringMatching(/^notifications\//) });
      expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3]);
      expect(answers.find((a) => a.id === 2).result.structuredContent).toMatchObject({ result: 2 });
      expect(answers.find((a) => a.id === 3).error.code).toBe(-32602);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('pincer mcp with no gateway running', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'pincer-mcp-'));
  const root = mkdtempSync(join(tmpdir(), 'pincer-mcp-root-'));
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  });

  it('starts the whole gateway on its port, whose dashboard answers the call\'s approval, and stops it with the client', async () => {
    const port = await freePort();
    const target = join(root, 'old-notes.txt');
    writeFileSync(target, 'delete me');
    const { client, transport, stderr, errors } = stdioClient(['--data-dir', dataDir, '--port', String(port)], { cwd: root, env: { PINCER_ROOTS: root } });
    await client.connect(transport).catch((error: Error) => {
      throw new Error(`${error.message}; pincer mcp said: ${stderr()}`);
    });
    const health = (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as Json;
    expect(health.status).toBe('ok');

    // file_delete asks: the call stays open until the owner answers on the dashboard of the gateway just started.
    const answer = client.callTool({ name: 'file_delete', arguments: { path: target } }, undefined, { resetTimeoutOnProgress: true, onprogress: () => undefined });
    const link = await until(() => /login link[^:]*: (http:\/\/\S+)/.exec(stderr())?.[1], 'the login link on standard error');
    const login = await fetch(link, { redirect: 'manual' });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const owner = { cookie, origin: `http://127.0.0.1:${port}` };
    const approval = await until(async () => {
      const body = (await (await fetch(`http://127.0.0.1:${port}/approvals`, { headers: owner })).json()) as Json;
      return (body.approvals as Json[]).find((a) => a.tool === 'file_delete');
    }, 'the approval');
    expect(existsSync(target)).toBe(true);
    const decided = await fetch(`http://127.0.0.1:${port}/approvals/${approval.id}`, {
      method: 'POST',
      headers: { ...owner, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'allow_once' }),
    });
    expect(decided.status).toBe(200);
    const result = (await answer) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(existsSync(target)).toBe(false);

    await client.close();
    await until(async () => {
      try {
        await fetch(`http://127.0.0.1:${port}/health`);
        return false;
      } catch {
        return true;
      }
    }, 'the gateway started for the client to stop');
    expect(errors).toEqual([]);
  });
});

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool } from '../../../server/index.js';
import { BIN } from '../../helpers/cli.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';

/**
 * `pincer mcp` (the real command) driven by the SDK 2.x stdio client pinned to 2026-07-28 and in auto mode: each
 * stateless message goes to the running gateway on its own POST with the data directory's token, progress and
 * answers come back as they arrive, and a 2025 client on the same command still opens its session.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

let tg: TestGateway;
let runs = 0;
beforeAll(async () => {
  tg = await startGateway(
    {},
    {
      extraTools: [
        defineTool({
          name: 'stdio_wait',
          description: 'Test tool: dangerous, so every call asks the owner.',
          parameters: { type: 'object', properties: {} },
          category: 'test',
          risk: 'dangerous',
          annotations: { destructiveHint: true },
          handler: () => ({ runs: (runs += 1) }),
        }),
      ],
      mcpProgressIntervalMs: 200,
    },
  );
});
afterAll(async () => {
  await tg?.close();
});

function stdioClient(mode: { pin: string } | 'auto' | undefined, name: string): { client: Client; transport: StdioClientTransport } {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--data-dir', tg.dataDir, '--port', String(tg.port)],
    env: getDefaultEnvironment(),
    stderr: 'pipe',
  });
  const client = new Client({ name, version: '1.0.0' }, mode ? ({ versionNegotiation: { mode } } as Json) : {});
  return { client, transport };
}

async function pendingApproval(tool: string): Promise<Json> {
  return until(async () => {
    const body = (await (await tg.asOwner('/approvals')).json()) as Json;
    return (body.approvals as Json[]).find((a) => a.tool === tool);
  }, `a pending approval for ${tool}`);
}

describe('pincer mcp in the 2026-07-28 revision', () => {
  it('a client pinned to 2026-07-28 lists and calls tools as the data directory\'s client', async () => {
    const { client, transport } = stdioClient({ pin: '2026-07-28' }, 'Stdio Modern');
    await client.connect(transport);
    expect(client.getProtocolEra()).toBe('modern');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('calculate');
    expect((await client.callTool({ name: 'calculate', arguments: { expression: '2**10' } })).structuredContent).toMatchObject({ result: 1024 });
    const calls = (await (await tg.api('/calls?tool=calculate')).json()) as Json;
    expect(calls.calls[0]).toMatchObject({ client: 'default', via: 'mcp (Stdio Modern)' });
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    await client.close();
  });

  it('a call waiting for the owner streams progress through the command and answers once allowed', async () => {
    const { client, transport } = stdioClient('auto', 'Stdio Auto');
    await client.connect(transport);
    expect(client.getProtocolEra()).toBe('modern');
    const progress: string[] = [];
    const call = client.callTool({ name: 'stdio_wait', arguments: {} }, { onprogress: (p: Json) => progress.push(p.message), resetTimeoutOnProgress: true } as Json);
    const approval = await pendingApproval('stdio_wait');
    await until(() => progress.length > 0, 'a progress notification through stdio');
    await tg.asOwner(`/approvals/${approval.id}`, { json: { decision: 'allow_once' } });
    expect((await call).structuredContent).toMatchObject({ runs: 1 });
    await client.close();
  });

  it('an unpinned client on the same command still opens a 2025 session', async () => {
    const { client, transport } = stdioClient(undefined, 'Stdio Legacy');
    await client.connect(transport);
    expect(client.getProtocolEra()).toBe('legacy');
    expect((await client.callTool({ name: 'calculate', arguments: { expression: '1+2' } })).structuredContent).toMatchObject({ result: 3 });
    await client.close();
  });

  it('a call waiting for the owner becomes a task through the command, polled to its result with tasks/get', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--data-dir', tg.dataDir, '--port', String(tg.port)], { stdio: ['pipe', 'pipe', 'pipe'] });
    const answers = new Map<unknown, Json>();
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const message = JSON.parse(line);
      if ('id' in message) answers.set(message.id, message);
    });
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
      'io.modelcontextprotocol/clientInfo': { name: 'Stdio Tasks', version: '1' },
    };
    const send = (message: Json) => child.stdin!.write(`${JSON.stringify(message)}\n`);
    try {
      const before = runs;
      send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'stdio_wait', arguments: {}, _meta: meta } });
      const task = (await until(() => answers.get(1), 'the task')).result;
      expect(task).toMatchObject({ resultType: 'task', status: 'working' });
      const approval = await pendingApproval('stdio_wait');
      await tg.asOwner(`/approvals/${approval.id}`, { json: { decision: 'allow_once' } });
      let id = 100;
      const done = await until(async () => {
        const asked = ++id;
        send({ jsonrpc: '2.0', id: asked, method: 'tasks/get', params: { taskId: task.taskId, _meta: meta } });
        const answer = await until(() => answers.get(asked), 'the tasks/get answer');
        return answer.result?.status === 'completed' && answer.result;
      }, 'the task to complete');
      expect(done.result.structuredContent).toMatchObject({ runs: before + 1 });
    } finally {
      child.stdin!.end();
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });
});

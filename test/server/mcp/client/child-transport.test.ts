import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { ChildStdioTransport } from '../../../../server/mcp/client/child-transport.js';

/**
 * The stdio transport to an imported server, over the pipes of a scripted server: what it reads in one chunk reaches
 * the SDK client in order, notifications included.
 */

/** A server on two pipes that answers initialize, and a tools/call with its progress and its result in one write. */
function scriptedChild() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let exit: (value: { exitCode: number | null; signal: string | null }) => void = () => undefined;
  const exited = new Promise<{ exitCode: number | null; signal: string | null }>((resolve) => (exit = resolve));
  let buffered = '';
  stdin.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
      if (message.method === 'initialize') {
        stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'scripted', version: '1' } } })}\n`);
      } else if (message.method === 'tools/call') {
        const token = message.params._meta?.progressToken;
        const lines = [0, 50, 100].map((progress) => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress, total: 100 } }));
        lines.push(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'done' }] } }));
        stdout.write(`${lines.join('\n')}\n`);
      }
    }
  });
  return {
    stdin,
    stdout,
    exited,
    stop: async () => {
      stdout.end();
      exit({ exitCode: 0, signal: null });
    },
  };
}

describe('the stdio transport to an imported server', () => {
  it('hands over every progress report read in one chunk with the result after it, before the result', async () => {
    const child = scriptedChild();
    const client = new Client({ name: 'pincer', version: '1' });
    await client.connect(new ChildStdioTransport(child));
    const progress: Progress[] = [];
    const result = await client.callTool({ name: 'count', arguments: {} }, undefined, { onprogress: (p) => void progress.push(p) });
    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(progress.map((p) => p.progress)).toEqual([0, 50, 100]);
    await client.close();
    await child.stop();
  });
});

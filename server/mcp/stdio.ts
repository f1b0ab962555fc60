import type { Readable, Writable } from 'node:stream';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface StdioBridgeOptions {
  /** The gateway's base URL (`http://127.0.0.1:7800`). */
  url: string;
  token: string;
  stdin: Readable;
  stdout: Writable;
  /** Where problems are told (standard error: standard output carries only JSON-RPC). */
  log: (line: string) => void;
}

/**
 * MCP over stdio, forwarded message by message to the gateway's Streamable HTTP endpoint with the client token:
 * the stdio client gets exactly what an HTTP client gets (the same session, identity, approvals with progress,
 * list_changed on the session's stream, cancellation). Resolves when standard input ends; the session is ended then.
 */
export async function bridgeStdio(options: StdioBridgeOptions): Promise<void> {
  const downstream = new StdioServerTransport(options.stdin, options.stdout);
  const upstream = new StreamableHTTPClientTransport(new URL('/mcp', options.url), {
    requestInit: { headers: { authorization: `Bearer ${options.token}` } },
  });
  const initializeIds = new Set<string | number>();
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  let closing = false;
  const close = async () => {
    if (closing) return;
    closing = true;
    await upstream.terminateSession().catch(() => undefined);
    await upstream.close().catch(() => undefined);
    await downstream.close().catch(() => undefined);
    finish();
  };

  downstream.onmessage = (message: JSONRPCMessage) => {
    if ('method' in message && message.method === 'initialize' && 'id' in message) initializeIds.add(message.id);
    upstream.send(message).catch((error: unknown) => {
      options.log(`pincer mcp: the gateway at ${options.url} did not take a message: ${(error as Error).message}`);
      // A request must still get an answer, or the client waits for ever.
      if ('method' in message && 'id' in message) {
        void downstream
          .send({
            jsonrpc: '2.0',
            id: message.id,
            error: { code: -32603, message: `Pincer's gateway could not be reached or refused the request: ${(error as Error).message}` },
          })
          .catch(() => undefined);
      }
    });
  };
  upstream.onmessage = (message: JSONRPCMessage) => {
    if ('id' in message && message.id !== undefined && initializeIds.delete(message.id) && 'result' in message) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') upstream.setProtocolVersion(version);
    }
    downstream.send(message).catch((error: unknown) => options.log(`pincer mcp: could not write to standard output: ${(error as Error).message}`));
  };
  upstream.onerror = (error) => options.log(`pincer mcp: ${error.message}`);
  downstream.onerror = (error) => options.log(`pincer mcp: ${error.message}`);
  options.stdin.once('end', () => void close());
  options.stdin.once('close', () => void close());

  await upstream.start();
  await downstream.start();
  return finished;
}

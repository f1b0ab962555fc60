import type { Readable, Writable } from 'node:stream';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** After standard input ends, how long answers still on their way are waited for. */
const DRAIN_MS = 30_000;

export interface StdioBridgeOptions {
  /** The gateway's base URL (`http://127.0.0.1:7800`). */
  url: string;
  token: string;
  stdin: Readable;
  stdout: Writable;
  /** Where problems are told (standard error: standard output carries only JSON-RPC). */
  log: (line: string) => void;
  /** Stops at once (a signal), without waiting for answers still on their way. */
  signal?: AbortSignal;
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
  /** Requests forwarded and not yet answered. */
  const unanswered = new Set<string | number>();
  let answered: () => void = () => undefined;
  // Messages go up in the order they came: a client that pipelines (initialize, then at once a call) must have its
  // initialize reach the gateway first. A send ends once the gateway took the request, not when it answers.
  let queue = Promise.resolve();
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  let closing = false;
  const close = async () => {
    if (closing) return;
    closing = true;
    await queue;
    // Input ended: answers still on their way are delivered first (for a while), then the session ends.
    if (unanswered.size > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, DRAIN_MS);
        answered = () => {
          if (unanswered.size > 0) return;
          clearTimeout(timer);
          resolve();
        };
      });
    }
    await upstream.terminateSession().catch(() => undefined);
    await upstream.close().catch(() => undefined);
    await downstream.close().catch(() => undefined);
    finish();
  };

  downstream.onmessage = (message: JSONRPCMessage) => {
    const isRequest = 'method' in message && 'id' in message && message.id !== undefined;
    if (isRequest && message.method === 'initialize') initializeIds.add(message.id);
    if (isRequest) unanswered.add(message.id);
    queue = queue.then(() =>
      upstream.send(message).catch((error: unknown) => {
        options.log(`pincer mcp: the gateway at ${options.url} did not take a message: ${(error as Error).message}`);
        // A request must still get an answer, or the client waits for ever.
        if (isRequest) {
          unanswered.delete(message.id);
          answered();
          void downstream
            .send({
              jsonrpc: '2.0',
              id: message.id,
              error: { code: -32603, message: `Pincer's gateway could not be reached or refused the request: ${(error as Error).message}` },
            })
            .catch(() => undefined);
        }
      }),
    );
  };
  upstream.onmessage = (message: JSONRPCMessage) => {
    if ('id' in message && message.id !== undefined && ('result' in message || 'error' in message)) {
      if (initializeIds.delete(message.id) && 'result' in message) {
        const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
        if (typeof version === 'string') upstream.setProtocolVersion(version);
      }
      unanswered.delete(message.id);
    }
    downstream
      .send(message)
      .catch((error: unknown) => options.log(`pincer mcp: could not write to standard output: ${(error as Error).message}`))
      .finally(() => answered());
  };
  upstream.onerror = (error) => options.log(`pincer mcp: ${error.message}`);
  downstream.onerror = (error) => options.log(`pincer mcp: ${error.message}`);
  options.stdin.once('end', () => void close());
  options.stdin.once('close', () => void close());
  options.signal?.addEventListener('abort', () => {
    unanswered.clear();
    answered();
    void close();
  }, { once: true });

  await upstream.start();
  await downstream.start();
  return finished;
}

import type { Readable, Writable } from 'node:stream';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * MCP's stdio transport over a process the gateway's runner already started (its own group, scrubbed environment,
 * in the ledger), instead of the SDK's, which would spawn the process itself outside that supervision.
 */
export class ChildStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #buffer = new ReadBuffer();
  #closed = false;

  constructor(
    private readonly stdin: Writable,
    private readonly stdout: Readable,
    private readonly exited: Promise<unknown>,
  ) {}

  async start(): Promise<void> {
    this.stdout.on('data', (chunk: Buffer) => {
      try {
        this.#buffer.append(chunk);
      } catch (error) {
        this.onerror?.(error as Error);
        return;
      }
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.#buffer.readMessage();
        } catch (error) {
          // A line that is not JSON-RPC (a server that logs to stdout): reported, skipped.
          this.onerror?.(error as Error);
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
    this.stdin.on('error', (error: Error) => this.onerror?.(error));
    void this.exited.then(() => this.#close());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) throw new Error('the MCP server process has exited');
    await new Promise<void>((resolve, reject) => {
      this.stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  async close(): Promise<void> {
    this.stdin.end();
    this.#close();
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}

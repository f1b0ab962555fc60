import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ChildHandle } from '../../process/index.js';
import { MAX_MESSAGE_BYTES, readLines } from '../../util/lines.js';

/**
 * MCP's stdio transport over a process the gateway's runner already started (its own group, scrubbed environment,
 * in the ledger), instead of the SDK's, which would spawn the process itself outside that supervision. Messages are
 * read with a cap that applies while reading: a server that writes a message past it without a line break is ended
 * (its supervisor restarts it with backoff), and `failure` says why.
 */
export class ChildStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #closed = false;
  #failure: string | undefined;
  /**
   * Messages are handed over one microtask apart. The SDK runs a notification's handler a microtask late but takes
   * an answer at once, so a server's last progress report, read in one chunk with the answer after it, would
   * otherwise reach a request already answered and be dropped.
   */
  #delivered: Promise<void> = Promise.resolve();

  constructor(
    private readonly child: Pick<ChildHandle, 'stdin' | 'stdout' | 'exited' | 'stop'>,
    private readonly maxMessageBytes = MAX_MESSAGE_BYTES,
  ) {}

  /** Why the transport ended the server's process, if it did. */
  get failure(): string | undefined {
    return this.#failure;
  }

  async start(): Promise<void> {
    readLines(this.child.stdout, {
      maxLineBytes: this.maxMessageBytes,
      onLine: (line) => {
        if (line.trim() === '') return;
        let message: JSONRPCMessage;
        try {
          message = deserializeMessage(line);
        } catch (error) {
          // A line that is not JSON-RPC (a server that logs to stdout): reported, skipped.
          this.onerror?.(error as Error);
          return;
        }
        this.#delivered = this.#delivered.then(() => this.onmessage?.(message)).catch((error: unknown) => this.onerror?.(error as Error));
      },
      onOverflow: (why) => {
        // Security: a message that never ends is cut off, not buffered until the gateway runs out of memory.
        this.#failure = why;
        this.onerror?.(new Error(`the MCP server ${why}; Pincer ended it`));
        void this.child.stop(0);
      },
    });
    this.child.stdin.on('error', (error: Error) => this.onerror?.(error));
    void this.child.exited.then(() => this.#close());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) throw new Error('the MCP server process has exited');
    await new Promise<void>((resolve, reject) => {
      this.child.stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    this.#close();
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}

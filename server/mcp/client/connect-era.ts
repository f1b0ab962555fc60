import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerEntry } from './entry.js';
import { discoverStateless, StatelessClientTransport, StatelessHttpConnection } from './stateless-transport.js';

/** How long a server that refused the handshake gets to answer `server/discover`. */
const DISCOVER_TIMEOUT_MS = 10_000;
/** The SDK's codes for "no answer came" (timeout, connection closed): such a server is not asked again. */
const NO_ANSWER_CODES = new Set([-32001, -32000]);

/**
 * Connects to an imported server in the era it speaks: the 2025 handshake first (what nearly every server speaks
 * today); a server that answers it with a refusal and answers `server/discover` for 2026-07-28 is then spoken to in
 * the stateless revision, through the same client (its handlers stay as they were set) and, over stdio, the same
 * process (a stateless server keeps its connection open for a modern opening).
 */
export async function connectEitherEra(client: Client, transport: Transport, entry: McpServerEntry, timeoutMs: number): Promise<void> {
  const held = entry.kind === 'stdio' ? new HeldOpen(transport) : undefined;
  try {
    await client.connect(held ?? transport, { timeout: timeoutMs });
    held?.release();
  } catch (error) {
    const connection = entry.kind === 'http' ? new StatelessHttpConnection(new URL(entry.url), entry.token ? { authorization: `Bearer ${entry.token}` } : {}) : transport;
    const refused = entry.kind === 'http' || !NO_ANSWER_CODES.has((error as { code?: unknown }).code as number);
    const discovered = refused && !held?.gone ? await discoverStateless(connection, AbortSignal.timeout(Math.min(timeoutMs, DISCOVER_TIMEOUT_MS))) : undefined;
    if (!discovered) {
      if (held) await transport.close().catch(() => undefined);
      throw error;
    }
    await client.close().catch(() => undefined);
    await client.connect(new StatelessClientTransport(connection, discovered), { timeout: timeoutMs });
  }
}

/**
 * A stdio connection lent to the handshake: if the client gives up on it (the server refused `initialize`), the
 * process and its pipes stay open for the stateless revision's opening instead of being closed with the client.
 */
class HeldOpen implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #holding = true;
  /** The connection itself closed (the process exited): there is nothing left to try. */
  gone = false;

  constructor(private readonly inner: Transport) {}

  /** The handshake succeeded: from now on, closing this closes the connection. */
  release(): void {
    this.#holding = false;
  }

  async start(): Promise<void> {
    this.inner.onmessage = (message) => this.onmessage?.(message);
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onclose = () => {
      this.gone = true;
      this.onclose?.();
    };
    await this.inner.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.inner.send(message);
  }

  async close(): Promise<void> {
    if (!this.#holding) return this.inner.close();
    // Only the client lets go; the stateless attempt, or the caller, closes the connection itself.
    this.#holding = false;
    const onclose = this.onclose;
    this.onclose = undefined;
    onclose?.();
  }
}

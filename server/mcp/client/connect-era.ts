import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerEntry } from './entry.js';
import { discoverStateless, StatelessClientTransport } from './stateless-transport.js';

/**
 * Connects to an imported server in the era it speaks: the 2025 handshake first (what nearly every server speaks
 * today); a Streamable HTTP server that refuses it and answers `server/discover` for 2026-07-28 is then spoken to
 * in the stateless revision, through the same client (its handlers stay as they were set).
 */
export async function connectEitherEra(client: Client, transport: Transport, entry: McpServerEntry, timeoutMs: number): Promise<void> {
  try {
    await client.connect(transport, { timeout: timeoutMs });
  } catch (error) {
    if (entry.kind !== 'http') throw error;
    const url = new URL(entry.url);
    const headers: Record<string, string> = entry.token ? { authorization: `Bearer ${entry.token}` } : {};
    const discovered = await discoverStateless(url, headers, AbortSignal.timeout(timeoutMs));
    if (!discovered) throw error;
    await client.close().catch(() => undefined);
    await client.connect(new StatelessClientTransport(url, headers, discovered), { timeout: timeoutMs });
  }
}

import { isPlainObject } from '../util/json.js';

/**
 * The two eras of MCP that Pincer speaks: the 2025 handshake (initialize, then a session id) and the stateless
 * protocol of 2026-07-28 (no handshake; every request carries its protocol version and the client's capabilities in
 * `_meta`). Kept free of the SDK so the route can tell them apart without loading it.
 */

/** The stateless revisions Pincer speaks. */
export const STATELESS_PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28'];

/** The newest revision of the handshake era; anything later is a stateless one. */
const LAST_HANDSHAKE_REVISION = '2025-11-25';

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/**
 * Whether a POST without a session id belongs to the stateless era: its body claims a protocol version in `_meta`
 * (a batch holding such a message included, to be refused as the era requires), or its `MCP-Protocol-Version` header
 * names a revision after the handshake era. Revision names are dates, so they compare as strings.
 */
export function claimsStatelessEra(header: string | string[] | undefined, body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.some((m) => envelopeVersion(m) !== undefined)) return true;
  return typeof header === 'string' && header > LAST_HANDSHAKE_REVISION;
}

/** What a message's `params._meta` says its protocol version is (undefined: it claims none). */
export function envelopeVersion(message: unknown): unknown {
  const params = isPlainObject(message) ? message.params : undefined;
  const meta = isPlainObject(params) ? params._meta : undefined;
  return isPlainObject(meta) && Object.hasOwn(meta, META_PROTOCOL_VERSION) ? meta[META_PROTOCOL_VERSION] : undefined;
}

/** The body field the `Mcp-Name` header mirrors, by method (so intermediaries can route without reading the body). */
const NAME_HEADER_SOURCE: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

export function nameHeaderSource(method: string): string | undefined {
  return Object.hasOwn(NAME_HEADER_SOURCE, method) ? NAME_HEADER_SOURCE[method] : undefined;
}

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, JSONRPCRequest, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION, META_SERVER_INFO, STATELESS_PROTOCOL_VERSIONS } from '../era.js';
import { isPlainObject } from '../../util/json.js';
import { postStateless } from './stateless-post.js';

/** What a server of the stateless revision says of itself in `server/discover`. */
export interface Discovered {
  version: string;
  capabilities: Record<string, unknown>;
  serverInfo: { name: string; version: string };
  instructions?: string;
}

/**
 * Asks a server over an open connection (started, nothing else listening on it) whether it speaks the stateless
 * revision (`server/discover`). Undefined when it does not (a server of the handshake era refuses a request before
 * `initialize`, or knows no such method), or does not answer in time.
 */
export async function discoverStateless(connection: Transport, signal: AbortSignal): Promise<Discovered | undefined> {
  const version = STATELESS_PROTOCOL_VERSIONS[0]!;
  const id = 'pincer-discover';
  const answer = await new Promise<JSONRPCMessage | undefined>((resolve) => {
    const give = (message: JSONRPCMessage | undefined) => {
      signal.removeEventListener('abort', onAbort);
      connection.onmessage = undefined;
      resolve(message);
    };
    const onAbort = () => give(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    connection.onmessage = (message) => {
      if ('id' in message && message.id === id && ('result' in message || 'error' in message)) give(message);
    };
    connection
      .send({ jsonrpc: '2.0', id, method: 'server/discover', params: { _meta: envelope(version, {}, { name: 'pincer', version: '0' }) } })
      .catch(() => give(undefined));
  });
  const result = answer && 'result' in answer ? (answer.result as Record<string, unknown>) : undefined;
  const supported = Array.isArray(result?.supportedVersions) ? (result.supportedVersions as unknown[]) : [];
  const spoken = STATELESS_PROTOCOL_VERSIONS.find((v) => supported.includes(v));
  if (!result || !spoken) return undefined;
  const info = isPlainObject(result._meta) && isPlainObject(result._meta[META_SERVER_INFO]) ? result._meta[META_SERVER_INFO] : {};
  return {
    version: spoken,
    capabilities: isPlainObject(result.capabilities) ? result.capabilities : {},
    serverInfo: { name: typeof info.name === 'string' ? info.name : 'unknown', version: typeof info.version === 'string' ? info.version : '0' },
    ...(typeof result.instructions === 'string' && { instructions: result.instructions }),
  };
}

/**
 * A server of the stateless revision, as the SDK's handshake-era `Client` expects a server to be: `initialize` is
 * answered here from what `server/discover` said, and every later request goes out over `connection` (stdio, or one
 * POST per message) with the protocol version, the client's capabilities and its identity in `_meta`. Results lose
 * the revision's framing (`resultType`); a result the handshake era cannot carry (a task, a request for input) is
 * an error. `connection` is already started.
 */
export class StatelessClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #capabilities: Record<string, unknown> = {};
  #clientInfo: Record<string, unknown> = { name: 'pincer', version: '0' };

  constructor(
    private readonly connection: Transport,
    private readonly discovered: Discovered,
  ) {}

  async start(): Promise<void> {
    this.connection.onmessage = (message) => this.onmessage?.(unframe(message));
    this.connection.onclose = () => this.onclose?.();
    this.connection.onerror = (error) => this.onerror?.(error);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const method = 'method' in message ? message.method : undefined;
    const id = 'id' in message ? message.id : undefined;
    if (method === 'initialize' && id !== undefined) return this.#initialize(message as JSONRPCRequest);
    // The revision has no handshake to finish and no ping: answered here, as a server of the old era would.
    if (method === 'notifications/initialized') return;
    if (method === 'ping' && id !== undefined) return this.#deliver({ jsonrpc: '2.0', id, result: {} });
    if (method === undefined) return; // An answer to a server request: the revision sends none.
    await this.connection.send(this.#frame(message));
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  #initialize(request: JSONRPCRequest): void {
    const params = request.params ?? {};
    if (isPlainObject(params.capabilities)) this.#capabilities = params.capabilities;
    if (isPlainObject(params.clientInfo)) this.#clientInfo = params.clientInfo;
    const { extensions: _extensions, ...capabilities } = this.discovered.capabilities;
    this.#deliver({
      jsonrpc: '2.0',
      id: request.id,
      result: {
        // The client's own version: what it speaks to us; what we speak to the server is the revision discovered.
        protocolVersion: typeof params.protocolVersion === 'string' ? params.protocolVersion : '2025-11-25',
        capabilities,
        serverInfo: this.discovered.serverInfo,
        ...(this.discovered.instructions !== undefined && { instructions: this.discovered.instructions }),
      },
    });
  }

  #frame(message: JSONRPCMessage): JSONRPCMessage {
    const params = isPlainObject((message as { params?: unknown }).params) ? (message as { params: Record<string, unknown> }).params : {};
    const meta = isPlainObject(params._meta) ? params._meta : {};
    return { ...message, params: { ...params, _meta: { ...meta, ...envelope(this.discovered.version, this.#capabilities, this.#clientInfo) } } } as JSONRPCMessage;
  }

  #deliver(message: JSONRPCMessage): void {
    queueMicrotask(() => this.onmessage?.(message));
  }
}

/**
 * The stateless revision over Streamable HTTP: each message on its own POST (`postStateless`), its answer handed on
 * as it arrives. Cancelling a request hangs up on its POST, which is how the revision cancels over HTTP.
 */
export class StatelessHttpConnection implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #inFlight = new Map<RequestId, AbortController>();
  #closed = false;

  constructor(
    private readonly url: URL,
    private readonly headers: Readonly<Record<string, string>>,
  ) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) throw new Error('the connection to the server is closed');
    const id = 'id' in message && 'method' in message ? message.id : undefined;
    if ('method' in message && message.method === 'notifications/cancelled') {
      const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (requestId !== undefined) this.#inFlight.get(requestId)?.abort();
      return;
    }
    if (id === undefined) {
      void postStateless(this.url, this.headers, message, () => undefined).catch((error: Error) => this.onerror?.(error));
      return;
    }
    const controller = new AbortController();
    this.#inFlight.set(id, controller);
    void postStateless(this.url, this.headers, message, (answer) => this.onmessage?.(answer), controller.signal)
      .catch((error: Error) => {
        if (controller.signal.aborted) return;
        this.onmessage?.({ jsonrpc: '2.0', id, error: { code: -32603, message: `the request to the server failed: ${error.message}` } });
      })
      .finally(() => {
        if (this.#inFlight.get(id) === controller) this.#inFlight.delete(id);
      });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const controller of this.#inFlight.values()) controller.abort();
    this.#inFlight.clear();
    this.onclose?.();
  }
}

function envelope(version: string, capabilities: Record<string, unknown>, clientInfo: Record<string, unknown>): Record<string, unknown> {
  return { [META_PROTOCOL_VERSION]: version, [META_CLIENT_CAPABILITIES]: capabilities, [META_CLIENT_INFO]: clientInfo };
}

/** A result without the revision's framing; one the handshake era cannot carry becomes an error saying so. */
function unframe(message: JSONRPCMessage): JSONRPCMessage {
  if (!('result' in message) || !isPlainObject(message.result)) return message;
  const { resultType, ...result } = message.result as Record<string, unknown>;
  if (resultType !== undefined && resultType !== 'complete') {
    return { jsonrpc: '2.0', id: message.id, error: { code: -32603, message: `the server answered with a "${String(resultType)}" result, which Pincer cannot take from an imported server yet` } };
  }
  return { ...message, result } as JSONRPCMessage;
}

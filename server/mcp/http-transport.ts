import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CancelledNotificationSchema,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

/** Comments on a stream that keep proxies and idle timers (a fetch's headers timeout, too) from closing a quiet one. */
const KEEPALIVE_MS = 25_000;

/**
 * The most messages one POST may carry (older protocol versions allowed batches). Security: a batch's calls run at
 * once and answer together, so 100 heavy calls in one request held every caller for seconds; 16 is more than the
 * clients that still batch send.
 */
const MAX_BATCH = 16;

/** What the client said it takes (Accept). */
export interface Accepts {
  json: boolean;
  sse: boolean;
}

/**
 * One session of MCP's Streamable HTTP transport, for the SDK's `Server`. Unlike the SDK's transport, which answers
 * every POST one way for the whole session, each POST's answer is chosen when its first message is ready: plain JSON
 * when the answer is all there is (initialize, tools/list, a quick call), an SSE stream when something must reach the
 * client before it (the progress notifications of a call waiting for the owner). Both are the protocol's; a client
 * must take either.
 *
 * Host, Origin, token and body checks happen before: the route hands over parsed JSON of a session it has matched to
 * its identity.
 */
export class StreamableHttpSession implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The client cancelled one of its requests in flight (notifications/cancelled): its work should stop. */
  onrequestcancelled?: (id: RequestId) => void;
  #initialized = false;
  /** The id of the initialize request while it is being answered. */
  #initializeId: RequestId | undefined;
  #closed = false;
  /** The POST answering each of the client's requests still in flight. */
  readonly #exchanges = new Map<RequestId, Exchange>();
  #stream: { res: ServerResponse; keepalive: NodeJS.Timeout } | undefined;

  /**
   * @param streamAfterMs An answer still not ready after this long (a call waiting for the owner, a long command)
   *   becomes a stream, if the client takes one, so keepalive comments can flow while it waits.
   */
  constructor(
    readonly sessionId: string,
    private readonly streamAfterMs: number,
  ) {}

  /** Whether its initialize request was taken (a session whose first POST was refused is never kept). */
  get initialized(): boolean {
    return this.#initialized;
  }

  async start(): Promise<void> {}

  /** A POST: one JSON-RPC message (or, from older clients, a batch), already parsed. */
  post(req: IncomingMessage, res: ServerResponse, body: unknown): void {
    const accepts = accepted(req.headers.accept);
    if (!accepts.json && !accepts.sse) {
      return reject(res, 406, 'Not Acceptable: send "Accept: application/json, text/event-stream".', this.#idShown());
    }
    if (!isJsonContentType(req.headers['content-type'])) {
      return reject(res, 415, 'Unsupported Media Type: the body must be sent as "Content-Type: application/json".', this.#idShown());
    }
    const raw = Array.isArray(body) ? body : [body];
    if (raw.length === 0 || raw.length > MAX_BATCH) {
      return reject(res, 400, `Invalid Request: send one JSON-RPC message (a batch may hold 1 to ${MAX_BATCH}).`, this.#idShown(), -32600);
    }
    const messages: JSONRPCMessage[] = [];
    for (const [index, message] of raw.entries()) {
      const parsed = JSONRPCMessageSchema.safeParse(message);
      if (!parsed.success) {
        const where = raw.length > 1 ? ` (message ${index + 1} of the batch)` : '';
        return reject(res, 400, `Invalid Request${where}: not a JSON-RPC 2.0 request, notification or response.`, this.#idShown(), -32600);
      }
      messages.push(parsed.data);
    }
    const initializing = messages.some((m) => isJSONRPCRequest(m) && m.method === 'initialize');
    if (initializing) {
      if (this.#initialized) return reject(res, 400, 'Invalid Request: this session is already initialized.', this.#idShown(), -32600);
      if (messages.length > 1) return reject(res, 400, 'Invalid Request: initialize must be sent alone.', this.#idShown(), -32600);
      this.#initialized = true;
      this.#initializeId = (messages[0] as { id?: RequestId }).id;
    } else {
      const problem = this.#versionProblem(req);
      if (problem) return reject(res, 400, problem, this.#idShown());
    }
    const requests = messages.filter(isJSONRPCRequest);
    // Two requests with one id in a batch: their answers cannot be told apart, and the POST would wait forever for
    // the one whose answer the other already took.
    const twice = requests.find((r, i) => requests.findIndex((other) => other.id === r.id) !== i);
    if (twice) return reject(res, 400, `Invalid Request: request id ${JSON.stringify(twice.id)} appears twice in the batch.`, this.#idShown(), -32600);
    if (requests.length === 0) {
      // Notifications and the client's answers to our requests: accepted, nothing to answer.
      res.writeHead(202, { 'mcp-session-id': this.sessionId }).end();
    } else {
      const clash = requests.find((r) => this.#exchanges.has(r.id));
      if (clash) return reject(res, 400, `Invalid Request: request id ${JSON.stringify(clash.id)} is still in flight in this session.`, this.#idShown(), -32600);
      const exchange = new Exchange(res, this.sessionId, accepts, requests.map((r) => r.id), Array.isArray(body), this.streamAfterMs);
      for (const request of requests) this.#exchanges.set(request.id, exchange);
      res.once('close', () => {
        exchange.stopTimers();
        for (const request of requests) if (this.#exchanges.get(request.id) === exchange) this.#exchanges.delete(request.id);
      });
    }
    for (const message of messages) this.onmessage?.(message);
    for (const message of messages) this.#endCancelled(message);
  }

  /**
   * A request the client cancelled gets no answer (MCP: the receiver does not respond to a cancelled request), so
   * its POST would otherwise stay open, with its keepalive timer, for as long as the client keeps the connection.
   */
  #endCancelled(message: JSONRPCMessage): void {
    if (!isJSONRPCNotification(message) || message.method !== 'notifications/cancelled') return;
    const cancelled = CancelledNotificationSchema.safeParse(message);
    const id = cancelled.success ? cancelled.data.params.requestId : undefined;
    const exchange = id === undefined ? undefined : this.#exchanges.get(id);
    if (!exchange || id === undefined) return;
    this.#exchanges.delete(id);
    exchange.withdraw(id);
    // The SDK ignores a cancel whose id is falsy (0, ""): the owner of the work is told here too.
    this.onrequestcancelled?.(id);
  }

  /** Whether a request with this id is waiting for its answer in this session. */
  inFlight(id: RequestId): boolean {
    return this.#exchanges.has(id);
  }

  /** A GET: the stream of messages not tied to a request (tools/list_changed). One per session. */
  get(req: IncomingMessage, res: ServerResponse): void {
    if (!accepted(req.headers.accept).sse) return reject(res, 406, 'Not Acceptable: the notification stream needs "Accept: text/event-stream".', this.#idShown());
    const problem = this.#versionProblem(req);
    if (problem) return reject(res, 400, problem, this.#idShown());
    if (this.#stream) return reject(res, 409, 'Conflict: this session already has its notification stream open.', this.#idShown());
    startStream(res, this.sessionId);
    const stream = { res, keepalive: keepAlive(res) };
    this.#stream = stream;
    res.once('close', () => {
      clearInterval(stream.keepalive);
      if (this.#stream === stream) this.#stream = undefined;
    });
  }

  /** A DELETE: the client ends the session. */
  async delete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const problem = this.#versionProblem(req);
    if (problem) return reject(res, 400, problem, this.#idShown());
    await this.close();
    res.writeHead(200, { 'mcp-session-id': this.sessionId }).end();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.#closed) return;
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      // Its POST is gone (the client hung up): there is no one to give the answer to.
      const exchange = message.id === undefined ? undefined : this.#exchanges.get(message.id);
      if (!exchange || message.id === undefined) return;
      this.#exchanges.delete(message.id);
      exchange.answer(message);
      if (message.id === this.#initializeId) {
        this.#initializeId = undefined;
        // A refused initialize (bad params) opens no session: it would only count against the token's cap.
        if (isJSONRPCErrorResponse(message)) await this.close();
      }
      return;
    }
    const related = options?.relatedRequestId !== undefined ? this.#exchanges.get(options.relatedRequestId) : undefined;
    if (related?.carry(message)) return;
    // Not about a request, or its POST cannot stream: the session's own stream, if the client keeps one open.
    if (this.#stream) writeEvent(this.#stream.res, message);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const exchanges = new Set(this.#exchanges.values());
    this.#exchanges.clear();
    for (const exchange of exchanges) exchange.abandon('The MCP session was closed before the answer was ready; start a new session and try again.');
    if (this.#stream) {
      clearInterval(this.#stream.keepalive);
      this.#stream.res.end();
      this.#stream = undefined;
    }
    this.onclose?.();
  }

  /** The session id for a refusal's header: none before initialize was taken (there is no session to name yet). */
  #idShown(): string | undefined {
    return this.#initialized ? this.sessionId : undefined;
  }

  /** A version the session cannot speak in MCP-Protocol-Version (absent: the one agreed at initialize). */
  #versionProblem(req: IncomingMessage): string | undefined {
    const version = req.headers['mcp-protocol-version'];
    if (version === undefined || (typeof version === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(version))) return undefined;
    return `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version)} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}).`;
  }
}

/**
 * The answer of one POST: undecided until its first message is ready, then JSON or an SSE stream. Shared by the
 * sessions and by the stateless protocol (no session id: no session header).
 */
export class Exchange {
  #mode: 'undecided' | 'json' | 'sse' = 'undecided';
  readonly #answers = new Map<RequestId, JSONRPCMessage>();
  /** The requests still to be answered in this POST, in the order they came (cancelled ones are taken out). */
  readonly #ids: RequestId[];
  #streamLater: NodeJS.Timeout | undefined;
  #keepalive: NodeJS.Timeout | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly sessionId: string | undefined,
    private readonly accepts: Accepts,
    ids: readonly RequestId[],
    /** The client sent a batch (an array): the answer is an array too, even of one (JSON-RPC 2.0). */
    private readonly batch: boolean,
    streamAfterMs: number,
  ) {
    this.#ids = [...ids];
    // A client that takes only streams gets one at once: nothing is gained by holding back its headers.
    if (!accepts.json) this.#stream();
    else if (accepts.sse) {
      this.#streamLater = setTimeout(() => this.#stream(), streamAfterMs);
      this.#streamLater.unref();
    }
  }

  /** A message about one of its requests (progress): sent if the client takes a stream; true when sent. */
  carry(message: JSONRPCMessage): boolean {
    if (this.#mode === 'undecided' && this.accepts.sse) this.#stream();
    if (this.#mode !== 'sse') return false;
    writeEvent(this.res, message);
    return true;
  }

  answer(message: JSONRPCMessage): void {
    if (this.#mode === 'sse') writeEvent(this.res, message);
    this.#answers.set(idOf(message), message);
    this.#finishIfDone();
  }

  /** A request the client cancelled: it will not be answered, and the POST no longer waits for it. */
  withdraw(id: RequestId): void {
    const index = this.#ids.indexOf(id);
    if (index < 0 || this.#answers.has(id)) return;
    this.#ids.splice(index, 1);
    this.#finishIfDone();
  }

  #finishIfDone(): void {
    if (this.#ids.some((id) => !this.#answers.has(id))) return;
    this.stopTimers();
    if (this.#mode === 'sse') return void this.res.end();
    if (this.#ids.length === 0) {
      // Every request of the POST was cancelled: nothing to answer, as for a POST of notifications.
      this.res.writeHead(202, sessionHeader(this.sessionId)).end();
      return;
    }
    this.#mode = 'json';
    const answers = this.#ids.map((id) => this.#answers.get(id)!);
    const body = JSON.stringify(this.batch ? answers : answers[0]);
    this.res.writeHead(200, { 'content-type': 'application/json', ...sessionHeader(this.sessionId) }).end(body);
  }

  stopTimers(): void {
    clearTimeout(this.#streamLater);
    clearInterval(this.#keepalive);
  }

  #stream(): void {
    if (this.#mode !== 'undecided' || this.res.writableEnded) return;
    this.#mode = 'sse';
    clearTimeout(this.#streamLater);
    startStream(this.res, this.sessionId);
    this.#keepalive = keepAlive(this.res);
  }

  /** Ends the exchange with an error for every request not yet answered. */
  abandon(reason: string): void {
    for (const id of [...this.#ids]) {
      if (this.#answers.has(id)) continue;
      this.answer({ jsonrpc: '2.0', id, error: { code: -32000, message: reason } });
    }
  }
}

function idOf(message: JSONRPCMessage): RequestId {
  return (message as { id: RequestId }).id;
}

function sessionHeader(sessionId: string | undefined): Record<string, string> {
  return sessionId === undefined ? {} : { 'mcp-session-id': sessionId };
}

function startStream(res: ServerResponse, sessionId: string | undefined): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    ...sessionHeader(sessionId),
  });
  res.flushHeaders();
}

function keepAlive(res: ServerResponse): NodeJS.Timeout {
  const timer = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  timer.unref();
  return timer;
}

function writeEvent(res: ServerResponse, message: JSONRPCMessage): void {
  if (!res.writableEnded) res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

export function reject(res: ServerResponse, status: number, message: string, sessionId?: string, code = -32000): void {
  res
    .writeHead(status, { 'content-type': 'application/json', ...(sessionId && { 'mcp-session-id': sessionId }) })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/**
 * Which of the two answers an Accept header takes (without one, the client takes either). As HTTP reads it: the most
 * specific range that matches decides (the exact type, then `type/*`, then any type), and `q=0` means "not this":
 * `application/json;q=0` next to any type refuses JSON.
 */
export function accepted(header: string | undefined): Accepts {
  if (header === undefined || header.trim() === '') return { json: true, sse: true };
  const ranges = header.split(',').map((part) => {
    const [range, ...params] = part.split(';');
    const q = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    return { range: range!.trim().toLowerCase(), q: Number.isFinite(weight) ? weight : 1 };
  });
  const takes = (type: string): boolean => {
    const [major] = type.split('/');
    for (const range of [type, `${major}/*`, '*/*']) {
      const matching = ranges.filter((r) => r.range === range);
      if (matching.length > 0) return matching.some((r) => r.q > 0);
    }
    return false;
  };
  return { json: takes('application/json'), sse: takes('text/event-stream') };
}

export function isJsonContentType(header: string | undefined): boolean {
  return header?.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

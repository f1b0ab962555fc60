import type { Readable, Writable } from 'node:stream';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage, JSONRPCRequest, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { StatelessRelay } from './stdio-stateless.js';

/** After standard input ends, how long answers still on their way are waited for. */
const DRAIN_MS = 30_000;
/** Waits between attempts to reach a gateway that is restarting (about 15 s in all). */
const RECONNECT_WAITS_MS = [250, 500, 1_000, 2_000, 4_000, 8_000];
/** How long the gateway may take to answer the initialize the bridge repeats for a new session. */
const RENEW_TIMEOUT_MS = 30_000;

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
  /** Waits between attempts to reach a restarting gateway (tests set short ones). */
  reconnectWaitsMs?: readonly number[];
}

/**
 * MCP over stdio, forwarded message by message to the gateway's Streamable HTTP endpoint with the client token:
 * the stdio client gets exactly what an HTTP client gets (the same session, identity, approvals with progress,
 * list_changed on the session's stream, cancellation). Resolves when standard input ends; the session is ended then.
 *
 * An editor starts this once and keeps it for hours, while the gateway (the desktop app) may restart: when the
 * gateway no longer knows the session, or is briefly unreachable, the bridge opens a new session with the client's
 * own initialize, tells the client its tools may have changed, and sends the message again. Calls that were running
 * when the gateway went away are answered with an error saying so, rather than left waiting.
 */
export async function bridgeStdio(options: StdioBridgeOptions): Promise<void> {
  return new StdioBridge(options).run();
}

/** One bridge's state: the client's session setup, the requests in flight, the gateway session it talks to. */
class StdioBridge {
  readonly #options: StdioBridgeOptions;
  readonly #downstream: StdioServerTransport;
  readonly #waits: readonly number[];
  /** Requests forwarded and not yet answered. */
  readonly #unanswered = new Set<RequestId>();
  /** Requests whose POST has not finished (with a JSON answer it finishes only with the answer). */
  readonly #sending = new Set<RequestId>();
  #answered: () => void = () => undefined;
  /** The client's initialize and its initialized notification, repeated to open a new session after a restart. */
  #initializeRequest: JSONRPCRequest | undefined;
  #initializedNotice: JSONRPCMessage | undefined;
  readonly #initializeIds = new Set<RequestId>();
  /** Answers to the bridge's own requests (the repeated initialize), kept from the client. */
  readonly #internal = new Map<RequestId, (message: JSONRPCMessage) => void>();
  #renewals = 0;
  #upstream: StreamableHTTPClientTransport;
  #renewing: Promise<void> | undefined;
  // The session is set up in order (initialize answered, then initialized sent) before anything else goes up. After
  // that, messages go up as they come, each on its own: a slow call must not hold back the next request, nor the
  // client's cancellation of it.
  #setup = Promise.resolve();
  readonly #inFlight = new Set<Promise<void>>();
  /** A client of the 2026-07-28 revision sends no initialize: its messages go up one POST each, outside any session. */
  readonly #stateless: StatelessRelay;
  #closing = false;
  #finish!: () => void;
  readonly #finished = new Promise<void>((resolve) => (this.#finish = resolve));

  constructor(options: StdioBridgeOptions) {
    this.#options = options;
    this.#downstream = new StdioServerTransport(options.stdin, options.stdout);
    this.#waits = options.reconnectWaitsMs ?? RECONNECT_WAITS_MS;
    this.#upstream = this.#open();
    this.#stateless = new StatelessRelay(new URL('/mcp', options.url), options.token, (message) => void this.#toClient(message));
  }

  /** Starts both sides; resolves once standard input has ended and the session is closed. */
  async run(): Promise<void> {
    const { stdin, signal, log } = this.#options;
    this.#downstream.onmessage = (message: JSONRPCMessage) => this.#fromClient(message);
    this.#downstream.onerror = (error) => log(`pincer mcp: ${error.message}`);
    stdin.once('end', () => void this.#close());
    stdin.once('close', () => void this.#close());
    signal?.addEventListener('abort', () => this.#abort(), { once: true });
    await this.#upstream.start();
    await this.#downstream.start();
    return this.#finished;
  }

  #toClient(message: JSONRPCMessage): Promise<void> {
    return this.#downstream
      .send(message)
      .catch((error: unknown) => this.#options.log(`pincer mcp: could not write to standard output: ${(error as Error).message}`))
      .finally(() => this.#answered());
  }

  #answerWithError(id: RequestId, message: string): void {
    if (!this.#unanswered.delete(id)) return;
    void this.#toClient({ jsonrpc: '2.0', id, error: { code: -32603, message } });
  }

  /** A transport to the gateway's /mcp with the client's token; what it hears goes to the client. */
  #open(): StreamableHTTPClientTransport {
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', this.#options.url), {
      requestInit: { headers: { authorization: `Bearer ${this.#options.token}` } },
    });
    transport.onmessage = (message: JSONRPCMessage) => this.#fromGateway(transport, message);
    transport.onerror = (error) => {
      if (transport === this.#upstream) this.#options.log(`pincer mcp: ${error.message}`);
    };
    return transport;
  }

  /** An answer goes to the client once (unless the bridge asked); other messages only from the current session. */
  #fromGateway(transport: StreamableHTTPClientTransport, message: JSONRPCMessage): void {
    if ('id' in message && message.id !== undefined && ('result' in message || 'error' in message)) {
      const mine = this.#internal.get(message.id);
      if (mine) return mine(message);
      // Already answered (told the gateway restarted): one answer per request.
      if (!this.#unanswered.delete(message.id)) return;
      if (this.#initializeIds.delete(message.id) && 'result' in message) {
        const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
        if (typeof version === 'string') transport.setProtocolVersion(version);
      }
      return void this.#toClient(message);
    }
    // Notifications and requests of a session given up are not the client's business any more.
    if (transport === this.#upstream) void this.#toClient(message);
  }

  /** A new session on the gateway, set up as the client set up the first one (one renewal at a time). */
  #renew(): Promise<void> {
    this.#renewing ??= this.#openNewSession().finally(() => (this.#renewing = undefined));
    return this.#renewing;
  }

  async #openNewSession(): Promise<void> {
    const stale = this.#upstream;
    this.#upstream = this.#open();
    void stale.close().catch(() => undefined);
    // What the old session took and was still answering on its stream will not be answered now. (A request still
    // being sent settles by itself: sent again if the gateway never got it, answered with the error otherwise.)
    for (const id of [...this.#unanswered]) {
      if (!this.#sending.has(id)) this.#answerWithError(id, 'Pincer\'s gateway restarted while this request was running; send it again.');
    }
    await this.#upstream.start();
    await this.#initialize(this.#upstream);
    this.#options.log('pincer mcp: the gateway restarted; opened a new session with it');
    // Its tools may have changed while it was away.
    void this.#toClient({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  }

  /** Repeats the client's initialize (under the bridge's own id) and initialized notice on a new session. */
  async #initialize(upstream: StreamableHTTPClientTransport): Promise<void> {
    const id = `pincer-mcp-renew-${++this.#renewals}`;
    const answer = new Promise<JSONRPCMessage>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the gateway did not answer initialize')), RENEW_TIMEOUT_MS);
      this.#internal.set(id, (message) => {
        clearTimeout(timer);
        resolve(message);
      });
    });
    try {
      await upstream.send({ ...this.#initializeRequest!, id });
      const reply = await answer;
      if (!('result' in reply)) throw new Error('the gateway refused initialize');
      const version = (reply.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') upstream.setProtocolVersion(version);
      await upstream.send(this.#initializedNotice ?? { jsonrpc: '2.0', method: 'notifications/initialized' });
    } finally {
      this.#internal.delete(id);
    }
  }

  /**
   * Sends one message up. Once the session is set up, a message the gateway never got (it no longer knows the
   * session, or nothing listens while it restarts) is sent again in a new session. One it may have got (the
   * connection broke during the answer) is not: a tool call must not run twice.
   */
  async #forward(message: JSONRPCMessage): Promise<void> {
    const id = 'id' in message && 'method' in message ? message.id : undefined;
    if (id !== undefined) this.#sending.add(id);
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          await this.#renewing;
          await this.#upstream.send(message);
          return;
        } catch (error) {
          const setUp = this.#initializeRequest !== undefined && this.#initializedNotice !== undefined;
          const neverGot = isSessionGone(error) || isRefused(error);
          if (!setUp || !neverGot || attempt >= this.#waits.length) throw error;
          if (isRefused(error)) await new Promise((resolve) => setTimeout(resolve, this.#waits[attempt]));
          await this.#renew().catch((renewError: Error) => this.#options.log(`pincer mcp: could not open a new session: ${renewError.message}`));
        }
      }
    } finally {
      if (id !== undefined) this.#sending.delete(id);
    }
  }

  /** A message from the client: the session's setup in order, everything after it on its own. */
  #fromClient(message: JSONRPCMessage): void {
    if (StatelessRelay.claims(message)) return this.#stateless.relay(message);
    const isRequest = 'method' in message && 'id' in message && message.id !== undefined;
    if (isRequest) this.#unanswered.add(message.id);
    const send = () =>
      this.#forward(message).catch((error: unknown) => {
        this.#options.log(`pincer mcp: the gateway at ${this.#options.url} did not take a message: ${(error as Error).message}`);
        // A request must still get an answer, or the client waits for ever.
        if (isRequest) this.#answerWithError(message.id, `Pincer's gateway could not be reached or refused the request: ${(error as Error).message}`);
      });
    if (isRequest && message.method === 'initialize') {
      this.#initializeRequest = message;
      this.#initializeIds.add(message.id);
      this.#setup = this.#setup.then(send);
      return;
    }
    if ('method' in message && message.method === 'notifications/initialized') {
      this.#initializedNotice = message;
      this.#setup = this.#setup.then(send);
      return;
    }
    const sent = this.#setup.then(send);
    this.#inFlight.add(sent);
    void sent.finally(() => this.#inFlight.delete(sent));
  }

  /** Input ended: answers still on their way are delivered first (for a while), then the session ends. */
  async #close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    await this.#setup;
    await Promise.allSettled([...this.#inFlight]);
    await this.#drain();
    this.#stateless.close();
    await this.#upstream.terminateSession().catch(() => undefined);
    await this.#upstream.close().catch(() => undefined);
    await this.#downstream.close().catch(() => undefined);
    this.#finish();
  }

  /** Waits (at most DRAIN_MS) until every forwarded request has its answer. */
  async #drain(): Promise<void> {
    const pending = () => this.#unanswered.size + this.#stateless.pending > 0;
    if (!pending()) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, DRAIN_MS);
      this.#answered = () => {
        if (pending()) return;
        clearTimeout(timer);
        resolve();
      };
      this.#answered();
    });
  }

  /** A signal: stop at once, without waiting for answers. */
  #abort(): void {
    this.#unanswered.clear();
    this.#stateless.close();
    this.#answered();
    void this.#close();
  }
}

/** The gateway answered 404 for the session: it restarted, or ended the session. */
function isSessionGone(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code === 404;
}

/** Nothing listens at the gateway's address (it is restarting): the request never reached it. */
function isRefused(error: unknown): boolean {
  return error instanceof TypeError && (error as { cause?: { code?: unknown } }).cause?.code === 'ECONNREFUSED';
}

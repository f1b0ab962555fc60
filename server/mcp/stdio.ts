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
  const downstream = new StdioServerTransport(options.stdin, options.stdout);
  const waits = options.reconnectWaitsMs ?? RECONNECT_WAITS_MS;
  /** Requests forwarded and not yet answered. */
  const unanswered = new Set<RequestId>();
  /** Requests whose POST has not finished (with a JSON answer it finishes only with the answer). */
  const sending = new Set<RequestId>();
  let answered: () => void = () => undefined;
  /** The client's initialize and its initialized notification, repeated to open a new session after a restart. */
  let initializeRequest: JSONRPCRequest | undefined;
  let initializedNotice: JSONRPCMessage | undefined;
  const initializeIds = new Set<RequestId>();
  /** Answers to the bridge's own requests (the repeated initialize), kept from the client. */
  const internal = new Map<RequestId, (message: JSONRPCMessage) => void>();
  let renewals = 0;

  const toClient = (message: JSONRPCMessage) =>
    downstream
      .send(message)
      .catch((error: unknown) => options.log(`pincer mcp: could not write to standard output: ${(error as Error).message}`))
      .finally(() => answered());
  const answerWithError = (id: RequestId, message: string) => {
    if (!unanswered.delete(id)) return;
    void toClient({ jsonrpc: '2.0', id, error: { code: -32603, message } });
  };

  const open = (): StreamableHTTPClientTransport => {
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', options.url), {
      requestInit: { headers: { authorization: `Bearer ${options.token}` } },
    });
    transport.onmessage = (message: JSONRPCMessage) => {
      if ('id' in message && message.id !== undefined && ('result' in message || 'error' in message)) {
        const mine = internal.get(message.id);
        if (mine) return mine(message);
        // Already answered (told the gateway restarted): one answer per request.
        if (!unanswered.delete(message.id)) return;
        if (initializeIds.delete(message.id) && 'result' in message) {
          const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
          if (typeof version === 'string') transport.setProtocolVersion(version);
        }
        return void toClient(message);
      }
      // Notifications and requests of a session given up are not the client's business any more.
      if (transport === upstream) void toClient(message);
    };
    transport.onerror = (error) => {
      if (transport === upstream) options.log(`pincer mcp: ${error.message}`);
    };
    return transport;
  };
  let upstream = open();

  /** A new session on the gateway, set up as the client set up the first one. */
  let renewing: Promise<void> | undefined;
  const renew = () => {
    renewing ??= (async () => {
      const stale = upstream;
      upstream = open();
      void stale.close().catch(() => undefined);
      // What the old session took and was still answering on its stream will not be answered now. (A request still
      // being sent settles by itself: sent again if the gateway never got it, answered with the error otherwise.)
      for (const id of [...unanswered]) {
        if (!sending.has(id)) answerWithError(id, 'Pincer\'s gateway restarted while this request was running; send it again.');
      }
      await upstream.start();
      const id = `pincer-mcp-renew-${++renewals}`;
      const answer = new Promise<JSONRPCMessage>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the gateway did not answer initialize')), RENEW_TIMEOUT_MS);
        internal.set(id, (message) => {
          clearTimeout(timer);
          resolve(message);
        });
      });
      try {
        await upstream.send({ ...initializeRequest!, id });
        const reply = await answer;
        if (!('result' in reply)) throw new Error('the gateway refused initialize');
        const version = (reply.result as { protocolVersion?: unknown }).protocolVersion;
        if (typeof version === 'string') upstream.setProtocolVersion(version);
        await upstream.send(initializedNotice ?? { jsonrpc: '2.0', method: 'notifications/initialized' });
      } finally {
        internal.delete(id);
      }
      options.log('pincer mcp: the gateway restarted; opened a new session with it');
      // Its tools may have changed while it was away.
      void toClient({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    })().finally(() => (renewing = undefined));
    return renewing;
  };

  /**
   * Sends one message up. Once the session is set up, a message the gateway never got (it no longer knows the
   * session, or nothing listens while it restarts) is sent again in a new session. One it may have got (the
   * connection broke during the answer) is not: a tool call must not run twice.
   */
  const forward = async (message: JSONRPCMessage): Promise<void> => {
    const id = 'id' in message && 'method' in message ? message.id : undefined;
    if (id !== undefined) sending.add(id);
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          await renewing;
          await upstream.send(message);
          return;
        } catch (error) {
          const setUp = initializeRequest !== undefined && initializedNotice !== undefined;
          const neverGot = isSessionGone(error) || isRefused(error);
          if (!setUp || !neverGot || attempt >= waits.length) throw error;
          if (isRefused(error)) await new Promise((resolve) => setTimeout(resolve, waits[attempt]));
          await renew().catch((renewError: Error) => options.log(`pincer mcp: could not open a new session: ${renewError.message}`));
        }
      }
    } finally {
      if (id !== undefined) sending.delete(id);
    }
  };

  // The session is set up in order (initialize answered, then initialized sent) before anything else goes up. After
  // that, messages go up as they come, each on its own: a slow call must not hold back the next request, nor the
  // client's cancellation of it.
  let setup = Promise.resolve();
  const inFlight = new Set<Promise<void>>();
  // A client of the 2026-07-28 revision sends no initialize: its messages go up one POST each, outside any session.
  const stateless = new StatelessRelay(new URL('/mcp', options.url), options.token, (message) => void toClient(message));
  downstream.onmessage = (message: JSONRPCMessage) => {
    if (StatelessRelay.claims(message)) return stateless.relay(message);
    const isRequest = 'method' in message && 'id' in message && message.id !== undefined;
    if (isRequest) unanswered.add(message.id);
    const send = () =>
      forward(message).catch((error: unknown) => {
        options.log(`pincer mcp: the gateway at ${options.url} did not take a message: ${(error as Error).message}`);
        // A request must still get an answer, or the client waits for ever.
        if (isRequest) answerWithError(message.id, `Pincer's gateway could not be reached or refused the request: ${(error as Error).message}`);
      });
    if (isRequest && message.method === 'initialize') {
      initializeRequest = message;
      initializeIds.add(message.id);
      setup = setup.then(send);
      return;
    }
    if ('method' in message && message.method === 'notifications/initialized') {
      initializedNotice = message;
      setup = setup.then(send);
      return;
    }
    const sent = setup.then(send);
    inFlight.add(sent);
    void sent.finally(() => inFlight.delete(sent));
  };
  downstream.onerror = (error) => options.log(`pincer mcp: ${error.message}`);

  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  let closing = false;
  const close = async () => {
    if (closing) return;
    closing = true;
    await setup;
    await Promise.allSettled([...inFlight]);
    // Input ended: answers still on their way are delivered first (for a while), then the session ends.
    if (unanswered.size + stateless.pending > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, DRAIN_MS);
        answered = () => {
          if (unanswered.size + stateless.pending > 0) return;
          clearTimeout(timer);
          resolve();
        };
        answered();
      });
    }
    stateless.close();
    await upstream.terminateSession().catch(() => undefined);
    await upstream.close().catch(() => undefined);
    await downstream.close().catch(() => undefined);
    finish();
  };
  options.stdin.once('end', () => void close());
  options.stdin.once('close', () => void close());
  options.signal?.addEventListener(
    'abort',
    () => {
      unanswered.clear();
      stateless.close();
      answered();
      void close();
    },
    { once: true },
  );

  await upstream.start();
  await downstream.start();
  return finished;
}

/** The gateway answered 404 for the session: it restarted, or ended the session. */
function isSessionGone(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code === 404;
}

/** Nothing listens at the gateway's address (it is restarting): the request never reached it. */
function isRefused(error: unknown): boolean {
  return error instanceof TypeError && (error as { cause?: { code?: unknown } }).cause?.code === 'ECONNREFUSED';
}

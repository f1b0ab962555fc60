import { createServer, IncomingMessage, maxHeaderSize, ServerResponse, STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import { errorBody, statusOf, type RefusalName } from '../errors.js';
import { makeRoomForNewConnections } from './connection-guard.js';
import type { DirectRoute } from './direct-calls.js';
import { defaultConnectionLimits, type ConnectionLimits } from './connection-limits.js';

/**
 * The HTTP server for an Express app, with requests and responses born with the app's prototypes, its connections
 * capped and timed (connection-limits.ts), and the errors Node answers itself (431, 408, 400) in the envelope.
 *
 * Express gives each request and response its app's prototype by calling Object.setPrototypeOf on them as they
 * arrive. V8 handles objects whose prototype changed after creation badly: every request's objects then survive
 * young-generation collections and are promoted, each scavenge takes several milliseconds instead of a few
 * hundred microseconds, and old-space collections come every second or so. That is the tail of every call's
 * latency. Built as subclasses whose prototype already is `app.request` / `app.response`, the objects are the
 * same and Express's swap finds nothing to change (V8 returns early when the prototype is unchanged).
 *
 * Mounting another Express app (app.use(subApp)) would swap prototypes again for its requests; routers do not.
 */
export function createAppServer(app: Express, limits: ConnectionLimits = defaultConnectionLimits(), direct?: DirectRoute): Server {
  class AppRequest extends IncomingMessage {}
  class AppResponse extends ServerResponse<AppRequest> {}
  // Once per app, on the classes' prototype objects: the chain becomes AppRequest.prototype → Express's request
  // methods → IncomingMessage.prototype, so nothing of Express's or Node's is lost.
  Object.setPrototypeOf(AppRequest.prototype, app.request);
  Object.setPrototypeOf(AppResponse.prototype, app.response);
  app.request = AppRequest.prototype as unknown as Express['request'];
  app.response = AppResponse.prototype as unknown as Express['response'];
  const server = createServer(
    {
      IncomingMessage: AppRequest,
      ServerResponse: AppResponse,
      connectionsCheckingInterval: limits.checkIntervalMs,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // An HTTP/1.1 request without Host reaches the host guard, which refuses it in the envelope; Node's own
      // refusal is an empty 400 that says nothing.
      requireHostHeader: false,
    },
    direct ? (req, res) => direct(req, res) || app(req, res) : app,
  );
  // Security: the cap keeps sockets from taking the descriptors the database and the tools need. Near it, the
  // oldest connection that never sent a request makes room for a new one; past it Node closes newcomers at once.
  server.maxConnections = limits.maxConnections;
  makeRoomForNewConnections(server, limits.maxConnections);
  server.on('clientError', answerClientError);
  return server;
}

/** What Node would answer in plain text, as the gateway's envelope. */
const CLIENT_ERRORS: Record<string, { name: RefusalName; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    name: 'HEADERS_TOO_LARGE',
    message: `The request headers are larger than the gateway accepts (${maxHeaderSize} bytes); send fewer or smaller headers.`,
  },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: {
    name: 'PAYLOAD_TOO_LARGE',
    message: 'The chunk extensions of the request body are larger than the gateway accepts.',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    name: 'REQUEST_TIMEOUT',
    message: 'The request did not arrive in time; the connection is closed. Send the whole request at once.',
  },
};
const MALFORMED = { name: 'INVALID_REQUEST' as const, message: 'The request is not valid HTTP/1.1; the connection is closed.' };

const rawResponses = new Map<string, Buffer>();

function rawResponse(code: string | undefined): Buffer {
  const key = code !== undefined && code in CLIENT_ERRORS ? code : '';
  let raw = rawResponses.get(key);
  if (!raw) {
    const { name, message } = CLIENT_ERRORS[key] ?? MALFORMED;
    const status = statusOf(name);
    const body = JSON.stringify({ success: false, error: errorBody(name, message) });
    raw = Buffer.from(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Cache-Control: no-store\r\n' +
        'X-Content-Type-Options: nosniff\r\n' +
        'Connection: close\r\n\r\n' +
        body,
    );
    rawResponses.set(key, raw);
  }
  return raw;
}

/**
 * Node's own answer to a request it cannot parse or that timed out, with a JSON body. Like Node, it answers only
 * when no response has started on the socket: bytes written after part of another response would corrupt it.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  socket.end(rawResponse(error.code), () => socket.destroy());
}

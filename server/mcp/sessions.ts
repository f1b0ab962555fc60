import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { EventBus } from '../events/bus.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { StreamableHttpSession } from './http-transport.js';
import type { McpIdentity, McpServerDeps } from './server.js';
import type { StatelessMcp } from './stateless.js';

/** Sessions one identity may hold at once; opening one more closes its least recently used. */
const MAX_SESSIONS_PER_IDENTITY = 32;

interface Session {
  readonly id: string;
  readonly identity: McpIdentity;
  readonly server: Server;
  readonly transport: StreamableHttpSession;
  /**
   * In-flight requests of this session by JSON-RPC id (1 and "1" are two), aborted when their HTTP exchange closes
   * early or the client cancels them.
   */
  readonly hangups: Map<RequestId, AbortController>;
  /** When it opened (epoch ms). */
  readonly opened: number;
  lastUsed: number;
  listChangedQueued: boolean;
}

/**
 * The MCP sessions of the Streamable HTTP endpoint. A session belongs to the identity (client token, or the owner)
 * that opened it: every later request must come with the same one, or it is answered as if the session did not
 * exist. Tool list changes reach every open session as `notifications/tools/list_changed`.
 */
export class McpSessions {
  readonly #sessions = new Map<string, Session>();
  /** Set once the gateway is closing: no session opens after that (it would outlive the gateway's own close). */
  #closing = false;
  /** The requests of the stateless revision (2026-07-28), loaded with the first one. */
  #stateless: Promise<StatelessMcp> | undefined;

  constructor(
    private readonly deps: McpServerDeps,
    events: EventBus,
  ) {
    events.on('tools', () => {
      for (const session of this.#sessions.values()) this.#queueListChanged(session);
    });
    events.on('closing', () => {
      this.#closing = true;
      void this.closeAll();
      void this.#stateless?.then((stateless) => stateless.close());
    });
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** The session with this id, if it exists and belongs to `identity`. */
  find(id: string, identity: McpIdentity): Session | undefined {
    const session = this.#sessions.get(id);
    if (!session || session.identity.name !== identity.name || session.identity.owner !== identity.owner) return undefined;
    return session;
  }

  /** Opens a session for an `initialize` request and answers it. */
  async open(identity: McpIdentity, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    // The SDK is loaded with the first session, not at start-up: most gateways never see an MCP client.
    const [{ StreamableHttpSession }, { createMcpServer, DEFAULT_PROGRESS_INTERVAL_MS }] = await Promise.all([import('./http-transport.js'), import('./server.js')]);
    const transport = new StreamableHttpSession(randomUUID(), this.deps.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS);
    const hangups = new Map<RequestId, AbortController>();
    transport.onrequestcancelled = (id) => hangups.get(id)?.abort();
    const server = createMcpServer(this.deps, identity, {
      clientName: () => server.getClientVersion()?.name,
      hangup: (requestId) => hangups.get(requestId)?.signal,
    });
    const session: Session = { id: transport.sessionId, identity, server, transport, hangups, opened: Date.now(), lastUsed: Date.now(), listChangedQueued: false };
    server.onclose = () => {
      if (this.#sessions.get(session.id) === session) this.#sessions.delete(session.id);
    };
    await server.connect(transport);
    // Checked after the awaits: a session opened once "closing" has closed every other one would never be closed.
    if (this.#closing) {
      void server.close().catch(() => undefined);
      return refuseWhileClosing(res);
    }
    this.#post(session, req, res, body);
    // Refused before it began (a bad header or body): there is no session to keep.
    if (!transport.initialized) return void server.close().catch(() => undefined);
    this.#sessions.set(session.id, session);
    this.#evictBeyondCap(identity);
  }

  /** Answers a POST of the stateless revision (no session: the token is the identity of each request). */
  async stateless(identity: McpIdentity, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    this.#stateless ??= import('./stateless.js').then(({ StatelessMcp }) => new StatelessMcp(this.deps));
    const stateless = await this.#stateless;
    if (this.#closing) return refuseWhileClosing(res);
    await stateless.handle(identity, req, res, body);
  }

  /** Passes a request of an open session (POST, GET or DELETE) to its transport. */
  async handle(session: Session, req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void> {
    session.lastUsed = Date.now();
    if (req.method === 'GET') return session.transport.get(req, res);
    if (req.method === 'DELETE') return session.transport.delete(req, res);
    this.#post(session, req, res, body);
  }

  #post(session: Session, req: IncomingMessage, res: ServerResponse, body: unknown): void {
    // A client that hangs up on a call no longer wants it: a pending approval is withdrawn, a running tool stopped.
    // One listener for the whole POST: a batch of 100 requests must not add 100 of them to one response. An id still
    // in flight is refused by the transport; its POST must not take over the first request's controller.
    const ids = requestIds(body).filter((id) => !session.transport.inFlight(id));
    const controllers = ids.map((id) => [id, new AbortController()] as const);
    for (const [id, controller] of controllers) session.hangups.set(id, controller);
    if (controllers.length > 0) {
      res.once('close', () => {
        for (const [id, controller] of controllers) {
          if (!res.writableFinished) controller.abort();
          if (session.hangups.get(id) === controller) session.hangups.delete(id);
        }
      });
    }
    session.transport.post(req, res, body);
  }

  /**
   * A client's token was revoked at `revokedAt` (epoch ms): the sessions it opened until then close, their streams
   * with them (a token issued later under the same name must not take them over). Answers how many.
   */
  closeClient(name: string, revokedAt: number): number {
    const opened = [...this.#sessions.values()].filter((s) => !s.identity.owner && s.identity.name === name && s.opened <= revokedAt);
    for (const session of opened) {
      this.#sessions.delete(session.id);
      void session.server.close().catch(() => undefined);
    }
    return opened.length;
  }

  async closeAll(): Promise<void> {
    const open = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.allSettled(open.map((s) => s.server.close()));
  }

  #queueListChanged(session: Session): void {
    // Loading a plugin registers its tools one by one: one notification per burst is enough.
    if (session.listChangedQueued) return;
    session.listChangedQueued = true;
    setImmediate(() => {
      session.listChangedQueued = false;
      if (!this.#sessions.has(session.id)) return;
      session.server.sendToolListChanged().catch(() => undefined);
    });
  }

  #evictBeyondCap(identity: McpIdentity): void {
    const mine = [...this.#sessions.values()].filter((s) => s.identity.name === identity.name && s.identity.owner === identity.owner);
    if (mine.length <= MAX_SESSIONS_PER_IDENTITY) return;
    mine.sort((a, b) => a.lastUsed - b.lastUsed);
    for (const stale of mine.slice(0, mine.length - MAX_SESSIONS_PER_IDENTITY)) {
      this.#sessions.delete(stale.id);
      void stale.server.close().catch(() => undefined);
    }
  }
}

/** The ids of the JSON-RPC requests in a body (one message or a batch). */
function requestIds(body: unknown): RequestId[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((m) => {
    const message = m as { method?: unknown; id?: unknown } | null;
    return message && typeof message === 'object' && typeof message.method === 'string' && (typeof message.id === 'string' || typeof message.id === 'number')
      ? [message.id]
      : [];
  });
}

function refuseWhileClosing(res: ServerResponse): void {
  res
    .writeHead(503, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Service Unavailable: the gateway is shutting down; no new MCP session can start.' }, id: null }));
}

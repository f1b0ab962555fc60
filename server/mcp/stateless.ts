import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  JSONRPCMessageSchema,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  STATELESS_PROTOCOL_VERSIONS,
  nameHeaderSource,
} from './era.js';
import { isPlainObject } from '../util/json.js';
import { accepted, Exchange, isJsonContentType } from './http-transport.js';
import { createMcpServer, DEFAULT_PROGRESS_INTERVAL_MS, INSTRUCTIONS, serverInfo, type McpIdentity, type McpServerDeps } from './server.js';
import { McpTasks, TASKS_EXTENSION } from './tasks.js';

/** The request headers and body disagree (the stateless revision's HeaderMismatch). */
const HEADER_MISMATCH = -32020;
const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** Methods of the handshake era that the stateless revision removed (or that the Tasks extension replaced). */
const NOT_IN_STATELESS_ERA = new Set(['initialize', 'ping', 'logging/setLevel', 'tasks/list', 'tasks/result']);

interface Envelope {
  version: string;
  capabilities: Record<string, unknown>;
  clientName: string | undefined;
}

/**
 * MCP 2026-07-28 at /mcp: every POST is one request, answered on its own with the caller's identity (the bearer
 * token), through the same SDK server (tool sets, budgets, approvals, errors, `via`) as a session of the handshake
 * era. Answers are JSON, or an SSE stream once progress must reach the client first. A client that declared the Tasks
 * extension gets a task instead of an answer when its call waits for the owner, and polls it (tasks/get); the task
 * is bound to its token and to a time limit.
 */
export class StatelessMcp {
  readonly tasks: McpTasks;
  /** Requests being answered, by identity and JSON-RPC id, for notifications/cancelled. */
  readonly #inFlight = new Map<string, AbortController>();
  #closed = false;

  constructor(private readonly deps: McpServerDeps) {
    this.tasks = new McpTasks(deps.taskTtlMs);
  }

  /** One POST of the stateless era (the route has checked Host, Origin, token and the body's size and JSON). */
  async handle(identity: McpIdentity, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const accepts = accepted(req.headers.accept);
    if (!accepts.json && !accepts.sse) return refuse(res, 406, null, -32000, 'Not Acceptable: send "Accept: application/json, text/event-stream".');
    if (!isJsonContentType(req.headers['content-type'])) {
      return refuse(res, 415, null, -32000, 'Unsupported Media Type: the body must be sent as "Content-Type: application/json".');
    }
    if (Array.isArray(body)) {
      return refuse(res, 400, null, -32600, 'Invalid Request: JSON-RPC batches may not carry requests of protocol revision 2026-07-28 or later; send one message per POST.');
    }
    const parsed = JSONRPCMessageSchema.safeParse(body);
    if (!parsed.success) return refuse(res, 400, null, -32600, 'Invalid Request: not a JSON-RPC 2.0 request or notification.');
    const message = parsed.data;
    if (!isJSONRPCRequest(message) && !isJSONRPCNotification(message)) {
      return refuse(res, 400, null, -32600, 'Invalid Request: the stateless protocol sends no requests to clients, so there is no answer to post.');
    }
    const id = isJSONRPCRequest(message) ? message.id : null;
    const header = req.headers['mcp-protocol-version'];
    const envelope = readEnvelope(message.params?._meta, typeof header === 'string' ? header : undefined);
    if ('problem' in envelope) return refuse(res, 400, id, envelope.code, envelope.problem, envelope.data);

    if (!isJSONRPCRequest(message)) {
      if (message.method === 'notifications/cancelled') this.#cancel(identity, message.params?.requestId);
      res.writeHead(202).end();
      return;
    }
    const mismatch = headerMismatch(req, message);
    if (mismatch) return refuse(res, 400, message.id, HEADER_MISMATCH, `Bad Request: the request headers and body disagree: ${mismatch}.`, { mismatch });
    if (this.#closed) return refuse(res, 503, message.id, -32000, 'Service Unavailable: the gateway is shutting down.');

    switch (message.method) {
      case 'server/discover':
        return answerJson(res, message.id, this.#complete(this.#discover(), true));
      case 'tasks/get':
      case 'tasks/cancel':
      case 'tasks/update':
        return this.#task(identity, message, res);
    }
    await this.#serve(identity, envelope, message, accepts, res);
  }

  /** Stops every call in flight and every task: the gateway is closing. */
  close(): void {
    this.#closed = true;
    for (const controller of this.#inFlight.values()) controller.abort();
    this.#inFlight.clear();
    this.tasks.closeAll();
  }

  #discover(): Record<string, unknown> {
    return {
      supportedVersions: [...STATELESS_PROTOCOL_VERSIONS],
      // No listChanged: the stateless revision has no stream of its own to send it on (clients list again).
      // resources: the links imported servers named in this token's own results (resources/read).
      capabilities: { tools: {}, resources: {}, extensions: { [TASKS_EXTENSION]: {} } },
      instructions: `${INSTRUCTIONS} A client that declares the Tasks extension gets a task to poll (tasks/get) instead of a call held open.`,
    };
  }

  /** A result as the stateless revision frames it: `resultType`, and the server's identity in `_meta`. */
  #complete(result: Record<string, unknown>, uncacheable = false): Record<string, unknown> {
    const meta = isPlainObject(result._meta) ? result._meta : {};
    return {
      ...result,
      // Tool sets differ by token and change at any time: nothing here may be cached or shared.
      ...(uncacheable && { ttlMs: 0, cacheScope: 'private' }),
      resultType: 'complete',
      _meta: { ...meta, [META_SERVER_INFO]: serverInfo(this.deps) },
    };
  }

  #task(identity: McpIdentity, message: JSONRPCRequest, res: ServerResponse): void {
    const taskId = message.params?.taskId;
    if (typeof taskId !== 'string') return answerError(res, message.id, -32602, `Invalid params: ${message.method} needs params.taskId, the id tools/call answered with.`);
    // Another token's task is answered exactly like one that never existed.
    const notFound = () => answerError(res, message.id, -32602, `Task not found: ${JSON.stringify(taskId)} is not one of this client's tasks (it may have passed its ${this.tasks.ttlMs} ms limit).`);
    if (message.method === 'tasks/get') {
      const task = this.tasks.get(identity, taskId);
      return task ? answerJson(res, message.id, this.#complete(task)) : notFound();
    }
    if (message.method === 'tasks/update') {
      if (!this.tasks.get(identity, taskId)) return notFound();
      return answerError(res, message.id, -32602, 'Invalid params: this task asks for no input; poll it with tasks/get.');
    }
    const outcome = this.tasks.cancel(identity, taskId);
    if (!outcome) return notFound();
    if (!outcome.cancelled) return answerError(res, message.id, -32602, `Cannot cancel task: it has already ${outcome.task.status === 'failed' ? 'failed' : outcome.task.status}.`);
    answerJson(res, message.id, this.#complete({}));
  }

  /** Answers one request through a server of its own, as a session of the handshake era would. */
  async #serve(identity: McpIdentity, envelope: Envelope, request: JSONRPCRequest, accepts: ReturnType<typeof accepted>, res: ServerResponse): Promise<void> {
    const hangup = new AbortController();
    const key = inFlightKey(identity, request.id);
    this.#inFlight.set(key, hangup);
    /** Set once the call became a task: the POST is answered, the work goes on. */
    let taskId: string | undefined;
    const exchange = new Exchange(res, undefined, accepts, [request.id], false, this.deps.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS);
    const tasksDeclared = isPlainObject(envelope.capabilities.extensions) && isPlainObject(envelope.capabilities.extensions[TASKS_EXTENSION]);

    let server: Server | undefined;
    const finish = () => {
      if (this.#inFlight.get(key) === hangup) this.#inFlight.delete(key);
      void server?.close().catch(() => undefined);
    };
    const transport: Transport = {
      start: async () => undefined,
      close: async () => transport.onclose?.(),
      send: async (message: JSONRPCMessage) => {
        if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
          const answer = isJSONRPCResultResponse(message) ? { ...message, result: this.#complete(message.result, request.method === 'tools/list') } : message;
          if (taskId === undefined) exchange.answer(answer);
          else if ('result' in answer) this.tasks.complete(taskId, answer.result);
          else this.tasks.fail(taskId, answer.error);
          finish();
          return;
        }
        // Progress of a call that became a task has no one to go to: the client polls instead.
        if (taskId === undefined) exchange.carry(message);
      },
    };
    server = createMcpServer(this.deps, identity, {
      clientName: () => envelope.clientName,
      hangup: () => hangup.signal,
      pending: (_requestId, approvalId) => {
        if (!tasksDeclared || taskId !== undefined || res.writableEnded) return;
        const task = this.tasks.create(identity, hangup, `Waiting for the owner to approve this call (approval ${approvalId}); it runs once they allow it.`);
        if (!task) return;
        taskId = task.taskId;
        exchange.answer({ jsonrpc: '2.0', id: request.id, result: { ...this.#complete(task), resultType: 'task' } });
      },
    });
    if (NOT_IN_STATELESS_ERA.has(request.method) || !handles(server, request.method)) {
      exchange.stopTimers();
      finish();
      return refuse(res, 404, request.id, -32601, `Method not found: ${request.method} is not a method of protocol revision ${envelope.version} here.`);
    }
    // A client that hangs up no longer wants the call: a pending approval is withdrawn, a running tool stopped. Not
    // once it became a task: then only tasks/cancel (or the task's time limit) stops it.
    res.once('close', () => {
      exchange.stopTimers();
      if (!res.writableFinished && taskId === undefined) hangup.abort();
    });
    await server.connect(transport);
    transport.onmessage?.(request);
  }

  #cancel(identity: McpIdentity, requestId: unknown): void {
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
    this.#inFlight.get(inFlightKey(identity, requestId))?.abort();
  }
}

/** The `_meta` envelope of a stateless request, or what is wrong with it (checked in the order the revision gives). */
function readEnvelope(meta: unknown, header: string | undefined): Envelope | { problem: string; code: number; data?: unknown } {
  const claimed = isPlainObject(meta) ? meta[META_PROTOCOL_VERSION] : undefined;
  const supported = [...STATELESS_PROTOCOL_VERSIONS];
  if (claimed === undefined) {
    if (header !== undefined && supported.includes(header)) {
      return { code: -32602, problem: `Invalid params: the MCP-Protocol-Version header names ${header}, but the request carries no _meta["${META_PROTOCOL_VERSION}"]; every request of this revision carries its protocol version and client capabilities in _meta.`, data: { envelope: { missing: ['_meta'] } } };
    }
    return { code: UNSUPPORTED_PROTOCOL_VERSION, problem: `Unsupported protocol version: ${header ?? '(none)'} (supported: ${supported.join(', ')}; or start a 2025-11-25 session with initialize).`, data: { supported, requested: header ?? null } };
  }
  if (typeof claimed !== 'string') return envelopeProblem(META_PROTOCOL_VERSION, 'not a string');
  if (header !== undefined && header !== claimed) {
    const mismatch = `the body envelope names protocol version ${claimed} but the MCP-Protocol-Version header names ${header}`;
    return { code: HEADER_MISMATCH, problem: `Bad Request: the request headers and body disagree: ${mismatch}.`, data: { mismatch } };
  }
  if (!supported.includes(claimed)) {
    return { code: UNSUPPORTED_PROTOCOL_VERSION, problem: `Unsupported protocol version: ${claimed} (supported: ${supported.join(', ')}).`, data: { supported, requested: claimed } };
  }
  const capabilities = (meta as Record<string, unknown>)[META_CLIENT_CAPABILITIES];
  if (capabilities === undefined) return envelopeProblem(META_CLIENT_CAPABILITIES, 'missing');
  if (!isPlainObject(capabilities)) return envelopeProblem(META_CLIENT_CAPABILITIES, 'not an object');
  const info = (meta as Record<string, unknown>)[META_CLIENT_INFO];
  if (info !== undefined && !(isPlainObject(info) && typeof info.name === 'string')) return envelopeProblem(META_CLIENT_INFO, 'not an object with a string name');
  return { version: claimed, capabilities, clientName: isPlainObject(info) ? (info.name as string) : undefined };
}

function envelopeProblem(key: string, problem: string): { problem: string; code: number; data: unknown } {
  return { code: -32602, problem: `Invalid _meta envelope for protocol revision 2026-07-28: ${key}: ${problem}.`, data: { envelope: { key, problem } } };
}

/** What the standard request headers get wrong about the body (they let intermediaries route without parsing it). */
function headerMismatch(req: IncomingMessage, request: JSONRPCRequest): string | undefined {
  if (req.headers['mcp-protocol-version'] === undefined) return `the body envelope names protocol version ${String(request.params?._meta?.[META_PROTOCOL_VERSION])} but the required MCP-Protocol-Version header is absent`;
  const method = req.headers['mcp-method'];
  if (method === undefined) return `the body names method ${request.method} but the required Mcp-Method header is absent`;
  if (method !== request.method) return `the body names method ${request.method} but the Mcp-Method header names ${String(method)}`;
  const field = nameHeaderSource(request.method);
  const value = field === undefined ? undefined : request.params?.[field];
  if (field === undefined || typeof value !== 'string') return undefined;
  const name = req.headers['mcp-name'];
  if (typeof name !== 'string') return `the body carries params.${field}=${JSON.stringify(value)} but the required Mcp-Name header is absent`;
  const decoded = decodeHeaderValue(name);
  if (decoded !== value) return `the body carries params.${field}=${JSON.stringify(value)} but the Mcp-Name header names ${JSON.stringify(decoded ?? name)}`;
  return undefined;
}

/** A header value as sent: plain ASCII, or `=?base64?…?=` around the UTF-8 bytes of anything else. */
function decodeHeaderValue(value: string): string | undefined {
  const match = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(value);
  if (!match) return value;
  return Buffer.from(match[1]!, 'base64').toString('utf8');
}

/** Whether the SDK server has a handler for this method (tools/list, tools/call, whatever else it serves). */
function handles(server: Server, method: string): boolean {
  try {
    server.assertCanSetRequestHandler(method);
    return false;
  } catch {
    return true;
  }
}

function inFlightKey(identity: McpIdentity, id: RequestId): string {
  // 1 and "1" are two requests.
  return JSON.stringify([identity.name, identity.owner, id]);
}

function answerJson(res: ServerResponse, id: RequestId, result: Record<string, unknown>): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result }));
}

/** An error answered in the body (the request reached its method). */
function answerError(res: ServerResponse, id: RequestId, code: number, message: string): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }));
}

/** A request refused before it reached a method, with the HTTP status the revision gives it. */
function refuse(res: ServerResponse, status: number, id: RequestId | null, code: number, message: string, data?: unknown): void {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined && { data }) } }));
}

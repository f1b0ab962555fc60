import { Router, type Request, type Response } from 'express';
import { GatewayError } from '../../errors.js';
import { claimsStatelessEra } from '../../mcp/era.js';
import type { McpSessions } from '../../mcp/sessions.js';
import type { McpIdentity } from '../../mcp/server.js';
import { parseUntrustedJson } from '../../util/json.js';
import { readRequestBody } from '../body.js';
import { identityOf } from '../identity.js';

const SESSION_HEADER = 'mcp-session-id';

/**
 * MCP over Streamable HTTP, mounted at /mcp (so other requests pass it with one path check). Mounted after the Host, Origin and token checks and before the gateway's JSON
 * parser: a body that is not JSON must get a JSON-RPC parse error (-32700), not the gateway's envelope.
 */
export function mcpRoutes(sessions: McpSessions, bodyLimitBytes: number, maxDepth: number): Router {
  const router = Router();

  router.post('/', async (req, res) => {
    const body = await readJsonRpcBody(req, res, bodyLimitBytes, maxDepth);
    if (body === undefined) return;
    const identity = mcpIdentity(res);
    const sessionId = req.headers[SESSION_HEADER];
    if (typeof sessionId === 'string') {
      const session = sessions.find(sessionId, identity);
      if (!session) return sessionNotFound(res);
      return sessions.handle(session, req, res, body);
    }
    // 2026-07-28 and later: no handshake, no session; each request names its protocol version in _meta.
    if (!isInitialize(body) && claimsStatelessEra(req.headers['mcp-protocol-version'], body)) return sessions.stateless(identity, req, res, body);
    if (!isInitialize(body)) {
      return rpcError(res, 400, -32000, 'Bad Request: no valid session ID; start with an initialize request (send Mcp-Session-Id afterwards).');
    }
    await sessions.open(identity, req, res, body);
  });

  // The stream of server-initiated messages (tools/list_changed) for an open session; without one there is nothing
  // to stream, and the answer is 405 (never 404: some clients then conclude the server has no tools).
  router.get('/', async (req, res) => {
    const sessionId = req.headers[SESSION_HEADER];
    if (typeof sessionId !== 'string') {
      res.set('Allow', 'POST, DELETE');
      return rpcError(res, 405, -32000, 'Method not allowed: GET /mcp opens the notification stream of a session; send Mcp-Session-Id.');
    }
    const session = sessions.find(sessionId, mcpIdentity(res));
    if (!session) return sessionNotFound(res);
    await sessions.handle(session, req, res);
  });

  router.delete('/', async (req, res) => {
    const sessionId = req.headers[SESSION_HEADER];
    if (typeof sessionId !== 'string') return rpcError(res, 400, -32000, 'Bad Request: send the Mcp-Session-Id of the session to end.');
    const session = sessions.find(sessionId, mcpIdentity(res));
    if (!session) return sessionNotFound(res);
    await sessions.handle(session, req, res);
  });

  router.all('/', (_req, res) => {
    res.set('Allow', 'GET, POST, DELETE');
    rpcError(res, 405, -32000, 'Method not allowed.');
  });

  return router;
}

function mcpIdentity(res: Response): McpIdentity {
  const who = identityOf(res);
  return { name: who.name, owner: who.kind === 'owner' };
}

function sessionNotFound(res: Response): void {
  // Also the answer to another token's session id: a session is not there for anyone but the one who opened it.
  rpcError(res, 404, -32001, 'Session not found: it ended or the gateway restarted; initialize a new session.');
}

function rpcError(res: Response, status: number, code: number, message: string, id: string | number | null = null): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id });
}

/** The POST body as parsed JSON, or undefined once a JSON-RPC error has been answered. */
async function readJsonRpcBody(req: Request, res: Response, limitBytes: number, maxDepth: number): Promise<unknown> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limitBytes) {
    rpcError(res, 413, -32600, `The request body is larger than the ${limitBytes}-byte limit.`);
    req.resume();
    return undefined;
  }
  const read = await readRequestBody(req, limitBytes);
  if (read === 'too-large') {
    rpcError(res, 413, -32600, `The request body is larger than the ${limitBytes}-byte limit.`);
    return undefined;
  }
  if (read === 'unreadable') {
    rpcError(res, 400, -32700, 'Parse error: the request body could not be read.');
    return undefined;
  }
  try {
    return parseUntrustedJson(read.text, maxDepth);
  } catch (error) {
    const message = error instanceof GatewayError ? error.message : 'The request body is not valid JSON.';
    rpcError(res, 400, -32700, `Parse error: ${message}`);
    return undefined;
  }
}

/** An `initialize` request (the SDK's own check would load its schemas for every gateway at start-up). */
function isInitialize(body: unknown): boolean {
  const message = body as { jsonrpc?: unknown; method?: unknown; id?: unknown } | null;
  return !!message && typeof message === 'object' && message.jsonrpc === '2.0' && message.method === 'initialize' && message.id !== undefined;
}

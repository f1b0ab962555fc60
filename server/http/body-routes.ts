import { Router, type NextFunction, type Request, type Response } from 'express';
import { jsonBody } from './body.js';

/**
 * How each route's body is read: the routes below read theirs their own way, every other route gets the gateway's
 * JSON parser with the default limit.
 *
 * Security: this table is matched by an Express router, with the same rules as the routes themselves (any letter
 * case, an optional trailing slash). When the skip list was a set of exact paths, `POST /chat/` or `/CHAT` had its
 * body read by the gateway's parser and then waited for ever in the chat route's own parser for a body already
 * gone, holding its connection.
 */
const BODY_ROUTES: { path: string; body: 'own' | 'chat' | 'any-label' | 'any-label-small' }[] = [
  // A JSONL upload, read line by line in constant memory: no size limit on the whole.
  { path: '/memory/import', body: 'own' },
  // JSON-RPC: malformed JSON gets a JSON-RPC parse error there, not the envelope.
  { path: '/mcp', body: 'own' },
  // Long histories are larger than the default limit.
  { path: '/chat', body: 'chat' },
  { path: '/v1/chat/completions', body: 'chat' },
  { path: '/api/chat', body: 'any-label' },
  // Security: `{"model"}` only; with the chat limit, one request of 20 MB held every caller for seconds while parsed.
  { path: '/api/show', body: 'any-label-small' },
];

export interface BodyLimits {
  limitBytes: number;
  chatLimitBytes: number;
  maxDepth: number;
}

/** Reads the body of every POST, PUT, PATCH and DELETE request once, as the table says, before any route runs. */
export function bodyParsers(limits: BodyLimits): Router {
  const router = Router();
  const chat = jsonBody(limits.chatLimitBytes, limits.maxDepth);
  // Ollama apps often send JSON labelled as a form or as text: on these routes the body is JSON whatever the label.
  // (The label check elsewhere stops cross-site "simple" requests; the Origin check does that here, and a token or
  // the owner's opt-in is still required.)
  const small = jsonBody(limits.limitBytes, limits.maxDepth);
  const anyLabel = (reader: typeof chat) => (req: Request, res: Response, next: NextFunction) => {
    if (req.headers['content-type'] !== undefined || req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) {
      req.headers['content-type'] = 'application/json';
    }
    reader(req, res, next);
  };
  const readers = { own: [], chat: [chat], 'any-label': [anyLabel(chat)], 'any-label-small': [anyLabel(small)] };
  // Done with this router: the gateway's parser below must not read the body again.
  const done = (_req: Request, _res: Response, next: NextFunction) => next('router');
  // One route per reader, each with its list of paths: a request passes the table with four path checks, not six.
  for (const body of ['own', 'chat', 'any-label', 'any-label-small'] as const) {
    const paths = BODY_ROUTES.filter((route) => route.body === body).map((route) => route.path);
    router.post(paths, ...readers[body], done);
  }
  router.use(defaultBodyReader(limits));
  return router;
}

/** The reader of every route the table does not name. */
export function defaultBodyReader(limits: BodyLimits) {
  return jsonBody(limits.limitBytes, limits.maxDepth);
}

import { Router, type Request, type RequestHandler, type Response } from 'express';
import { refuse } from '../../errors.js';
import { MEMORY_LIMITS, MemoryCursorError, MemoryInputError, parseTagList, SEARCH_METHODS, type Memories, type SearchMethod } from '../../memory/memories.js';
import { GatewayError } from '../../errors.js';
import type { Memory, MemoryImportReport, MemoryNewest, MemoryResults } from '../../contract/memory.js';
import { identityOf, requireOwner } from '../identity.js';
import { streamLines } from '../jsonl.js';
import { badQuery, queryKeyProblems } from '../query.js';

const SEARCH_KEYS = ['q', 'method', 'limit', 'tags', 'category', 'client', 'cursor'] as const;
const WRITE_FIELDS = ['content', 'tags', 'category'];
const JSONL_TYPE = /^application\/(?:x-ndjson|jsonl|x-jsonlines)\s*(?:;|$)/i;
/** A memory's content is at most 32 KiB of UTF-8 (MEMORY_LIMITS); a line of an import holds it escaped in JSON, and more. */
const MAX_IMPORT_LINE_BYTES = 1 << 20;

/**
 * `POST /memory/import` (owner only): a JSONL body, read line by line in constant memory, so it is mounted before
 * the JSON body parser and its size limit. An import sets ids, dates and the client each memory is recorded for,
 * which only the owner may do.
 */
export function memoryImport(memories: Memories): RequestHandler[] {
  return [
    requireOwner,
    async (req, res) => {
      const type = req.headers['content-type'];
      if (!type || !JSONL_TYPE.test(type)) {
        req.resume();
        throw new GatewayError('UNSUPPORTED_MEDIA_TYPE', 'Send the memories as JSONL, one a line, with "Content-Type: application/x-ndjson".');
      }
      res.json((await memories.import(streamLines(req, MAX_IMPORT_LINE_BYTES), identityOf(res).name)) satisfies MemoryImportReport);
    },
  ];
}

/** The memory store over HTTP: clients and the owner write and search it; each memory records who wrote it. */
export function memoryRoutes(memories: Memories): Router {
  const router = Router();

  router.post('/memory', (req, res) => {
    const body = writeBody(req, true);
    res.status(201).json(checked(() => memories.add({ content: body.content, tags: body.tags, category: body.category, client: identityOf(res).name })) satisfies Memory);
  });

  router.get('/memory', async (req, res) => {
    const query = searchQuery(req.query as Record<string, unknown>);
    const reader = identityOf(res).name;
    if (query.q === undefined) {
      const page = checkedCursor(() => memories.newestPage(query.filter, query.limit, reader, query.cursor));
      res.json({
        results: page.memories.map((m) => ({ ...m, score: null, match: null })),
        total: page.total,
        next_cursor: page.next_cursor,
      } satisfies MemoryNewest);
      return;
    }
    if (query.cursor !== undefined) throw badQuery(['"cursor" pages the newest memories (without "q"); a search answers its best matches in one page']);
    // In steps, taking turns with other searches: a long query over large memories never holds the gateway.
    const results = await memories.searchInSteps({ query: query.q, method: query.method, limit: query.limit, ...query.filter, reader }, callerGone(res));
    res.json({ results } satisfies MemoryResults);
  });

  // Registered before /memory/:id, which would otherwise refuse "export" as an id.
  router.get('/memory/export', async (req, res) => {
    const query = req.query as Record<string, unknown>;
    const problems = queryKeyProblems(query, ['format'], 'parameter');
    if (query.format !== undefined && query.format !== 'jsonl') problems.push(`"format" must be jsonl, not ${JSON.stringify(query.format)}`);
    if (problems.length > 0) throw badQuery(problems);
    res.status(200).set({
      'content-type': 'application/x-ndjson; charset=utf-8',
      'content-disposition': 'attachment; filename="pincer-memories.jsonl"',
      'cache-control': 'no-store',
    });
    const closed = new Promise<void>((resolve) => res.once('close', resolve));
    for (const page of memories.exportPages(identityOf(res).name)) {
      if (res.destroyed) return;
      const text = page.map((memory) => `${JSON.stringify(memory)}\n`).join('');
      // Backpressure: a slow reader holds the export, never a growing buffer in the gateway.
      if (!res.write(text)) await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
      else await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  });

  // Lobster's search: {query, results: [{id, content, score}]}, hybrid.
  router.get('/search', async (req, res) => {
    const query = searchQuery(req.query as Record<string, unknown>);
    if (query.q === undefined) throw badQuery(['"q" is required (the text to search for)']);
    if (query.cursor !== undefined) throw badQuery(['"cursor" pages the newest memories (GET /memory without "q"); a search answers one page']);
    const search = { query: query.q, method: query.method, limit: query.limit, ...query.filter, reader: identityOf(res).name };
    const results = await memories.searchInSteps(search, callerGone(res));
    res.json({ query: query.q, results: results.map(({ id, content, score, flagged }) => ({ id, content, score, ...(flagged && { flagged }) })) });
  });

  router.get('/memory/:id', (req, res) => {
    const id = memoryId(req);
    const memory = memories.get(id, identityOf(res).name);
    if (!memory) throw refuse.notFound(`Memory ${id}`);
    res.json(memory satisfies Memory);
  });

  router.patch('/memory/:id', (req, res) => {
    const id = memoryId(req);
    const body = writeBody(req, false);
    const memory = checked(() => memories.update(id, body, identityOf(res).name));
    if (!memory) throw refuse.notFound(`Memory ${id}`);
    res.json(memory satisfies Memory);
  });

  router.delete('/memory/:id', (req, res) => {
    const id = memoryId(req);
    if (!memories.remove(id, identityOf(res).name)) throw refuse.notFound(`Memory ${id}`);
    res.json({ deleted: id });
  });

  return router;
}

function memoryId(req: Request): number {
  const raw = String(req.params.id);
  if (!/^[1-9]\d{0,15}$/.test(raw)) throw refuse.badRequest(`"${raw.slice(0, 40)}" is not a memory id (a positive whole number).`);
  return Number(raw);
}

function writeBody(req: Request, creating: boolean): { content?: unknown; tags?: unknown; category?: unknown } {
  const body = req.body as unknown;
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw refuse.badRequest('Send a JSON object: {"content": "…", "tags": ["…"], "category": "…"}.');
  }
  const problems = Object.keys(body).filter((k) => !WRITE_FIELDS.includes(k)).map((k) => `unknown field "${k}" (known: ${WRITE_FIELDS.join(', ')})`);
  if (creating && (body as { content?: unknown }).content === undefined) problems.push('"content" is required');
  if (!creating && Object.keys(body).length === 0) problems.push(`send at least one of ${WRITE_FIELDS.join(', ')}`);
  if (problems.length > 0) throw refuse.badRequest(`Bad memory: ${problems.join('; ')}.`, { errors: problems.map((message) => ({ message })) });
  return body as { content?: unknown; tags?: unknown; category?: unknown };
}

/** A cursor not given out here is the caller's mistake: a 400 that says to start over. */
function checkedCursor<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof MemoryCursorError) throw refuse.badRequest(error.message);
    throw error;
  }
}

/** Store-side problems (empty content, a tag too long) are the caller's: a 400 naming the field. */
function checked<T>(write: () => T): T {
  try {
    return write();
  } catch (error) {
    if (error instanceof MemoryInputError) throw refuse.badRequest(`Bad memory: ${error.message}`, { errors: [{ field: error.field, message: error.message }] });
    throw error;
  }
}

function searchQuery(raw: Record<string, unknown>) {
  const problems = queryKeyProblems(raw, SEARCH_KEYS, 'parameter');
  if (problems.length > 0) throw badQuery(problems);
  const query = raw as Partial<Record<(typeof SEARCH_KEYS)[number], string>>;
  const q = query.q === undefined || query.q.trim() === '' ? undefined : query.q;
  if (q !== undefined && q.length > 1000) problems.push('"q" is longer than 1000 characters');
  const method = (query.method ?? 'hybrid') as SearchMethod;
  if (!SEARCH_METHODS.includes(method)) problems.push(`"method" must be one of ${SEARCH_METHODS.join(', ')}`);
  const limit = query.limit === undefined ? 10 : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MEMORY_LIMITS.limit || !/^\d+$/.test(query.limit ?? '10')) {
    problems.push(`"limit" must be a whole number from 1 to ${MEMORY_LIMITS.limit}`);
  }
  if (problems.length > 0) throw badQuery(problems);
  const tags = query.tags === undefined ? [] : parseTagList(query.tags);
  const client = query.client?.trim();
  const filter = {
    ...(tags.length > 0 && { tags }),
    ...(query.category !== undefined && query.category.trim() !== '' && { category: query.category }),
    // The client that wrote the memories ("owner" for the dashboard and the CLI); a client limited to its own
    // memories that names another finds nothing.
    ...(client !== undefined && client !== '' && { client }),
  };
  const cursor = query.cursor === undefined || query.cursor === '' ? undefined : query.cursor;
  return { q, method, limit, filter, cursor };
}

/** Aborts when the caller hangs up before its answer: the search it asked for stops at its next step. */
function callerGone(res: Response): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    // A refusal, not a DOMException: nobody is left to read it, and the error handler logs only the unexpected.
    if (!res.writableFinished) controller.abort(refuse.callCancelled('The caller went away before the search finished.'));
  });
  return controller.signal;
}

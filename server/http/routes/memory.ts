import { Router, type Request } from 'express';
import { refuse } from '../../errors.js';
import { MEMORY_LIMITS, MemoryInputError, parseTagList, SEARCH_METHODS, type Memories, type SearchMethod } from '../../memory/memories.js';
import { identityOf } from '../identity.js';
import { badQuery, queryKeyProblems } from '../query.js';

const SEARCH_KEYS = ['q', 'method', 'limit', 'tags', 'category'] as const;
const WRITE_FIELDS = ['content', 'tags', 'category'];

/** The memory store over HTTP: clients and the owner write and search it; each memory records who wrote it. */
export function memoryRoutes(memories: Memories): Router {
  const router = Router();

  router.post('/memory', (req, res) => {
    const body = writeBody(req, true);
    res.status(201).json(checked(() => memories.add({ content: body.content, tags: body.tags, category: body.category, client: identityOf(res).name })));
  });

  router.get('/memory', (req, res) => {
    const query = searchQuery(req.query as Record<string, unknown>);
    if (query.q === undefined) {
      res.json({ results: memories.newest(query.filter, query.limit).map((m) => ({ ...m, score: null, match: null })) });
      return;
    }
    res.json({ results: memories.search({ query: query.q, method: query.method, limit: query.limit, ...query.filter }) });
  });

  // Lobster's search: {query, results: [{id, content, score}]}, hybrid.
  router.get('/search', (req, res) => {
    const query = searchQuery(req.query as Record<string, unknown>);
    if (query.q === undefined) throw badQuery(['"q" is required (the text to search for)']);
    const results = memories.search({ query: query.q, method: query.method, limit: query.limit, ...query.filter });
    res.json({ query: query.q, results: results.map(({ id, content, score }) => ({ id, content, score })) });
  });

  router.get('/memory/:id', (req, res) => {
    const id = memoryId(req);
    const memory = memories.get(id);
    if (!memory) throw refuse.notFound(`Memory ${id}`);
    res.json(memory);
  });

  router.patch('/memory/:id', (req, res) => {
    const id = memoryId(req);
    const body = writeBody(req, false);
    const memory = checked(() => memories.update(id, body));
    if (!memory) throw refuse.notFound(`Memory ${id}`);
    res.json(memory);
  });

  router.delete('/memory/:id', (req, res) => {
    const id = memoryId(req);
    if (!memories.remove(id)) throw refuse.notFound(`Memory ${id}`);
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
  const filter = { ...(tags.length > 0 && { tags }), ...(query.category !== undefined && query.category.trim() !== '' && { category: query.category }) };
  return { q, method, limit, filter };
}

import { Router } from 'express';
import { refuse } from '../../errors.js';
import type { Executor } from '../../executor/executor.js';
import { CALL_STATUSES, type CallFilter, type CallRecord, type CallStatus, type Store } from '../../store/index.js';
import { identityOf } from '../identity.js';
import { HIDDEN_MEMORY_CALL, hidesMemoryCall } from '../memory-privacy.js';
import { badQuery, queryKeyProblems } from '../query.js';

const MAX_PAGE = 500;

export function callRoutes(store: Store, executor: Executor): Router {
  const router = Router();
  // Security: history written before a secret was known (a key set later, a gateway before this redaction) leaves
  // redacted as the redactor would redact it today.
  const redact = (call: CallRecord) => executor.redactor.record(call);

  router.get('/calls', (req, res) => {
    const filter = parseFilter(req.query as Record<string, unknown>);
    const visible = memoryPrivacy(store, res);
    try {
      const page = store.calls.list(filter);
      res.json({ ...page, calls: page.calls.map((call) => redact(visible(call))) });
    } catch (error) {
      if (error instanceof RangeError) throw refuse.badRequest('The cursor is not one this gateway gave out; start again without it.');
      throw error;
    }
  });

  // Registered before /calls/:id, which would otherwise take "export" for a call id.
  router.get('/calls/export', async (req, res) => {
    const query = { ...(req.query as Record<string, unknown>) };
    const format = query.format;
    delete query.format;
    if (format !== undefined && format !== 'jsonl') throw badQuery([`format must be jsonl, not ${JSON.stringify(format)}`]);
    const { limit: _limit, cursor: _cursor, ...filter } = parseFilter(query, ['tool', 'status', 'client', 'since']);
    res.status(200).set({
      'content-type': 'application/x-ndjson; charset=utf-8',
      'content-disposition': 'attachment; filename="pincer-calls.jsonl"',
      'cache-control': 'no-store',
    });
    const closed = new Promise<void>((resolve) => res.once('close', resolve));
    const visible = memoryPrivacy(store, res);
    for (const page of store.calls.exportPages(filter)) {
      if (res.destroyed) return;
      const text = page.map((call) => `${JSON.stringify(redact(visible(call)))}\n`).join('');
      // Backpressure: a slow reader holds the export, never a growing buffer in the gateway.
      if (!res.write(text)) await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
      // Yield between pages so calls are recorded while a large history streams out.
      else await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  });

  router.get('/calls/:id', (req, res) => {
    const call = executor.inFlight(req.params.id) ?? store.calls.get(req.params.id);
    if (!call) throw refuse.notFound(`Call "${req.params.id}"`);
    res.json(redact(memoryPrivacy(store, res)(call)));
  });

  return router;
}

function parseFilter(query: Record<string, unknown>, known = ['tool', 'status', 'client', 'since', 'cursor', 'limit']): CallFilter {
  const problems = queryKeyProblems(query, known, 'filter');
  const q = query as Record<string, string | undefined>;
  const filter: CallFilter = { limit: 50 };
  if (q.limit !== undefined) {
    const limit = Number(q.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) problems.push(`limit must be a whole number from 1 to ${MAX_PAGE}`);
    else filter.limit = limit;
  }
  if (q.status !== undefined) {
    if (!CALL_STATUSES.includes(q.status as CallStatus)) problems.push(`status must be one of ${CALL_STATUSES.join(', ')}`);
    else filter.status = q.status as CallStatus;
  }
  if (q.since !== undefined) {
    const since = /^\d+$/.test(q.since) ? Number(q.since) : Date.parse(q.since);
    if (!Number.isFinite(since)) problems.push('since must be an ISO 8601 date-time or epoch milliseconds');
    else filter.since = since;
  }
  if (q.tool) filter.tool = q.tool;
  if (q.client) filter.client = q.client;
  if (q.cursor) filter.cursor = q.cursor;
  if (problems.length > 0) throw badQuery(problems);
  return filter;
}

/**
 * Security: a client limited to its own memories must not read another client's through the history either: the
 * arguments and results of other clients' memory calls are left out for it (the call itself still shows).
 */
function memoryPrivacy(store: Store, res: Parameters<typeof identityOf>[0]): (call: CallRecord) => CallRecord {
  const who = identityOf(res);
  if (who.kind !== 'client' || store.clients.memoryScope(who.name) !== 'own') return (call) => call;
  return (call) => (hidesMemoryCall(call, who.name) ? { ...call, arguments: null, result: null, hidden: HIDDEN_MEMORY_CALL } : call);
}

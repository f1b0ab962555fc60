import { Router } from 'express';
import { refuse } from '../../errors.js';
import type { Executor } from '../../executor/executor.js';
import { CALL_STATUSES, type CallFilter, type CallStatus, type Store } from '../../store/index.js';
import { badQuery, queryKeyProblems } from '../query.js';

const MAX_PAGE = 500;

export function callRoutes(store: Store, executor: Executor): Router {
  const router = Router();

  router.get('/calls', (req, res) => {
    const filter = parseFilter(req.query as Record<string, unknown>);
    try {
      res.json(store.calls.list(filter));
    } catch (error) {
      if (error instanceof RangeError) throw refuse.badRequest('The cursor is not one this gateway gave out; start again without it.');
      throw error;
    }
  });

  router.get('/calls/:id', (req, res) => {
    const call = executor.inFlight(req.params.id) ?? store.calls.get(req.params.id);
    if (!call) throw refuse.notFound(`Call "${req.params.id}"`);
    res.json(call);
  });

  return router;
}

function parseFilter(query: Record<string, unknown>): CallFilter {
  const problems = queryKeyProblems(query, ['tool', 'status', 'client', 'since', 'cursor', 'limit'], 'filter');
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

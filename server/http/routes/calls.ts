import { Router } from 'express';
import { refuse } from '../../errors.js';
import type { Executor } from '../../executor/executor.js';
import { CALL_STATUSES, type CallFilter, type CallRecord, type CallStatus, type Store } from '../../store/index.js';
import type { CallPage } from '../../contract/calls.js';
import { callView, scopedFilter, shownCall, type CallView } from '../call-privacy.js';
import { identityOf } from '../identity.js';
import { listedCall } from '../live-call.js';
import { badQuery, queryKeyProblems } from '../query.js';

const MAX_PAGE = 500;

export function callRoutes(store: Store, executor: Executor): Router {
  const router = Router();
  // Security: history written before a secret was known (a key set later, a gateway before this redaction) leaves
  // redacted as the redactor would redact it today.
  const redact = (call: CallRecord) => executor.redactor.record(call);
  /** What this caller may read of a call, redacted; undefined for another client's call it may not see. */
  const shown = (view: CallView, call: CallRecord) => {
    const visible = shownCall(view, call);
    return visible && redact(visible);
  };

  router.get('/calls', (req, res) => {
    const view = viewOf(store, res);
    const filter = scopedFilter(view, parseFilter(req.query as Record<string, unknown>));
    if (!filter) {
      res.json({ calls: [], next_cursor: null } satisfies CallPage);
      return;
    }
    try {
      const page = store.calls.list(filter);
      // Each call with its live row's arguments line, built where the `call` event builds it, from what this caller
      // may see: a page of calls is the dashboard's call log as it was.
      const calls = page.calls.flatMap((call) => {
        const record = shown(view, call);
        return record ? [listedCall(record)] : [];
      });
      res.json({ calls, next_cursor: page.next_cursor } satisfies CallPage);
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
    const { limit: _limit, cursor: _cursor, ...asked } = parseFilter(query, ['tool', 'status', 'client', 'since']);
    const view = viewOf(store, res);
    const filter = scopedFilter(view, asked);
    res.status(200).set({
      'content-type': 'application/x-ndjson; charset=utf-8',
      'content-disposition': 'attachment; filename="pincer-calls.jsonl"',
      'cache-control': 'no-store',
    });
    const closed = new Promise<void>((resolve) => res.once('close', resolve));
    for (const page of filter ? store.calls.exportPages(filter) : []) {
      if (res.destroyed) return;
      const text = page.flatMap((call) => {
        const record = shown(view, call);
        return record ? [`${JSON.stringify(record)}\n`] : [];
      }).join('');
      // Backpressure: a slow reader holds the export, never a growing buffer in the gateway.
      if (!res.write(text)) await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
      // Yield between pages so calls are recorded while a large history streams out.
      else await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  });

  router.get('/calls/:id', (req, res) => {
    const call = executor.inFlight(req.params.id) ?? store.calls.get(req.params.id);
    // Another client's call is answered as one that does not exist: the caller learns nothing of it.
    const record = call && shown(viewOf(store, res), call);
    if (!record) throw refuse.notFound(`Call "${req.params.id}"`);
    res.json(record);
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

/** What the caller may read of the history: see call-privacy.ts. */
function viewOf(store: Store, res: Parameters<typeof identityOf>[0]): CallView {
  return callView(identityOf(res), (client) => store.clients.scopes(client));
}

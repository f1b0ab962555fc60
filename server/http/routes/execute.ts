import { Router, type Request, type Response } from 'express';
import { errorBody, refuse, type ErrorBody } from '../../errors.js';
import type { Assignable } from '../../contract/check.js';
import type { CallEnvelope, PendingCall } from '../../contract/calls.js';
import { CallerGone } from '../../executor/cancellation.js';
import type { CallOutcome, CallRequest, Envelope, Executor } from '../../executor/executor.js';
import { envelopeForModel } from '../../executor/for-model.js';
import { identityOf } from '../identity.js';
import { sendJson } from '../send-json.js';
import { decodeArguments } from '../../util/tool-arguments.js';

/** A call's envelope is the wire contract's: a field renamed in the executor fails to compile here. */
export type EnvelopeMatchesContract = Assignable<Envelope, CallEnvelope>;

/** Most OpenAI-compatible clients send a handful; a flood of calls in one request is refused up front. */
const MAX_TOOL_CALLS = 128;
/**
 * Security: one request must not hold the gateway. A batch runs at most this many calls at once (128 heavy calls
 * together held every caller for seconds and took a gigabyte), and carries back at most BATCH_ANSWER_BYTES: once its
 * answers reach that, the calls not yet started are not run and say so (128 answers of 1 MiB made a 118 MB answer).
 */
const BATCH_CONCURRENCY = 8;
const BATCH_ANSWER_BYTES = 8 * 2 ** 20;

/** Answers one call with its envelope: what every call route does once it knows the tool and the arguments. */
export type CallAnswer = (req: Request, res: Response, call: Pick<CallRequest, 'tool' | 'arguments' | 'via'>) => Promise<void>;

/**
 * Fires when the caller hangs up, so a long tool stops working for nobody. One per request: every call of a
 * /tool_calls batch shares it (one listener each), rather than each adding a 'close' listener to the response.
 */
function callerSignal(res: Response): CallerGone {
  const gone = new CallerGone();
  res.once('close', () => {
    if (!res.writableFinished) gone.fire();
  });
  return gone;
}

/** The call as the executor takes it: what is called, by whom, and the caller's wish about the cache. */
function callOf(req: Request, res: Response, signal: CallerGone, call: Pick<CallRequest, 'tool' | 'arguments' | 'via' | 'argumentsError'>): CallRequest {
  const who = identityOf(res);
  // One literal, then added to (no conditional spreads): this runs for every call.
  const request: CallRequest = { tool: call.tool, arguments: call.arguments, via: call.via, client: who.name, owner: who.kind === 'owner', signal };
  if (call.argumentsError !== undefined) request.argumentsError = call.argumentsError;
  if (wantsFreshAnswer(req)) request.noCache = true;
  return request;
}

/**
 * One call, answered with its envelope. With `Prefer: respond-async` a call that has to wait for the owner is
 * answered 202 at once; the caller follows it with GET /calls/{id} or /events.
 */
export function callAnswer(executor: Executor): CallAnswer {
  return async (req, res, call) => {
    const request = callOf(req, res, callerSignal(res), call);
    if (req.headers.prefer !== undefined && /(^|[\s,;])respond-async($|[\s,;])/i.test(String(req.headers.prefer))) {
      request.onPending = (pending: { approval_id: string; call_id: string }) => {
        res.status(202).set('Preference-Applied', 'respond-async').json({ success: false, pending: true, ...pending } satisfies PendingCall);
      };
    }
    const outcome = await executor.execute(request);
    if (!res.headersSent) sendJson(res, outcome.httpStatus, outcome.envelope);
  };
}

export function executeRoutes(executor: Executor, maxJsonDepth: number): Router {
  const router = Router();
  const answer = callAnswer(executor);

  router.post('/tools/:name/execute', async (req, res) => {
    await answer(req, res, { tool: req.params.name as string, arguments: req.body, via: 'http' });
  });

  router.post('/execute', async (req, res) => {
    const body = namedCall(req.body);
    await answer(req, res, { tool: body.name, arguments: body.arguments, via: 'http' });
  });

  /** OpenAI tool_calls in, role:"tool" messages out, in the same order, ready to append to the conversation. */
  router.post('/tool_calls', async (req, res) => {
    const calls = (req.body as { tool_calls?: unknown } | undefined)?.tool_calls;
    if (!Array.isArray(calls)) throw refuse.badRequest('Send {"tool_calls": [ … ]} with the tool_calls of an assistant message.');
    if (calls.length > MAX_TOOL_CALLS) throw refuse.badRequest(`At most ${MAX_TOOL_CALLS} tool calls are accepted in one request.`);
    const problems = calls.flatMap((call, i) => toolCallProblem(call, i));
    if (problems.length > 0) throw refuse.badRequest(`Malformed tool_calls: ${problems.map((p) => p.message).join('; ')}.`, { errors: problems });

    const signal = callerSignal(res);
    const batch = calls as ToolCall[];
    const messages: { role: 'tool'; tool_call_id: string; content: string }[] = new Array(batch.length);
    let answered = 0;
    let next = 0;
    const runNext = async (): Promise<void> => {
      for (let i = next++; i < batch.length; i = next++) {
        const call = batch[i]!;
        const id = call.id ?? `call_${i}`;
        if (answered >= BATCH_ANSWER_BYTES) {
          messages[i] = { role: 'tool', tool_call_id: id, content: JSON.stringify({ success: false, error: batchFull() }) };
          continue;
        }
        const decoded = decodeArguments(call.function.arguments, maxJsonDepth);
        const outcome = await executor.execute(
          callOf(req, res, signal, { tool: call.function.name, arguments: decoded.value, via: 'tool_calls', argumentsError: decoded.error }),
        );
        const content = JSON.stringify(envelopeForModel(outcome.envelope));
        answered += content.length;
        messages[i] = { role: 'tool', tool_call_id: id, content };
      }
    };
    await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, batch.length) }, runNext));
    res.json({ messages });
  });

  return router;
}

/** What a call of a batch gets when the batch's earlier answers already fill what one batch carries back. */
function batchFull(): ErrorBody {
  return errorBody(
    'OUTPUT_TOO_LARGE',
    `Not run: this batch's earlier answers already hold ${BATCH_ANSWER_BYTES} bytes, the most one request carries back; send this call again in a request of its own.`,
    { limit: BATCH_ANSWER_BYTES },
  );
}

/** `Cache-Control: no-cache` (or the older `Pragma: no-cache`): run the tool even if a cached answer exists. */
function wantsFreshAnswer(req: Request): boolean {
  if (req.headers['cache-control'] === undefined && req.headers.pragma === undefined) return false;
  const directives = `${req.headers['cache-control'] ?? ''},${req.headers.pragma ?? ''}`;
  return directives.split(',').some((d) => d.trim().toLowerCase() === 'no-cache');
}

/** The body of `POST /execute` and `POST /policy/check`: `{"name", "arguments"}` and nothing else. */
export function namedCall(body: unknown): { name: string; arguments: unknown } {
  const call = body as { name?: unknown; arguments?: unknown } | undefined;
  if (!call || typeof call !== 'object' || Array.isArray(call) || typeof call.name !== 'string') {
    throw refuse.badRequest('Send {"name": "<tool>", "arguments": {…}}.', { errors: [{ path: '/name', message: 'name must be a string' }] });
  }
  const extra = Object.keys(call).filter((k) => k !== 'name' && k !== 'arguments');
  if (extra.length > 0) {
    throw refuse.badRequest(`Unknown field${extra.length > 1 ? 's' : ''} ${extra.map((k) => `"${k}"`).join(', ')}: send {"name", "arguments"}.`);
  }
  return { name: call.name, arguments: call.arguments };
}

interface ToolCall {
  id?: string;
  type?: string;
  function: { name: string; arguments?: unknown };
}

function toolCallProblem(call: unknown, i: number): { path: string; message: string }[] {
  const c = call as Partial<ToolCall> | null;
  if (!c || typeof c !== 'object') return [{ path: `/tool_calls/${i}`, message: `tool_calls[${i}] must be an object` }];
  if (c.id !== undefined && typeof c.id !== 'string') return [{ path: `/tool_calls/${i}/id`, message: `tool_calls[${i}].id must be a string` }];
  if (c.type !== undefined && c.type !== 'function') return [{ path: `/tool_calls/${i}/type`, message: `tool_calls[${i}].type must be "function"` }];
  if (!c.function || typeof c.function !== 'object' || typeof c.function.name !== 'string') {
    return [{ path: `/tool_calls/${i}/function/name`, message: `tool_calls[${i}].function.name must be a string` }];
  }
  return [];
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { CallAnswer } from './routes/execute.js';

type Step = (req: Request, res: Response, next: NextFunction) => void;

export interface DirectCallSteps {
  /** What runs before any route, in the app's order: headers, host and origin guards, who is calling, the body. */
  checks: readonly Step[];
  answer: CallAnswer;
  /** The app's error handler: a refusal here is answered exactly as through the app. */
  fail: (error: unknown, req: Request, res: Response, next: NextFunction) => void;
}

/** Answers a request itself (true), or leaves it to the app (false). */
export type DirectRoute = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * `POST /tools/{name}/execute` in its plain form — a name of letters, digits and `_ . : -`, any query — the route of
 * nearly every tool call over HTTP, answered without the app's router: matching a request against every layer of it
 * cost more than the tool. The same functions the app uses run in the same order (the checks, then the route's
 * answer, and the app's error handler for a refusal), so an answer cannot differ by the way it came. Every other form
 * (another letter case, a trailing slash, an encoded name) is the app's, with the same outcome.
 */
export function directCalls(steps: DirectCallSteps): DirectRoute {
  const { checks, answer, fail } = steps;
  return (req, res) => {
    if (req.method !== 'POST') return false;
    const tool = PLAIN_CALL.exec(req.url ?? '')?.[1];
    if (tool === undefined) return false;
    const request = req as Request;
    const response = res as Response;
    // What the app sets on every request before its first layer (Express's app.handle); the prototypes are already
    // the app's (server.ts).
    request.res = response;
    response.req = request;
    response.locals = Object.create(null) as Response['locals'];
    const failed = (error: unknown) => fail(error, request, response, failed);
    let at = 0;
    const next = (error?: unknown) => {
      if (error) return failed(error);
      const check = checks[at++];
      if (!check) return void answer(request, response, { tool, arguments: request.body, via: 'http' }).catch(failed);
      // As the router does: a check that throws is refused like one that calls next(error), never a crash of the process.
      try {
        check(request, response, next);
      } catch (error) {
        failed(error);
      }
    };
    next();
    return true;
  };
}

const PLAIN_CALL = /^\/tools\/([A-Za-z0-9_.:-]+)\/execute(?:\?|$)/;

import type { NextFunction, Request, Response } from 'express';
import { GatewayError, ToolError, errorBody, statusOf, type RefusalName } from '../errors.js';

/** What Express's router (a bad path encoding) and the dashboard's static files refuse with, by status. */
const EXPRESS_REFUSALS: Partial<Record<number, RefusalName>> = {
  400: 'INVALID_REQUEST',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  412: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  416: 'RANGE_NOT_SATISFIABLE',
};

/** Turns every error into the envelope. Stack traces stay in the process. */
export function errorHandler(error: unknown, _req: Request, res: Response, _next: NextFunction): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (error instanceof GatewayError || error instanceof ToolError) {
    res.status(error.status).json({ success: false, error: error.toBody() });
    return;
  }
  // Express's own parsers and routing raise http-errors style objects with a status.
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const name = EXPRESS_REFUSALS[status] ?? 'INVALID_REQUEST';
    res.status(statusOf(name)).json({ success: false, error: errorBody(name, (error as Error).message) });
    return;
  }
  console.error('pincer: unexpected error while answering a request:', error);
  res.status(500).json({ success: false, error: errorBody('INTERNAL_ERROR', 'The gateway hit an unexpected error; it has been logged.') });
}

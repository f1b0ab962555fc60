import type { ErrorBody } from '../errors.js';

/**
 * The envelope every refusal answers with, and the names it can carry: the one catalogue is server/errors.ts, read
 * here as types only.
 */
export type { ErrorBody, ErrorName } from '../errors.js';

/** What a refused request answers (and what a tool call that failed answers, with HTTP 200). */
export interface ErrorEnvelope {
  success: false;
  error: ErrorBody;
}

/**
 * Errors split by audience (see STYLE.md §1–2):
 * - GatewayError: the gateway refused the request (bad auth, unknown tool, bad arguments…). Carries an HTTP status.
 * - ToolError: a tool ran and failed. Answered 200 with success:false so the model can read it and act.
 * Messages of both are written for a model or a person to read; nothing else (stack traces) leaves the process.
 */

/** Numeric codes kept alongside names for clients written against Lobster's envelope. */
export const ERROR_CODES = {
  TOOL_NOT_FOUND: 600,
  TOOL_DISABLED: 601,
  INVALID_ARGUMENTS: 602,
  TOOL_EXECUTION_ERROR: 603,
  TOOL_TIMEOUT: 604,
  POLICY_DENIED: 605,
  APPROVAL_REQUIRED: 606,
  APPROVAL_DENIED: 607,
  APPROVAL_TIMEOUT: 608,
  OUTPUT_TOO_LARGE: 609,
  CALL_CANCELLED: 610,
  TOOL_HELD: 611,
  FILES_CHANGED: 670,
  INVALID_JSON: 400,
  INVALID_REQUEST: 400,
  AUTH_MISSING: 401,
  AUTH_FAILED: 401,
  FORBIDDEN: 403,
  HOST_NOT_ALLOWED: 403,
  ORIGIN_NOT_ALLOWED: 403,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INTERNAL_ERROR: 500,
} as const satisfies Record<string, number>;

export type ErrorName = keyof typeof ERROR_CODES | (string & {});

export interface ErrorBody {
  name: string;
  code: number;
  message: string;
  details: Record<string, unknown>;
}

function codeFor(name: string): number {
  return (ERROR_CODES as Record<string, number>)[name] ?? ERROR_CODES.TOOL_EXECUTION_ERROR;
}

/** The gateway refused the request; `status` is the HTTP status to answer with. */
export class GatewayError extends Error {
  override readonly name: string;
  constructor(
    readonly errorName: ErrorName,
    readonly status: number,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'GatewayError';
  }

  toBody(): ErrorBody {
    return { name: this.errorName, code: codeFor(this.errorName), message: this.message, details: this.details };
  }
}

/** A tool ran and failed in a way it can explain (file missing, upstream error, bad expression…). */
export class ToolError extends Error {
  override readonly name: string;
  constructor(
    readonly errorName: ErrorName,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ToolError';
  }

  toBody(): ErrorBody {
    return { name: this.errorName, code: codeFor(this.errorName), message: this.message, details: this.details };
  }
}

export function errorBody(name: ErrorName, message: string, details: Record<string, unknown> = {}): ErrorBody {
  return { name, code: codeFor(name), message, details };
}

/** Common refusals, named once so every route words them the same way. */
export const refuse = {
  toolNotFound: (name: string) =>
    new GatewayError('TOOL_NOT_FOUND', 404, `There is no tool named "${name}". List the available tools with GET /tools.`),
  /** A plugin's or imported server's tool waiting for the owner's acceptance; the holder's message says what releases it. */
  toolHeld: (name: string, message: string, source: string) => new GatewayError('TOOL_HELD', 409, message, { tool: name, source }),
  toolDisabled: (name: string) =>
    new GatewayError('TOOL_DISABLED', 409, `The tool "${name}" is turned off by the owner; use another tool or ask them to enable it.`),
  notFound: (what: string) => new GatewayError('NOT_FOUND', 404, `${what} does not exist.`),
  forbidden: (message: string) => new GatewayError('FORBIDDEN', 403, message),
  ownerOnly: () =>
    new GatewayError(
      'FORBIDDEN',
      403,
      'Only the owner can do this (the dashboard session, the desktop app or the CLI on this machine); client tokens cannot.',
    ),
  badRequest: (message: string, details: Record<string, unknown> = {}) =>
    new GatewayError('INVALID_ARGUMENTS', 400, message, details),
};

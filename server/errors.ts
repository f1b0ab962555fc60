/**
 * Errors split by audience (docs/development.md, "Conventions"; every name in docs/errors.md):
 * - GatewayError: the gateway refused the request (bad auth, unknown tool, bad arguments…).
 * - ToolError: a tool ran and failed. Answered 200 with success:false so the model can read it and act.
 * Messages of both are written for a model or a person to read; nothing else (stack traces) leaves the process.
 *
 * Every name either kind carries is in ERRORS below, with the one HTTP status it is answered with and its own
 * numeric code. This module has no imports: the dashboard reads its types too.
 */

/** One catalogue entry: the HTTP status (200: answered as the call's result, `success: false`), code, meaning. */
export interface ErrorSpec {
  readonly status: number;
  readonly code: number;
  readonly meaning: string;
}

/**
 * Every error name Pincer answers with. Code families:
 * - 400–599: protocol-level refusals whose code has always been their HTTP status (Node's and Express's own, and
 *   the generic ones); only one name per code.
 * - 600–611, 670: Lobster's codes, kept for clients written against its envelope.
 * - 612–619 further call refusals · 620–629 access and request refusals · 630–639 the owner's resources
 *   (clients, conversations, settings, plugins) · 640–649 the LLM server.
 * - 700–799 tool failures: 700 files · 720 text and data · 750 network · 760 processes · 770 desktop · 780 memory.
 * - 800–819 tools from other sources: 800 plugins · 810 imported MCP servers.
 * A code once given is never reused for another name: clients match on it.
 */
export const ERRORS = {
  // Protocol-level refusals (code = HTTP status).
  INVALID_REQUEST: { status: 400, code: 400, meaning: 'The request itself is malformed: not valid HTTP, a bad path encoding, or a body without the fields the route needs.' },
  AUTH_MISSING: { status: 401, code: 401, meaning: 'No client token was sent (or it is empty).' },
  FORBIDDEN: { status: 403, code: 403, meaning: 'The caller may not do this, e.g. a client token asking for an owner-only action.' },
  NOT_FOUND: { status: 404, code: 404, meaning: 'No such route or resource (rule, approval, client, plugin, memory…).' },
  METHOD_NOT_ALLOWED: { status: 405, code: 405, meaning: 'The path exists but not for this method; the Allow header and the message name the methods it takes.' },
  REQUEST_TIMEOUT: { status: 408, code: 408, meaning: 'The request did not arrive in time; the connection is closed.' },
  PRECONDITION_FAILED: { status: 412, code: 412, meaning: 'A conditional request for a dashboard file did not match.' },
  PAYLOAD_TOO_LARGE: { status: 413, code: 413, meaning: 'The request body is over the size limit.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, code: 415, meaning: 'The body is not sent as the content type the route reads (JSON, or JSONL for imports).' },
  RANGE_NOT_SATISFIABLE: { status: 416, code: 416, meaning: 'A range request for a dashboard file lies outside it.' },
  HEADERS_TOO_LARGE: { status: 431, code: 431, meaning: 'The request headers are larger than the gateway accepts.' },
  INTERNAL_ERROR: { status: 500, code: 500, meaning: 'An unexpected error in the gateway; it is logged, no detail leaves the process.' },

  // Calls: Lobster's codes.
  TOOL_NOT_FOUND: { status: 404, code: 600, meaning: 'No tool of that name (or it is not in this client’s tool set).' },
  TOOL_DISABLED: { status: 409, code: 601, meaning: 'The tool is turned off by the owner, for everyone or for this client.' },
  INVALID_ARGUMENTS: { status: 400, code: 602, meaning: 'The arguments (or a route’s body fields) are not what is expected; details list the problems.' },
  TOOL_EXECUTION_ERROR: { status: 200, code: 603, meaning: 'The tool threw an unexpected error; its message is passed on.' },
  TOOL_TIMEOUT: { status: 200, code: 604, meaning: 'The tool did not finish within its time limit and was stopped.' },
  POLICY_DENIED: { status: 403, code: 605, meaning: 'The policy refused the call; the rule that decided is in details.' },
  APPROVAL_REQUIRED: { status: 403, code: 606, meaning: 'The call needs the owner’s approval and no one can be asked here.' },
  APPROVAL_DENIED: { status: 403, code: 607, meaning: 'The owner denied the call.' },
  APPROVAL_TIMEOUT: { status: 403, code: 608, meaning: 'The owner did not answer in time, so the call was not run.' },
  OUTPUT_TOO_LARGE: { status: 200, code: 609, meaning: 'The result is over the output limit; ask for less.' },
  CALL_CANCELLED: { status: 503, code: 610, meaning: 'The call was withdrawn: the caller left or the gateway is stopping.' },
  TOOL_HELD: { status: 409, code: 611, meaning: 'A plugin’s or imported server’s tool waits for the owner’s acceptance; the message says what releases it.' },
  FILES_CHANGED: { status: 409, code: 670, meaning: 'What the call reads changed after it was checked; call again to have it checked with the change.' },

  // Further call refusals.
  TOOLS_PAUSED: { status: 409, code: 612, meaning: 'The owner has paused all tools.' },
  TOO_MANY_APPROVALS: { status: 429, code: 613, meaning: 'This client already has as many calls waiting for approval as it may.' },

  // Access and request refusals.
  INVALID_JSON: { status: 400, code: 620, meaning: 'The body is not valid JSON, nests too deep, or has a prototype key.' },
  AUTH_FAILED: { status: 401, code: 621, meaning: 'The token is not a valid (or no longer a valid) client token.' },
  HOST_NOT_ALLOWED: { status: 403, code: 622, meaning: 'The Host header is not the gateway’s own or an allowed host (DNS rebinding).' },
  ORIGIN_NOT_ALLOWED: { status: 403, code: 623, meaning: 'The request comes from a foreign Origin.' },
  TOO_MANY_STREAMS: { status: 429, code: 624, meaning: 'This client already has as many event streams open as it may; close one first.' },

  // The owner's resources.
  CLIENT_EXISTS: { status: 409, code: 630, meaning: 'A client of that name already exists.' },
  CONVERSATION_NOT_FOUND: { status: 404, code: 631, meaning: 'No chat conversation with that id.' },
  SETTING_LOCKED: { status: 409, code: 632, meaning: 'The setting is fixed by a command-line flag, an environment variable or the data directory’s .env, which win over config.json.' },
  CONFIG_FILE_INVALID: { status: 409, code: 633, meaning: 'config.json cannot be read as settings; fix it by hand, nothing was changed.' },
  CONFIG_WRITE_FAILED: { status: 500, code: 634, meaning: 'config.json could not be saved; nothing was changed.' },
  PLUGIN_STATE: { status: 409, code: 635, meaning: 'The plugin is not in a state that allows this (not loaded, never accepted, bundled, changed since shown).' },

  // The LLM server.
  LLM_UNAVAILABLE: { status: 502, code: 640, meaning: 'The LLM server cannot be reached (is it running?).' },
  LLM_MODEL_NOT_FOUND: { status: 404, code: 641, meaning: 'The LLM server does not have that model.' },
  LLM_NO_MODEL: { status: 400, code: 642, meaning: 'No model is named or set, and the server lists none.' },
  LLM_TIMEOUT: { status: 504, code: 643, meaning: 'The LLM server sent nothing for too long; the request was stopped.' },
  LLM_BAD_RESPONSE: { status: 502, code: 644, meaning: 'The LLM server’s answer is not a valid one.' },
  LLM_ERROR: { status: 400, code: 645, meaning: 'The LLM server refused the request (a 4xx other than 429): the request was wrong for it.' },
  LLM_RATE_LIMITED: { status: 429, code: 646, meaning: 'The LLM server still answered 429 (too many requests) after the retries.' },
  LLM_SERVER_ERROR: { status: 502, code: 647, meaning: 'The LLM server failed (5xx) after the retries.' },

  // Tool failures: files.
  FILE_NOT_FOUND: { status: 200, code: 700, meaning: 'No file or folder at that path.' },
  PATH_NOT_ALLOWED: { status: 200, code: 701, meaning: 'The path is outside the roots or otherwise refused; details name the rule.' },
  NOT_A_FILE: { status: 200, code: 702, meaning: 'The path is a folder or a special file, not a regular file.' },
  NOT_A_DIRECTORY: { status: 200, code: 703, meaning: 'The path (or a part of it) is not a folder.' },
  FILE_EXISTS: { status: 200, code: 704, meaning: 'The file exists and mode "create" never replaces one.' },
  FILE_TOO_LARGE: { status: 200, code: 705, meaning: 'The file or content is over the size one call handles.' },
  FILE_IS_BINARY: { status: 200, code: 706, meaning: 'The file looks binary, so it is not returned as text.' },
  DIRECTORY_NOT_EMPTY: { status: 200, code: 707, meaning: 'The folder is not empty and recursive was not set.' },
  DIRECTORY_TOO_DEEP: { status: 200, code: 708, meaning: 'The folder tree nests deeper than a listing or deletion follows.' },
  INVALID_PATTERN: { status: 200, code: 709, meaning: 'The file pattern cannot be used.' },
  INVALID_ENCODING: { status: 200, code: 710, meaning: 'The encoding is not one the file tools know.' },
  INVALID_CONTENT: { status: 200, code: 711, meaning: 'The content cannot be written in the given encoding.' },

  // Tool failures: text and data.
  INVALID_EXPRESSION: { status: 200, code: 720, meaning: 'The calculator cannot evaluate the expression.' },
  INVALID_TIMEZONE: { status: 200, code: 721, meaning: 'The time zone is not a known IANA name.' },
  INVALID_JSON_TEXT: { status: 200, code: 722, meaning: 'The text given to json_parse is not valid JSON.' },
  JSON_TOO_DEEP: { status: 200, code: 723, meaning: 'The selected JSON value nests too deep to return.' },
  INVALID_PATH: { status: 200, code: 724, meaning: 'The JSON path cannot be read.' },
  PATH_NOT_FOUND: { status: 200, code: 725, meaning: 'Nothing in the JSON document at that path.' },
  INVALID_TEXT: { status: 200, code: 726, meaning: 'The text given to text_process is not a string.' },
  TEXT_TOO_LONG: { status: 200, code: 727, meaning: 'The text is over the length text_process handles.' },
  INVALID_OPERATION: { status: 200, code: 728, meaning: 'No text operation of that name.' },
  MISSING_PATTERN: { status: 200, code: 729, meaning: 'The operation needs a pattern.' },
  PATTERN_TOO_LONG: { status: 200, code: 730, meaning: 'The pattern is over the length allowed.' },
  INVALID_FLAGS: { status: 200, code: 731, meaning: 'The regular-expression flags cannot be used.' },
  INVALID_REGEX: { status: 200, code: 732, meaning: 'The regular expression does not compile.' },
  REGEX_FAILED: { status: 200, code: 733, meaning: 'The regular expression could not run (out of memory, worker failure).' },
  REGEX_TIMEOUT: { status: 200, code: 734, meaning: 'The regular expression ran too long (catastrophic backtracking) and was stopped.' },
  RESULT_TOO_LARGE: { status: 200, code: 735, meaning: 'The text result would be over the size allowed.' },

  // Tool failures: network.
  URL_BLOCKED: { status: 200, code: 750, meaning: 'The URL is refused (loopback, private network, scheme…); details name the rule.' },
  REQUEST_FAILED: { status: 200, code: 751, meaning: 'The outgoing request failed (DNS, connection, bad redirect, undecodable body).' },
  RESPONSE_TIMEOUT: { status: 200, code: 752, meaning: 'The remote server sent no complete answer within timeout_ms.' },
  TOO_MANY_REDIRECTS: { status: 200, code: 753, meaning: 'The URL redirected more times than allowed.' },
  WEB_SEARCH_FAILED: { status: 200, code: 754, meaning: 'The search provider failed or answered something unreadable.' },
  WEB_SEARCH_NOT_CONFIGURED: { status: 200, code: 755, meaning: 'No search provider is set up.' },

  // Tool failures: processes.
  CWD_NOT_ALLOWED: { status: 200, code: 760, meaning: 'The working folder for the command is outside the roots.' },
  SPAWN_FAILED: { status: 200, code: 761, meaning: 'The shell could not be started.' },
  PYTHON_NOT_AVAILABLE: { status: 200, code: 762, meaning: 'Python could not be started on this machine.' },

  // Tool failures: desktop.
  CLIPBOARD_UNAVAILABLE: { status: 200, code: 770, meaning: 'No clipboard here (no desktop session).' },
  CLIPBOARD_FAILED: { status: 200, code: 771, meaning: 'The clipboard could not be read or written.' },
  NOTIFY_RATE_LIMITED: { status: 200, code: 772, meaning: 'The client sent more notifications than a person can read; it may send more shortly.' },

  // Tool failures: memory.
  INVALID_MEMORY: { status: 200, code: 780, meaning: 'The memory to store cannot be stored as given.' },
  MEMORY_NOT_FOUND: { status: 200, code: 781, meaning: 'No memory with that id (visible to this client).' },

  // Tools from other sources: plugins.
  PLUGIN_ERROR: { status: 200, code: 800, meaning: 'The plugin’s handler reported an error.' },
  PLUGIN_CRASHED: { status: 200, code: 801, meaning: 'The plugin’s process died during the call.' },
  PLUGIN_UNAVAILABLE: { status: 200, code: 802, meaning: 'The plugin is not running (restarting after a crash, stopped).' },

  // Tools from other sources: imported MCP servers.
  MCP_TOOL_ERROR: { status: 200, code: 810, meaning: 'The imported server’s tool answered with an error result; its content is passed on.' },
  MCP_SERVER_ERROR: { status: 200, code: 811, meaning: 'The imported server refused the call or the read.' },
  MCP_SERVER_UNAVAILABLE: { status: 200, code: 812, meaning: 'The imported server is not running.' },
} as const satisfies Record<string, ErrorSpec>;

/** Every error name; a name not in the catalogue does not compile. */
export type ErrorName = keyof typeof ERRORS;

/** Names the gateway answers with an HTTP error status (GatewayError). */
export type RefusalName = { [K in ErrorName]: (typeof ERRORS)[K]['status'] extends 200 ? never : K }[ErrorName];

/** The `error` of a `success: false` envelope. */
export interface ErrorBody {
  name: ErrorName;
  code: number;
  message: string;
  details: Record<string, unknown>;
}

/** The HTTP status a name is answered with (200: as the call's result). */
export function statusOf(name: ErrorName): number {
  return ERRORS[name].status;
}

export function errorBody(name: ErrorName, message: string, details: Record<string, unknown> = {}): ErrorBody {
  return { name, code: ERRORS[name].code, message, details };
}

/** The gateway refused the request; the catalogue gives the HTTP status to answer with. */
export class GatewayError extends Error {
  override readonly name: string;
  constructor(
    readonly errorName: RefusalName,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'GatewayError';
  }

  get status(): number {
    return statusOf(this.errorName);
  }

  toBody(): ErrorBody {
    return errorBody(this.errorName, this.message, this.details);
  }
}

/**
 * A tool ran and failed in a way it can explain (file missing, upstream error, bad expression…). A tool may also
 * raise a refusal it found itself (INVALID_ARGUMENTS, CALL_CANCELLED): the name's status is answered either way.
 */
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

  get status(): number {
    return statusOf(this.errorName);
  }

  toBody(): ErrorBody {
    return errorBody(this.errorName, this.message, this.details);
  }
}

/** `"a"`, `"a" or "b"`, `"a", "b" or "c"`: the names a "did you mean" offers. */
export function quotedChoice(names: readonly string[]): string {
  const quoted = names.map((n) => `"${n}"`);
  return quoted.length <= 1 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)!}`;
}

/** Refusals named once, so every route words them the same way. */
export const refuse = {
  /** `closest`: the caller's own usable tools nearest the name (never a tool outside its set). */
  toolNotFound: (name: string, closest: readonly string[] = []) =>
    new GatewayError(
      'TOOL_NOT_FOUND',
      `There is no tool named "${name}".${closest.length > 0 ? ` Did you mean ${quotedChoice(closest)}?` : ''} List the available tools with GET /tools.`,
      { did_you_mean: [...closest] },
    ),
  /** A plugin's or imported server's tool waiting for the owner's acceptance; the holder's message says what releases it. */
  toolHeld: (name: string, message: string, source: string) => new GatewayError('TOOL_HELD', message, { tool: name, source }),
  toolDisabled: (name: string) =>
    new GatewayError('TOOL_DISABLED', `The tool "${name}" is turned off by the owner; use another tool or ask them to enable it.`),
  notFound: (what: string) => new GatewayError('NOT_FOUND', `${what} does not exist.`),
  forbidden: (message: string) => new GatewayError('FORBIDDEN', message),
  ownerOnly: () =>
    new GatewayError(
      'FORBIDDEN',
      'Only the owner can do this (the dashboard session, the desktop app or the CLI on this machine); client tokens cannot.',
    ),
  /** A route's body or query is missing a field or has a wrong one. */
  badRequest: (message: string, details: Record<string, unknown> = {}) => new GatewayError('INVALID_ARGUMENTS', message, details),
  /** A request the route cannot read at all (the LLM bridge and proxies: no message, not their API's shape). */
  invalidRequest: (message: string) => new GatewayError('INVALID_REQUEST', message),
  conversationNotFound: (id: string) => new GatewayError('CONVERSATION_NOT_FOUND', `No conversation "${id}".`),
  /** `setBy` says which keys a flag, variable or .env fixes; `locked` maps each key to the name that fixes it. */
  settingLocked: (setBy: string, locked: Record<string, string>) =>
    new GatewayError(
      'SETTING_LOCKED',
      `${setBy}, which wins over config.json; the dashboard cannot change it. Change or remove it there and restart Pincer.`,
      { locked },
    ),
  clientExists: (message: string) => new GatewayError('CLIENT_EXISTS', message),
  toolsPaused: () => new GatewayError('TOOLS_PAUSED', 'The owner has paused all tools; no tool runs until they resume them.'),
  /** The call was withdrawn (caller gone, gateway stopping); the message says which. */
  callCancelled: (message: string) => new GatewayError('CALL_CANCELLED', message),
};

import { TextDecoder } from 'node:util';
import { ToolError } from '../errors.js';
import { parseUntrustedJson } from '../util/json.js';
import type { FetchResult } from '../security/net.js';
import type { ObjectSchema } from './types.js';

/** What http_get and http_post share: their common arguments and how an answer is shown to a model. */

export const DEFAULT_MAX_BYTES = 1024 * 1024;
export const MAX_BYTES_LIMIT = 5 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 15_000;
export const MAX_TIMEOUT_MS = 60_000;
/** The tools' own limit sits above the longest timeout_ms, so a slow server gets RESPONSE_TIMEOUT, not TOOL_TIMEOUT. */
export const HTTP_TOOL_TIMEOUT_MS = MAX_TIMEOUT_MS + 5_000;
const MAX_HEADERS = 50;
const MAX_HEADER_VALUE = 8192;
const JSON_MAX_DEPTH = 64;

export const URL_PROPERTY = {
  type: 'string',
  minLength: 1,
  maxLength: 8192,
  description: 'The full http:// or https:// URL. Addresses on this machine or the local network are refused unless the owner allows them.',
} as const;

export const HEADERS_PROPERTY = {
  type: 'object',
  description:
    'Extra request headers, e.g. {"Accept": "application/json", "Authorization": "Bearer …"}. Host, Connection, ' +
    'Content-Length, Transfer-Encoding and other framing headers cannot be set. Authorization and Cookie are dropped ' +
    'when a redirect leads to another site.',
  additionalProperties: { type: 'string', maxLength: MAX_HEADER_VALUE },
  maxProperties: MAX_HEADERS,
} as const;

export const MAX_BYTES_PROPERTY = {
  type: 'integer',
  minimum: 1,
  maximum: MAX_BYTES_LIMIT,
  default: DEFAULT_MAX_BYTES,
  description: `Read at most this many bytes of the (decompressed) body; longer answers are cut and marked truncated. Default ${DEFAULT_MAX_BYTES}, at most ${MAX_BYTES_LIMIT}.`,
} as const;

export const TIMEOUT_PROPERTY = {
  type: 'integer',
  minimum: 100,
  maximum: MAX_TIMEOUT_MS,
  default: DEFAULT_TIMEOUT_MS,
  description: `Give up after this many milliseconds in total, redirects included. Default ${DEFAULT_TIMEOUT_MS}, at most ${MAX_TIMEOUT_MS}.`,
} as const;

export const RESULT_DESCRIPTION =
  'Returns { ok (status 2xx), status, status_text, url, final_url, redirects, headers (a safe subset), content_type, ' +
  'body_encoding ("text" or "base64" for binary), body, json (the parsed body when the server says it is JSON; body ' +
  'is then left out), bytes, truncated }. An HTTP error status such as 404 is a normal result with ok: false. ' +
  'Redirects are followed (at most 5), each one checked again.';

/**
 * Headers a caller may not set. Security: Host would aim the request at another virtual host than the one checked;
 * framing headers (Content-Length, Transfer-Encoding) could smuggle a second request; hop-by-hop headers belong to
 * the connection the gateway owns.
 */
const FORBIDDEN_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'proxy-connection',
  'expect',
]);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Security: CR and LF would let a value start a new header line.
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** The caller's request headers, checked; throws INVALID_ARGUMENTS naming the first bad one. */
export function requestHeaders(input: unknown): Record<string, string> {
  if (input === undefined || input === null) return {};
  if (typeof input !== 'object' || Array.isArray(input)) throw new ToolError('INVALID_ARGUMENTS', 'headers must be an object of header names to string values.');
  const entries = Object.entries(input as Record<string, unknown>);
  if (entries.length > MAX_HEADERS) throw new ToolError('INVALID_ARGUMENTS', `At most ${MAX_HEADERS} headers can be sent.`);
  const headers: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (!TOKEN.test(name)) throw new ToolError('INVALID_ARGUMENTS', `${JSON.stringify(name.slice(0, 60))} is not a valid header name.`);
    if (FORBIDDEN_HEADERS.has(name.toLowerCase())) {
      throw new ToolError('INVALID_ARGUMENTS', `The header "${name}" cannot be set: the gateway sets it for the connection it checked. Leave it out.`);
    }
    if (typeof value !== 'string' || value.length > MAX_HEADER_VALUE || !FIELD_VALUE.test(value)) {
      throw new ToolError('INVALID_ARGUMENTS', `The value of header "${name}" must be a string of at most ${MAX_HEADER_VALUE} characters without line breaks.`);
    }
    headers[name.toLowerCase()] = value;
  }
  return headers;
}

function clampInteger(value: unknown, fallback: number, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.floor(value)));
}

/** The response size and time limits a call asked for, kept within the tools' bounds. */
export function responseLimits(args: { max_bytes?: unknown; timeout_ms?: unknown }): { maxBytes: number; timeoutMs: number } {
  return {
    maxBytes: clampInteger(args.max_bytes, DEFAULT_MAX_BYTES, 1, MAX_BYTES_LIMIT),
    timeoutMs: clampInteger(args.timeout_ms, DEFAULT_TIMEOUT_MS, 100, MAX_TIMEOUT_MS),
  };
}

export interface HttpToolResult {
  ok: boolean;
  status: number;
  status_text: string;
  url: string;
  final_url: string;
  redirects: string[];
  headers: Record<string, string>;
  content_type: string | null;
  body_encoding: 'text' | 'base64';
  body?: string;
  json?: unknown;
  json_error?: string;
  bytes: number;
  truncated: boolean;
}

/** The result's JSON Schema (MCP `outputSchema`), as HttpToolResult has it. */
export const HTTP_OUTPUT_SCHEMA: ObjectSchema = {
  type: 'object',
  properties: {
    ok: { type: 'boolean' },
    status: { type: 'integer' },
    status_text: { type: 'string' },
    url: { type: 'string' },
    final_url: { type: 'string' },
    redirects: { type: 'array', items: { type: 'string' } },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    content_type: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    body_encoding: { enum: ['text', 'base64'] },
    body: { type: 'string' },
    json: { anyOf: [{ type: 'object', additionalProperties: true }, { type: 'array' }, { type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] },
    json_error: { type: 'string' },
    bytes: { type: 'integer' },
    truncated: { type: 'boolean' },
  },
  required: ['ok', 'status', 'status_text', 'url', 'final_url', 'redirects', 'headers', 'content_type', 'body_encoding', 'bytes', 'truncated'],
};

/** Response headers worth showing; Set-Cookie and the like stay out of the model's context and the call log. */
const SHOWN_HEADERS = [
  'content-type',
  'content-length',
  'content-language',
  'content-disposition',
  'last-modified',
  'etag',
  'location',
  'cache-control',
  'expires',
  'date',
  'age',
  'retry-after',
  'link',
  'www-authenticate',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
];

const JSON_TYPE = /^(?:application\/(?:[\w.+-]+\+)?json|text\/json)$/;
const TEXT_TYPE =
  /^(?:text\/[\w.+-]+|application\/(?:[\w.+-]+\+)?(?:json|xml)|application\/(?:javascript|ecmascript|x-javascript|x-www-form-urlencoded|x-ndjson|yaml|x-yaml|toml|graphql|sql|csv|x-sh|x-httpd-php)|image\/svg\+xml)$/;

/** Shapes a fetched answer for a model: text decoded by its charset, JSON parsed, anything else base64. */
export function describeResponse(requested: string, res: FetchResult): HttpToolResult {
  const contentType = headerText(res.headers['content-type']);
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  const headers: Record<string, string> = {};
  for (const name of SHOWN_HEADERS) {
    const value = headerText(res.headers[name]);
    if (value !== undefined) headers[name] = value.slice(0, 2000);
  }
  if (res.encoding) headers['content-encoding'] = res.encoding;
  const result: HttpToolResult = {
    ok: res.status >= 200 && res.status < 300,
    status: res.status,
    status_text: res.statusText,
    url: requested,
    final_url: res.finalUrl,
    redirects: res.redirects,
    headers,
    content_type: contentType ?? null,
    body_encoding: 'text',
    bytes: res.body.length,
    truncated: res.truncated,
  };
  const isText = !res.encoding && (mediaType ? TEXT_TYPE.test(mediaType) : looksLikeText(res.body));
  if (!isText) {
    result.body_encoding = 'base64';
    result.body = res.body.toString('base64');
    return result;
  }
  const text = decodeText(res.body, charsetOf(contentType));
  if (JSON_TYPE.test(mediaType) && text.trim() !== '') {
    if (res.truncated) {
      result.json_error = 'The body was cut at max_bytes, so it is not complete JSON; ask for more bytes to have it parsed.';
    } else {
      try {
        result.json = parseUntrustedJson(text, JSON_MAX_DEPTH, 'The response body');
        return result;
      } catch (error) {
        result.json_error = (error as Error).message;
      }
    }
  }
  result.body = text;
  return result;
}

function headerText(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(', ') : value;
}

function charsetOf(contentType: string | undefined): string {
  const match = /;\s*charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType ?? '');
  return match?.[1]?.toLowerCase() ?? 'utf-8';
}

function decodeText(body: Buffer, charset: string): string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset);
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  return decoder.decode(body);
}

/** Without a Content-Type: text when it has no NUL bytes and is valid UTF-8 (a character cut at the end aside). */
function looksLikeText(body: Buffer): boolean {
  const head = body.subarray(0, 8192);
  if (head.includes(0)) return false;
  try {
    // stream: a character the size cap cut in half is held back, not an error.
    new TextDecoder('utf-8', { fatal: true }).decode(body, { stream: true });
    return true;
  } catch {
    return false;
  }
}

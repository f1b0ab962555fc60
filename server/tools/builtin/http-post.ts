import { ToolError } from '../../errors.js';
import type { NetGuard } from '../../security/net.js';
import {
  describeResponse,
  responseLimits,
  HEADERS_PROPERTY,
  HTTP_TOOL_TIMEOUT_MS,
  MAX_BYTES_PROPERTY,
  requestHeaders,
  RESULT_DESCRIPTION,
  TIMEOUT_PROPERTY,
  URL_PROPERTY,
  HTTP_OUTPUT_SCHEMA,
  type HttpToolResult,
} from '../http-response.js';
import { defineTool } from '../types.js';

const MAX_REQUEST_BODY = 1024 * 1024;

interface HttpPostArgs {
  url: string;
  body?: unknown;
  content_type?: string;
  headers?: Record<string, string>;
  max_bytes?: number;
  timeout_ms?: number;
}

export function createHttpPostTool(net: NetGuard) {
  return defineTool<HttpPostArgs, HttpToolResult>({
    name: 'http_post',
    description:
      'Send data to a web API with an HTTP(S) POST request and return the answer. A string body is sent as text ' +
      '(text/plain unless content_type says otherwise); any other JSON value (object, array, number…) is sent as ' +
      'JSON (application/json). ' +
      RESULT_DESCRIPTION +
      ' A redirect with 301, 302 or 303 continues as a GET without the body; 307 and 308 repeat the POST. Sending ' +
      'data off the machine usually needs the owner\'s approval; addresses on this machine or the local network are ' +
      'refused unless the owner lists them in http_allow.',
    parameters: {
      type: 'object',
      properties: {
        url: URL_PROPERTY,
        body: {
          // Any JSON value, said in so many words (a schema with no keyword reads as a mistake to strict checkers), one
          // type per branch (single-type dialects such as Gemini's cannot read a list of types).
          anyOf: (['string', 'object', 'array', 'number', 'boolean', 'null'] as const).map((type) => ({ type })),
          description: 'The request body: a string is sent as is, any other JSON value is sent as JSON. Omit for an empty body.',
        },
        content_type: {
          type: 'string',
          maxLength: 200,
          description: 'The Content-Type to send, e.g. "application/x-www-form-urlencoded". Defaults from the body (see above).',
        },
        headers: HEADERS_PROPERTY,
        max_bytes: MAX_BYTES_PROPERTY,
        timeout_ms: TIMEOUT_PROPERTY,
      },
      required: ['url'],
      additionalProperties: false,
    },
    outputSchema: HTTP_OUTPUT_SCHEMA,
    category: 'network',
    risk: 'dangerous',
    annotations: {
      title: 'HTTP POST',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    },
    timeoutMs: HTTP_TOOL_TIMEOUT_MS,
    handler: async (args, ctx) => {
      const headers = requestHeaders(args.headers);
      const { payload, type } = encodeBody(args.body);
      if (payload.length > MAX_REQUEST_BODY) {
        throw new ToolError('INVALID_ARGUMENTS', `The body is ${payload.length} bytes; at most ${MAX_REQUEST_BODY} can be sent.`);
      }
      const contentType = args.content_type ?? headers['content-type'] ?? type;
      if (/[\r\n]/.test(contentType)) throw new ToolError('INVALID_ARGUMENTS', 'content_type must not contain line breaks.');
      headers['content-type'] = contentType;
      const response = await net.fetch(args.url, {
        method: 'POST',
        headers,
        body: payload,
        signal: ctx.signal,
        ...responseLimits(args),
      });
      return describeResponse(args.url, response);
    },
  });
}

function encodeBody(body: unknown): { payload: Buffer; type: string } {
  if (body === undefined) return { payload: Buffer.alloc(0), type: 'text/plain; charset=utf-8' };
  if (typeof body === 'string') return { payload: Buffer.from(body, 'utf8'), type: 'text/plain; charset=utf-8' };
  return { payload: Buffer.from(JSON.stringify(body), 'utf8'), type: 'application/json' };
}

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

interface HttpGetArgs {
  url: string;
  headers?: Record<string, string>;
  max_bytes?: number;
  timeout_ms?: number;
}

export function createHttpGetTool(net: NetGuard) {
  return defineTool<HttpGetArgs, HttpToolResult>({
    name: 'http_get',
    description:
      'Fetch a web page or API over HTTP(S) with a GET request and return its status, headers and body. Use it to ' +
      'read documentation, download JSON from an API or check that a site answers. ' +
      RESULT_DESCRIPTION +
      ' Addresses on this machine or the local network (localhost, 10.x, 192.168.x, cloud metadata…) are refused ' +
      'unless the owner lists them in http_allow; the refusal says why.',
    parameters: {
      type: 'object',
      properties: {
        url: URL_PROPERTY,
        headers: HEADERS_PROPERTY,
        max_bytes: MAX_BYTES_PROPERTY,
        timeout_ms: TIMEOUT_PROPERTY,
      },
      required: ['url'],
      additionalProperties: false,
    },
    outputSchema: HTTP_OUTPUT_SCHEMA,
    category: 'network',
    risk: 'sensitive',
    annotations: {
      title: 'HTTP GET',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    },
    timeoutMs: HTTP_TOOL_TIMEOUT_MS,
    handler: async (args, ctx) => {
      const response = await net.fetch(args.url, {
        method: 'GET',
        headers: requestHeaders(args.headers),
        signal: ctx.signal,
        ...responseLimits(args),
      });
      return describeResponse(args.url, response);
    },
  });
}

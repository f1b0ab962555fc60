import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { META_PROTOCOL_VERSION, nameHeaderSource } from '../era.js';
import { isPlainObject } from '../../util/json.js';

/** The most one answer (or one event of a stream) may hold: a server cannot make Pincer buffer without end. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export class StatelessHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Sends one message of the stateless revision (2026-07-28) as its own POST, with the standard headers the revision
 * requires, and hands every message of the answer to `onMessage` as it arrives: one JSON body, or the events of an
 * SSE stream (progress, then the answer). Resolves when the answer is complete.
 */
export async function postStateless(
  url: URL,
  headers: Readonly<Record<string, string>>,
  message: JSONRPCMessage,
  onMessage: (message: JSONRPCMessage) => void,
  signal?: AbortSignal,
): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...headers, ...standardHeaders(message), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(message),
    ...(signal && { signal }),
  });
  if (response.status === 202) return void (await response.body?.cancel());
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('text/event-stream') && response.ok) {
    for await (const data of sseData(response)) onMessage(JSON.parse(data) as JSONRPCMessage);
    return;
  }
  const text = await readCapped(response);
  // An error the server answered in JSON-RPC (a 400 for a bad envelope, a 404 for an unknown method) is its answer.
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new StatelessHttpError(response.status, `the server answered HTTP ${response.status} without JSON-RPC: ${text.slice(0, 200)}`);
  }
  if (isPlainObject(parsed) && parsed.jsonrpc === '2.0' && ('result' in parsed || 'error' in parsed)) {
    // Refusals before dispatch come with id null: they answer the request that was sent.
    const id = (message as { id?: unknown }).id;
    return onMessage((parsed.id === null && id !== undefined ? { ...parsed, id } : parsed) as JSONRPCMessage);
  }
  throw new StatelessHttpError(response.status, `the server answered HTTP ${response.status} with something other than a JSON-RPC answer`);
}

/** `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`, as the revision asks of every request. */
function standardHeaders(message: JSONRPCMessage): Record<string, string> {
  const method = (message as { method?: unknown }).method;
  const params = (message as { params?: unknown }).params;
  const meta = isPlainObject(params) && isPlainObject(params._meta) ? params._meta : undefined;
  const version = meta?.[META_PROTOCOL_VERSION];
  const headers: Record<string, string> = {};
  if (typeof version === 'string') headers['mcp-protocol-version'] = version;
  if (typeof method !== 'string') return headers;
  headers['mcp-method'] = method;
  const field = nameHeaderSource(method);
  const value = field && isPlainObject(params) ? params[field] : undefined;
  if (typeof value === 'string') headers['mcp-name'] = headerValue(value);
  return headers;
}

/** A value as an HTTP field: plain printable ASCII as is, anything else as `=?base64?…?=` of its UTF-8 bytes. */
function headerValue(value: string): string {
  const plain = value !== '' && value === value.trim() && /^[\x20-\x7e\t]*$/.test(value) && !(value.startsWith('=?base64?') && value.endsWith('?='));
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

async function readCapped(response: Response): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of (response.body ?? []) as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await response.body?.cancel().catch(() => undefined);
      throw new StatelessHttpError(response.status, `the server's answer is larger than ${MAX_ANSWER_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The `data` of each event of an SSE body (comments and keepalives skipped). */
async function* sseData(response: Response): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = '';
  let data: string[] = [];
  for await (const chunk of (response.body ?? []) as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    if (buffered.length > MAX_ANSWER_BYTES) throw new StatelessHttpError(response.status, `an event of the server's stream is larger than ${MAX_ANSWER_BYTES} bytes`);
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline).replace(/\r$/, '');
      buffered = buffered.slice(newline + 1);
      if (line === '') {
        if (data.length > 0) yield data.join('\n');
        data = [];
      } else if (line.startsWith('data:')) {
        data.push(line.slice(line[5] === ' ' ? 6 : 5));
      }
    }
  }
  if (data.length > 0) yield data.join('\n');
}

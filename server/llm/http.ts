import { GatewayError, refuse } from '../errors.js';
import { answerTooLarge, timedOut, unreachable, upstreamFailed, upstreamMessage } from './errors.js';
import type { LlmApi } from './types.js';

export interface UpstreamOptions {
  baseUrl: string;
  api: LlmApi;
  apiKey?: string | undefined;
  /** Attempts after the first on a connection error, a 5xx or a 429; never on another 4xx. */
  retries: number;
  /** First backoff; each retry doubles it (a Retry-After of up to 30 s is honoured instead). */
  backoffMs: number;
  /** How long the server may stay silent (no headers, no bytes) before the request is given up. */
  idleTimeoutMs: number;
  /** Caps on what one answer may weigh; `ANSWER_LIMITS` unless a test lowers them. */
  maxBodyBytes?: number | undefined;
  maxStreamBytes?: number | undefined;
  maxLineBytes?: number | undefined;
}

export const DEFAULT_UPSTREAM = { retries: 2, backoffMs: 500, idleTimeoutMs: 300_000 } as const;

const MiB = 2 ** 20;

/**
 * What one answer of the LLM server may weigh. Whatever listens at the configured URL (a broken server, a hostile
 * one) could otherwise stream gigabytes, or one endless line, into the gateway's memory; the silence timer does not
 * stop a server that keeps talking. Real answers stay far below: a whole answer with tool calls is rarely over a few
 * MiB, while a streamed one wraps every token in a few hundred bytes of JSON (a 100k-token answer is about 30 MiB on
 * the wire), each line small and dropped once parsed.
 */
export const ANSWER_LIMITS = {
  /** A whole (non-streamed) answer: held in memory until it is parsed. */
  maxBodyBytes: 32 * MiB,
  /** All the lines of one streamed answer together. */
  maxStreamBytes: 64 * MiB,
  /** One line of a stream (an NDJSON chunk, an SSE line): held until its newline comes. */
  maxLineBytes: 4 * MiB,
} as const;

/** Of an error answer only an excerpt is shown, so only that much is read; the rest is never taken in. */
const ERROR_EXCERPT_BYTES = 8 * 1024;

/** An answer whose status was 2xx; its body is read by the caller (as a stream, or whole). */
export interface UpstreamResponse {
  response: Response;
  /** Restarts the silence timer: call it on every chunk read. */
  touch(): void;
  /** Stops the timer once the body is read. */
  done(): void;
  /** Why the request was aborted by the timer, for the error the reader throws. */
  timeoutError(): GatewayError | undefined;
  /** The server as configured, for the errors a reader throws. */
  baseUrl: string;
  /** The caps this answer is read under. */
  limits: { body: number; stream: number; line: number };
  /** Gives the request up (a cap was hit): the connection is closed and the timer stopped. */
  abort(): void;
}

/**
 * Sends one request to the LLM server, retrying connection errors, 5xx and 429 with backoff. The silence timer and
 * the caller's signal both abort it; a 4xx is answered with the upstream's own message.
 */
export async function upstreamRequest(
  options: UpstreamOptions,
  path: string,
  init: { method: 'GET' | 'POST'; body?: unknown; signal?: AbortSignal | undefined },
  classify?: (status: number, message: string) => GatewayError | undefined,
): Promise<UpstreamResponse> {
  const url = `${options.baseUrl.replace(/\/+$/, '')}${path}`;
  let attempt = 0;
  for (;;) {
    const controller = new AbortController();
    let timedOutFlag = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOutFlag = true;
        controller.abort();
      }, options.idleTimeoutMs);
    };
    const onCallerGone = () => controller.abort();
    init.signal?.addEventListener('abort', onCallerGone, { once: true });
    const cleanup = () => {
      clearTimeout(timer);
      init.signal?.removeEventListener('abort', onCallerGone);
    };
    arm();
    let response: Response;
    try {
      if (init.signal?.aborted) throw init.signal.reason ?? new Error('aborted');
      response = await fetch(url, {
        method: init.method,
        headers: {
          accept: 'application/json, text/event-stream, application/x-ndjson',
          ...(init.body !== undefined && { 'content-type': 'application/json' }),
          ...(options.apiKey && { authorization: `Bearer ${options.apiKey}` }),
        },
        ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
        signal: controller.signal,
      });
    } catch (error) {
      cleanup();
      if (init.signal?.aborted) throw cancelled(init.signal);
      if (timedOutFlag) throw timedOut(options.baseUrl, options.idleTimeoutMs);
      if (attempt < options.retries) {
        await pause(options.backoffMs * 2 ** attempt++, init.signal);
        continue;
      }
      throw unreachable(options.baseUrl, options.api, connectionProblem(error));
    }
    if (response.ok) {
      return {
        response,
        baseUrl: options.baseUrl,
        touch: arm,
        done: cleanup,
        timeoutError: () => (timedOutFlag ? timedOut(options.baseUrl, options.idleTimeoutMs) : init.signal?.aborted ? cancelled(init.signal) : undefined),
        limits: {
          body: options.maxBodyBytes ?? ANSWER_LIMITS.maxBodyBytes,
          stream: options.maxStreamBytes ?? ANSWER_LIMITS.maxStreamBytes,
          line: options.maxLineBytes ?? ANSWER_LIMITS.maxLineBytes,
        },
        abort: () => {
          cleanup();
          controller.abort();
        },
      };
    }
    // An error body only feeds a one-line message: an excerpt is read and the connection dropped, however much
    // the server meant to send.
    const text = await excerpt(response).catch(() => '');
    cleanup();
    const retryable = response.status >= 500 || response.status === 429;
    if (retryable && attempt < options.retries) {
      const after = Number(response.headers.get('retry-after'));
      const wait = Number.isFinite(after) && after > 0 && after <= 30 ? after * 1000 : options.backoffMs * 2 ** attempt;
      attempt++;
      await pause(wait, init.signal);
      continue;
    }
    const message = upstreamMessage(text);
    throw classify?.(response.status, message) ?? upstreamFailed(response.status, message);
  }
}

/** The caller went away (nothing to answer), or the gateway stopped the turn and said why (the signal's reason). */
export function cancelled(signal?: AbortSignal): GatewayError {
  return signal?.reason instanceof GatewayError ? signal.reason : refuse.callCancelled('The request was cancelled.');
}

function connectionProblem(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancelled(signal));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelled(signal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The first few KiB of an error body; the rest is cancelled unread. */
async function excerpt(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < ERROR_EXCERPT_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, ERROR_EXCERPT_BYTES));
}

/** The answer is over a cap: the connection is dropped before another byte is taken in. */
function refuseOversized(upstream: UpstreamResponse, body: { cancel(): Promise<void> } | undefined, limit: number, what: 'answer' | 'line'): GatewayError {
  body?.cancel().catch(() => {});
  upstream.abort();
  return answerTooLarge(upstream.baseUrl, limit, what);
}

/**
 * The body of a streamed answer, line by line (NDJSON and SSE are both line-based). Every chunk restarts the silence
 * timer; an abort surfaces as the timeout or cancellation it was. A line over `limits.line`, or a whole stream over
 * `limits.stream`, fails the turn as soon as the cap is passed.
 */
export async function* lines(upstream: UpstreamResponse): AsyncGenerator<string> {
  const body = upstream.response.body;
  if (!body) return;
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  // Bytes of the line still waiting for its newline, counted on the wire (the decoded text may be shorter).
  let pending = 0;
  let total = 0;
  try {
    for (;;) {
      const chunk = await nextChunk(reader, upstream, (message) => new GatewayError('LLM_UNAVAILABLE', `The LLM server's answer broke off: ${message}`));
      if (!chunk) break;
      upstream.touch();
      total += chunk.byteLength;
      if (total > upstream.limits.stream) throw refuseOversized(upstream, reader, upstream.limits.stream, 'answer');
      // Every line the chunk ends, and the one it leaves open, measured before any of it is kept.
      let from = 0;
      for (let newline = chunk.indexOf(0x0a); newline >= 0; newline = chunk.indexOf(0x0a, from)) {
        if (pending + newline - from > upstream.limits.line) throw refuseOversized(upstream, reader, upstream.limits.line, 'line');
        pending = 0;
        from = newline + 1;
      }
      pending += chunk.byteLength - from;
      if (pending > upstream.limits.line) throw refuseOversized(upstream, reader, upstream.limits.line, 'line');
      buffered += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        yield buffered.slice(0, newline).replace(/\r$/, '');
        buffered = buffered.slice(newline + 1);
      }
    }
    buffered += decoder.decode();
    if (buffered !== '') yield buffered;
  } finally {
    // Also when the caller stops early (`[DONE]`, an error of its own): nothing more is read.
    reader.cancel().catch(() => {});
    upstream.done();
  }
}

/**
 * A whole JSON answer, read up to `limits.body` (a Content-Length over it is refused before reading); its silence
 * timer, not restarted by the chunks, is stopped once read.
 */
export async function jsonBody(upstream: UpstreamResponse): Promise<unknown> {
  const limit = upstream.limits.body;
  const declared = Number(upstream.response.headers.get('content-length'));
  const body = upstream.response.body;
  try {
    if (declared > limit) throw refuseOversized(upstream, body ?? undefined, limit, 'answer');
    const chunks: Uint8Array[] = [];
    let size = 0;
    if (body) {
      const reader = body.getReader();
      for (;;) {
        const chunk = await nextChunk(reader, upstream, notJson);
        if (!chunk) break;
        size += chunk.byteLength;
        if (size > limit) throw refuseOversized(upstream, reader, limit, 'answer');
        chunks.push(chunk);
      }
    }
    try {
      return JSON.parse(new TextDecoder().decode(Buffer.concat(chunks)));
    } catch (error) {
      throw notJson((error as Error).message);
    }
  } finally {
    upstream.done();
  }
}

const notJson = (message: string) => new GatewayError('LLM_BAD_RESPONSE', `The LLM server's answer is not JSON: ${message}`);

/**
 * The next chunk of an answer's body, or undefined at its end. A read that fails is the timeout or cancellation that
 * aborted it, or else `broken` with the failure's message.
 */
async function nextChunk(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  upstream: UpstreamResponse,
  broken: (message: string) => GatewayError,
): Promise<Uint8Array | undefined> {
  try {
    const read = await reader.read();
    return read.done ? undefined : read.value;
  } catch (error) {
    throw upstream.timeoutError() ?? broken((error as Error).message);
  }
}

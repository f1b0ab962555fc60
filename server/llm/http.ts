import { GatewayError, refuse } from '../errors.js';
import { timedOut, unreachable, upstreamFailed, upstreamMessage } from './errors.js';
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
}

export const DEFAULT_UPSTREAM = { retries: 2, backoffMs: 500, idleTimeoutMs: 300_000 } as const;

/** An answer whose status was 2xx; its body is read by the caller (as a stream, or whole). */
export interface UpstreamResponse {
  response: Response;
  /** Restarts the silence timer: call it on every chunk read. */
  touch(): void;
  /** Stops the timer once the body is read. */
  done(): void;
  /** Why the request was aborted by the timer, for the error the reader throws. */
  timeoutError(): GatewayError | undefined;
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
      if (init.signal?.aborted) throw cancelled();
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
        touch: arm,
        done: cleanup,
        timeoutError: () => (timedOutFlag ? timedOut(options.baseUrl, options.idleTimeoutMs) : init.signal?.aborted ? cancelled() : undefined),
      };
    }
    const text = await response.text().catch(() => '');
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

/** The caller went away: nothing to answer. */
export function cancelled(): GatewayError {
  return refuse.callCancelled('The request was cancelled.');
}

function connectionProblem(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancelled());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelled());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The body of a streamed answer, line by line (NDJSON and SSE are both line-based). Every chunk restarts the silence
 * timer; an abort surfaces as the timeout or cancellation it was.
 */
export async function* lines(upstream: UpstreamResponse): AsyncGenerator<string> {
  const body = upstream.response.body;
  if (!body) return;
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      upstream.touch();
      buffered += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        yield buffered.slice(0, newline).replace(/\r$/, '');
        buffered = buffered.slice(newline + 1);
      }
    }
    buffered += decoder.decode();
    if (buffered !== '') yield buffered;
  } catch (error) {
    throw upstream.timeoutError() ?? new GatewayError('LLM_UNAVAILABLE', `The LLM server's answer broke off: ${(error as Error).message}`);
  } finally {
    upstream.done();
  }
}

/** A whole JSON answer; its silence timer is stopped once read. */
export async function jsonBody(upstream: UpstreamResponse): Promise<unknown> {
  try {
    return await upstream.response.json();
  } catch (error) {
    throw upstream.timeoutError() ?? new GatewayError('LLM_BAD_RESPONSE', `The LLM server's answer is not JSON: ${(error as Error).message}`);
  } finally {
    upstream.done();
  }
}

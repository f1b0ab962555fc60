import { GatewayError } from '../errors.js';

/** What went wrong talking to the LLM server, written for the person who has to fix it. */
export function unreachable(baseUrl: string, api: 'ollama' | 'openai', cause: string): GatewayError {
  const hint = api === 'ollama' ? ' Is Ollama running? Start it with `ollama serve`.' : ' Is the LLM server running at that address?';
  return new GatewayError('LLM_UNAVAILABLE', `Cannot reach the LLM server at ${baseUrl} (${cause}).${hint}`, { base_url: baseUrl });
}

export function modelNotFound(model: string, api: 'ollama' | 'openai', upstream: string): GatewayError {
  const hint = api === 'ollama' ? ` Download it with \`ollama pull ${model}\`, or pick one from \`ollama list\`.` : ' Pick one the server lists at /v1/models.';
  return new GatewayError('LLM_MODEL_NOT_FOUND', `Model not found: "${model}" (${upstream}).${hint}`, { model });
}

export function upstreamFailed(status: number, message: string): GatewayError {
  // The upstream's own 4xx says the request was wrong: the caller should see it as such, not as our failure.
  const name = status === 429 ? 'LLM_RATE_LIMITED' : status >= 400 && status < 500 ? 'LLM_ERROR' : 'LLM_SERVER_ERROR';
  return new GatewayError(name, `The LLM server answered ${status}: ${message}`, { upstream_status: status });
}

export function badResponse(message: string): GatewayError {
  return new GatewayError('LLM_BAD_RESPONSE', `The LLM server sent something that is not a valid answer: ${message}`);
}

/** An answer over one of the caps on what the LLM server may send (`ANSWER_LIMITS`): it was not read further. */
export function answerTooLarge(baseUrl: string, limit: number, what: 'answer' | 'line'): GatewayError {
  const size = limit % 2 ** 20 === 0 ? `${limit / 2 ** 20} MiB` : `${Math.round(limit / 1024)} KiB`;
  const sent = what === 'line' ? `a stream line longer than ${size}` : `more than ${size} in one answer`;
  return new GatewayError(
    'LLM_BAD_RESPONSE',
    `The LLM server at ${baseUrl} sent ${sent}; the answer was refused and the connection closed. Check that the LLM URL in Settings points at the LLM server you meant and that it is working.`,
    { base_url: baseUrl, limit_bytes: limit },
  );
}

export function timedOut(baseUrl: string, ms: number): GatewayError {
  return new GatewayError('LLM_TIMEOUT', `The LLM server at ${baseUrl} sent nothing for ${Math.round(ms / 1000)} s; the request was stopped.`, {
    timeout_ms: ms,
  });
}

export function noModel(): GatewayError {
  return new GatewayError('LLM_NO_MODEL', 'No model is set and the LLM server lists none: name one ("model") or set llm.model in Settings.');
}

/** A short, one-line version of whatever an upstream error body said. */
export function upstreamMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    const error = body.error as { message?: unknown } | string | undefined;
    const message = typeof error === 'string' ? error : typeof error?.message === 'string' ? error.message : undefined;
    if (message) return message.slice(0, 500);
  } catch {
    // not JSON: the text itself
  }
  return text.replace(/\s+/g, ' ').trim().slice(0, 500) || '(no message)';
}

import type { GatewayErrorBody } from './types';

/** A refusal or failure from the gateway, with the name and message it gave (shown to the person as is). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly error: GatewayErrorBody,
  ) {
    super(error.message);
  }
}

type Listener = () => void;
const sessionLost = new Set<Listener>();

/** Called when the gateway says the owner session is gone (expired, logged out, gateway reset). */
export function onSessionLost(listener: Listener): () => void {
  sessionLost.add(listener);
  return () => sessionLost.delete(listener);
}

/**
 * The one way the dashboard talks to the gateway: same-origin JSON with the session cookie. The browser adds the
 * Origin header to state changes, which the gateway requires of cookie requests. With `signal`, a request called off
 * rejects with the signal's reason (an `AbortError`), never as an unreachable gateway.
 */
export async function api<T>(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
  options: { signal?: AbortSignal } = {},
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? { Accept: 'application/json' } : { Accept: 'application/json', 'Content-Type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      ...(options.signal && { signal: options.signal }),
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new ApiError(0, { name: 'GATEWAY_UNREACHABLE', code: 0, message: 'The gateway is not answering. Is `pincer serve` (or the desktop app) still running?' });
  }
  const text = await response.text();
  let data: unknown;
  try {
    data = text === '' ? undefined : JSON.parse(text);
  } catch {
    throw new ApiError(response.status, { name: 'BAD_RESPONSE', code: response.status, message: `The gateway answered ${path} with something that is not JSON (HTTP ${response.status}).` });
  }
  if (!response.ok) {
    const error = (data as { error?: GatewayErrorBody } | undefined)?.error ?? {
      name: 'HTTP_' + response.status,
      code: response.status,
      message: `${method} ${path} failed with HTTP ${response.status}.`,
    };
    if (response.status === 401 || (response.status === 403 && error.name === 'FORBIDDEN')) for (const listener of sessionLost) listener();
    throw new ApiError(response.status, error);
  }
  return data as T;
}

/**
 * A message for any error, for the error banner. With `action` ("change tool sets"), a gateway older than the
 * dashboard that lacks the route is said plainly instead of "HTTP 404".
 */
export function describeError(error: unknown, action?: string): string {
  if (action !== undefined && error instanceof ApiError && error.status === 404 && /^No route /.test(error.message)) {
    return `This gateway cannot ${action} yet (it answered HTTP 404). Update Pincer, or use the \`pincer\` command.`;
  }
  return error instanceof Error ? error.message : String(error);
}

import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { postStateless } from './client/stateless-post.js';
import { envelopeVersion } from './era.js';

/**
 * The stateless revision (2026-07-28) over `pincer mcp`: each message the stdio client sends with its protocol
 * version in `_meta` goes to the gateway on its own POST with the client token, and what comes back (progress, then
 * the answer) is written to the client as it arrives. Nothing is kept between requests, so a gateway restart costs
 * only the requests in flight, which are answered with an error.
 */
export class StatelessRelay {
  /** Requests sent and not yet answered, each with the controller that hangs up on it. */
  readonly #inFlight = new Map<RequestId, AbortController>();

  constructor(
    private readonly url: URL,
    private readonly token: string,
    private readonly toClient: (message: JSONRPCMessage) => void,
  ) {}

  /** Whether a message from the client belongs to the stateless revision. */
  static claims(message: JSONRPCMessage): boolean {
    return envelopeVersion(message) !== undefined;
  }

  get pending(): number {
    return this.#inFlight.size;
  }

  relay(message: JSONRPCMessage): void {
    const headers = { authorization: `Bearer ${this.token}` };
    const id = 'id' in message && 'method' in message ? message.id : undefined;
    if (id === undefined) {
      if ('method' in message && message.method === 'notifications/cancelled') {
        // Hanging up on the request's POST is how the gateway learns of it: a pending approval is withdrawn.
        const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
        const controller = requestId === undefined ? undefined : this.#inFlight.get(requestId);
        if (controller) {
          this.#inFlight.delete(requestId!);
          controller.abort();
        }
      }
      void postStateless(this.url, headers, message, () => undefined).catch(() => undefined);
      return;
    }
    const controller = new AbortController();
    this.#inFlight.set(id, controller);
    let answered = false;
    void postStateless(
      this.url,
      headers,
      message,
      (reply) => {
        if ('id' in reply && reply.id === id && ('result' in reply || 'error' in reply)) {
          answered = true;
          if (this.#inFlight.get(id) === controller) this.#inFlight.delete(id);
        }
        this.toClient(reply);
      },
      controller.signal,
    )
      .catch((error: Error) => {
        // Cancelled by the client: the protocol gives a cancelled request no answer.
        if (controller.signal.aborted && this.#inFlight.get(id) !== controller) return;
        if (!answered) this.toClient({ jsonrpc: '2.0', id, error: { code: -32603, message: `Pincer's gateway could not be reached or broke off the answer: ${error.message}` } });
      })
      .finally(() => {
        if (this.#inFlight.get(id) === controller) {
          this.#inFlight.delete(id);
          if (!answered && !controller.signal.aborted) this.toClient({ jsonrpc: '2.0', id, error: { code: -32603, message: "Pincer's gateway ended the answer without a result; send the request again." } });
        }
      });
  }

  /** Hangs up on every request still in flight. */
  close(): void {
    for (const controller of this.#inFlight.values()) controller.abort();
    this.#inFlight.clear();
  }
}

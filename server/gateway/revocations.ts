import type { ApprovalBroker } from '../approvals/broker.js';
import type { EventBus } from '../events/bus.js';
import type { Executor } from '../executor/executor.js';
import type { LlmBridge } from '../llm/bridge.js';
import type { McpSessions } from '../mcp/sessions.js';
import type { ClientStore } from '../store/clients.js';

/** How soon a token revoked by another process (`pincer token revoke`) is acted on; the API's own revocations at once. */
const POLL_MS = 2_000;

export interface RevocationParts {
  clients: Pick<ClientStore, 'revokedSince'>;
  executor: Pick<Executor, 'cancelClient'>;
  approvals: Pick<ApprovalBroker, 'cancelClient'>;
  mcp: Pick<McpSessions, 'closeClient'>;
  llm: Pick<LlmBridge, 'cancelClient'>;
  events: EventBus;
}

/**
 * Security: a token is checked as each request starts, but what the request started went on after the token was
 * revoked — its calls still ran and answered, its questions still waited for the owner (an "allow" given later ran
 * the revoked client's command), its MCP sessions stayed open (their streams kept receiving notifications, and a
 * token issued later under the same name could take them over), its chat turns went on calling tools. Once a
 * client's token is revoked, what it started until then ends: running calls and turns are cancelled, open questions
 * withdrawn, sessions closed. Revocations through the API are seen at once (their `tools` event), those written by
 * another process within POLL_MS. Nothing is kept per call: the revocation's time tells what the old token started
 * from what a token issued since did.
 */
export class RevocationWatch {
  /** Revocations from this time on are acted on (older ones ended before this gateway started). */
  #since = Date.now();
  /** The clients revoked at exactly #since that were already acted on (the next check reads them again). */
  readonly #doneAtSince = new Set<string>();
  readonly #timer: NodeJS.Timeout;

  constructor(
    private readonly parts: RevocationParts,
    pollMs = POLL_MS,
  ) {
    this.#timer = setInterval(() => this.check(), pollMs);
    this.#timer.unref();
    const onTools = ({ reason }: { reason: string }) => {
      if (reason.startsWith('client:')) this.check();
    };
    parts.events.on('tools', onTools);
    parts.events.once('closing', () => {
      clearInterval(this.#timer);
      parts.events.off('tools', onTools);
    });
  }

  /** Ends what each client revoked since the last check started before its revocation. */
  check(): void {
    let revoked: { name: string; revoked_at: number }[];
    try {
      revoked = this.parts.clients.revokedSince(this.#since);
    } catch (error) {
      // A busy database: the next check sees the same revocations.
      console.error(`pincer: could not read revoked clients: ${(error as Error).message}`);
      return;
    }
    for (const { name, revoked_at: at } of revoked) {
      if (at === this.#since && this.#doneAtSince.has(name)) continue;
      const why = `The token of client "${name}" was revoked, so what it started stops.`;
      this.parts.executor.cancelClient(name, at, why);
      this.parts.approvals.cancelClient(name, at, why);
      this.parts.mcp.closeClient(name, at);
      this.parts.llm.cancelClient(name, at, why);
      if (at > this.#since) {
        this.#since = at;
        this.#doneAtSince.clear();
      }
      this.#doneAtSince.add(name);
    }
  }
}

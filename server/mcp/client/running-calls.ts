import type { ApprovalBroker } from '../../approvals/broker.js';

interface Running {
  client: string;
  tool: string;
  /** The call's own signal: a request made with it (a retried call's input round) is that call's, exactly. */
  signal?: AbortSignal;
  /** Questions the server asked during this call: withdrawn when the call ends (nobody waits for the answer). */
  questions: Set<string>;
  /** Stops the call's time limit while the owner is asked. */
  waitingForOwner?: <T>(wait: Promise<T>) => Promise<T>;
}

/**
 * The calls running on one imported server, so that a question it asks can be tied to the client whose call caused
 * it. MCP does not say which call a server-to-client request belongs to (over stdio nothing does), so: one client
 * with calls running is that client (and the call, when it has only one); none, or several clients, and the question
 * is refused.
 * Security: a question is never shown as another client's — the owner would answer one agent's question believing it
 * came from the task of another.
 */
export class RunningCalls {
  readonly #calls = new Map<string, Running>();

  constructor(private readonly approvals: () => ApprovalBroker | undefined) {}

  async during<T>(
    call: { callId: string; client: string; signal?: AbortSignal; waitingForOwner?: <W>(wait: Promise<W>) => Promise<W> },
    tool: string,
    run: () => Promise<T>,
  ): Promise<T> {
    const { callId, client, signal, waitingForOwner } = call;
    const running: Running = { client, tool, questions: new Set(), ...(signal && { signal }), ...(waitingForOwner && { waitingForOwner }) };
    this.#calls.set(callId, running);
    try {
      return await run();
    } finally {
      this.#calls.delete(callId);
      for (const id of running.questions) this.approvals()?.withdraw(id);
    }
  }

  /** Whose question this is, or why it cannot be told. */
  attribute(signal?: AbortSignal): { client: string; callId: string | null; tool: string | null } | { problem: string } {
    const calls = [...this.#calls.entries()];
    const own = signal && calls.find(([, c]) => c.signal === signal);
    if (own) return { client: own[1].client, callId: own[0], tool: own[1].tool };
    const clients = new Set(calls.map(([, c]) => c.client));
    if (clients.size === 0) {
      return { problem: 'Pincer passes a question to its owner only while a client\'s call to this server runs, and none does: nobody would read the answer' };
    }
    if (clients.size > 1) {
      return { problem: 'calls of several clients are running on this server and MCP does not say which one this request belongs to; Pincer does not guess whose it is. Ask again when one call runs' };
    }
    const tools = new Set(calls.map(([, c]) => c.tool));
    return { client: calls[0]![1].client, callId: calls.length === 1 ? calls[0]![0] : null, tool: tools.size === 1 ? calls[0]![1].tool : null };
  }

  /** Ties a question to its call, so it goes when the call ends. */
  tie(callId: string | null, approvalId: string): void {
    if (callId !== null) this.#calls.get(callId)?.questions.add(approvalId);
  }

  /**
   * Waits for the owner's answer with the time limit of the call it belongs to stopped. A question that cannot be tied
   * to one call (several calls of its client run) stops no clock: the calls keep their limits.
   */
  waitForOwner<T>(callId: string | null, answer: Promise<T>): Promise<T> {
    const pause = callId === null ? undefined : this.#calls.get(callId)?.waitingForOwner;
    return pause ? pause(answer) : answer;
  }
}

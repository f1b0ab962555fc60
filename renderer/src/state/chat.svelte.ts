import { api, ApiError, describeError } from '../lib/api';
import type { ChatModelList, Conversation, ConversationList, GatewayErrorBody } from '../lib/types';
import type { ApprovalQueue } from './approvals.svelte';
import { applyEvent, entriesOf, newEntry, readEvents, toolModeOf, type ChatEntry, type ConversationSummary } from './chat-turn';

export type { ChatEntry, ChatStep, ConversationSummary } from './chat-turn';

/**
 * The Chat view's data: the conversations (the owner sees every client's), the one open, and a turn in progress
 * streamed from POST /chat. Owned by the view.
 */
export class ChatSession {
  conversations = $state.raw<ConversationSummary[]>([]);
  currentId = $state<string | null>(null);
  entries = $state<ChatEntry[]>([]);
  models = $state.raw<string[]>([]);
  defaultModel = $state<string | null>(null);
  /** The model picked for the next message; empty: the conversation's, else the configured one. */
  model = $state('');
  sending = $state(false);
  error = $state<string | null>(null);
  /** How the open conversation's model is given its tools (`prompted`: described in the prompt), as its latest answer said. */
  readonly toolMode = $derived(toolModeOf(this.entries));
  #abort: AbortController | undefined;

  /** @param approvals The dashboard's approval queue: a call waiting in the turn is answered through it, as anywhere. */
  constructor(private readonly approvals: ApprovalQueue) {}

  async load(): Promise<void> {
    try {
      const answer = await api<ConversationList>('GET', '/chat/conversations?limit=100');
      this.conversations = answer.conversations;
    } catch (error) {
      this.error = `Could not list conversations: ${describeError(error, 'chat')}`;
    }
  }

  /** What the LLM server offers; a server that is down is said once, here. */
  async loadModels(): Promise<void> {
    try {
      const answer = await api<ChatModelList>('GET', '/chat/models');
      this.models = answer.models.map((m) => m.id);
      this.defaultModel = answer.default;
    } catch (error) {
      this.error = describeError(error, 'chat');
    }
  }

  async open(id: string): Promise<void> {
    if (this.sending) return;
    try {
      const answer = await api<Conversation>('GET', `/chat/conversations/${encodeURIComponent(id)}`);
      this.currentId = id;
      this.entries = entriesOf(answer.messages);
      this.error = null;
    } catch (error) {
      this.error = `Could not open the conversation: ${describeError(error)}`;
    }
  }

  startNew(): void {
    if (this.sending) return;
    this.currentId = null;
    this.entries = [];
  }

  async remove(id: string): Promise<void> {
    try {
      await api('DELETE', `/chat/conversations/${encodeURIComponent(id)}`);
      if (this.currentId === id) this.startNew();
      await this.load();
    } catch (error) {
      this.error = `Could not delete the conversation: ${describeError(error)}`;
    }
  }

  /** The owner answers a call waiting inside the turn, as in the Approvals view (its refusal shows here). */
  async decide(approvalId: string, decision: 'allow_once' | 'deny'): Promise<void> {
    if (this.approvals.busy.has(approvalId)) return; // already on its way from another click
    if (await this.approvals.decide(approvalId, { decision })) return;
    this.error = `Could not answer the approval: ${this.approvals.error}`;
    this.approvals.dismissError();
  }

  stop(): void {
    this.#abort?.abort();
  }

  async send(text: string): Promise<void> {
    const message = text.trim();
    if (message === '' || this.sending) return;
    this.sending = true;
    this.error = null;
    this.entries.push(newEntry('user', message));
    this.entries.push(newEntry('assistant', '', false));
    const answer = this.entries[this.entries.length - 1]!;
    this.#abort = new AbortController();
    try {
      const response = await fetch('/chat', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { Accept: 'text/event-stream', 'Content-Type': 'application/json' },
        body: JSON.stringify({ message, ...(this.currentId && { conversation_id: this.currentId }), ...(this.model && { model: this.model }) }),
        signal: this.#abort.signal,
      });
      if (!response.ok || !response.body) {
        const body = (await response.json().catch(() => undefined)) as { error?: GatewayErrorBody } | undefined;
        throw new ApiError(response.status, body?.error ?? { name: `HTTP_${response.status}`, code: response.status, message: `The gateway answered HTTP ${response.status}.` });
      }
      for await (const { event, data } of readEvents(response.body)) {
        const fields = JSON.parse(data) as Record<string, unknown>;
        if (event === 'start') this.currentId = fields.conversation_id as string;
        applyEvent(answer, event, fields);
      }
    } catch (error) {
      answer.error = (error as Error).name === 'AbortError' ? 'Stopped.' : describeError(error, 'chat');
    } finally {
      answer.done = true;
      answer.running = [];
      answer.waiting = [];
      this.sending = false;
      void this.load();
    }
  }
}

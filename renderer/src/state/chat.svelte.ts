import { api, ApiError, describeError } from '../lib/api';
import type { CallStatus, GatewayErrorBody } from '../lib/types';
import type { ApprovalQueue } from './approvals.svelte';

export interface ConversationSummary {
  id: string;
  client: string;
  title: string;
  model: string;
  created_at: string;
  updated_at: string;
  messages: number;
}

/** One tool call of a turn, as POST /chat reports it. */
export interface ChatStep {
  call_id: string;
  tool_call_id: string;
  tool: string;
  arguments: unknown;
  status: CallStatus;
  result?: unknown;
  error?: GatewayErrorBody;
  duration_ms?: number;
}

/** What the view shows: the person's messages, and each answer with the tool steps taken on the way. */
export interface ChatEntry {
  role: 'user' | 'assistant';
  text: string;
  steps: ChatStep[];
  /** Calls running now (an answer still coming). */
  running: { tool_call_id: string; tool: string }[];
  /** Calls waiting for the owner's approval. */
  waiting: { call_id: string; approval_id: string; tool: string }[];
  error?: string;
  model?: string;
  timings?: { total_ms: number; model_ms: number; tools_ms: number };
  done: boolean;
}

interface StoredMessage {
  seq: number;
  message: { role: string; content: string };
  meta: { steps?: ChatStep[]; model?: string; timings?: ChatEntry['timings']; answer?: string } | null;
}

/** Stored messages (assistant turns and tool results in between) as the view's entries: one answer per question. */
export function entriesOf(messages: StoredMessage[]): ChatEntry[] {
  const entries: ChatEntry[] = [];
  for (const { message, meta } of messages) {
    if (message.role === 'user') {
      entries.push({ role: 'user', text: message.content, steps: [], running: [], waiting: [], done: true });
      continue;
    }
    if (message.role !== 'assistant') continue;
    let answer = entries.at(-1);
    if (!answer || answer.role !== 'assistant') {
      answer = { role: 'assistant', text: '', steps: [], running: [], waiting: [], done: true };
      entries.push(answer);
    }
    answer.text += message.content;
    if (meta) {
      answer.steps = meta.steps ?? [];
      if (meta.model) answer.model = meta.model;
      if (meta.timings) answer.timings = meta.timings;
    }
  }
  return entries;
}

/** Server-Sent Events from a fetch body, one `{event, data}` at a time (comment lines skipped). */
async function* events(body: ReadableStream<Uint8Array>): AsyncGenerator<{ event: string; data: string }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      if (event && data) yield { event, data };
    }
  }
}

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
  #abort: AbortController | undefined;

  /** @param approvals The dashboard's approval queue: a call waiting in the turn is answered through it, as anywhere. */
  constructor(private readonly approvals: ApprovalQueue) {}

  async load(): Promise<void> {
    try {
      const answer = await api<{ conversations: ConversationSummary[] }>('GET', '/chat/conversations?limit=100');
      this.conversations = answer.conversations;
    } catch (error) {
      this.error = `Could not list conversations: ${describeError(error, 'chat')}`;
    }
  }

  /** What the LLM server offers; a server that is down is said once, here. */
  async loadModels(): Promise<void> {
    try {
      const answer = await api<{ models: { id: string }[]; default: string | null }>('GET', '/chat/models');
      this.models = answer.models.map((m) => m.id);
      this.defaultModel = answer.default;
    } catch (error) {
      this.error = describeError(error, 'chat');
    }
  }

  async open(id: string): Promise<void> {
    if (this.sending) return;
    try {
      const answer = await api<ConversationSummary & { messages: StoredMessage[] }>('GET', `/chat/conversations/${encodeURIComponent(id)}`);
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
    this.entries.push({ role: 'user', text: message, steps: [], running: [], waiting: [], done: true });
    this.entries.push({ role: 'assistant', text: '', steps: [], running: [], waiting: [], done: false });
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
      for await (const { event, data } of events(response.body)) this.#apply(answer, event, JSON.parse(data) as Record<string, unknown>);
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

  #apply(answer: ChatEntry, event: string, data: Record<string, unknown>): void {
    switch (event) {
      case 'start':
        this.currentId = data.conversation_id as string;
        answer.model = data.model as string;
        break;
      case 'delta':
        answer.text += data.text as string;
        break;
      case 'call':
        answer.running.push({ tool_call_id: data.tool_call_id as string, tool: data.tool as string });
        break;
      case 'waiting':
        answer.waiting.push(data as ChatEntry['waiting'][number]);
        break;
      case 'step': {
        const step = data as unknown as ChatStep;
        answer.steps.push(step);
        answer.running = answer.running.filter((r) => r.tool_call_id !== step.tool_call_id);
        answer.waiting = answer.waiting.filter((w) => w.call_id !== step.call_id);
        break;
      }
      case 'done':
        answer.timings = data.timings as ChatEntry['timings'];
        answer.model = data.model as string;
        break;
      case 'error':
        answer.error = data.message as string;
        break;
    }
  }
}

import type { ChatAnswerMeta, ChatStep, ChatToolMode, ChatWindowReport, StoredMessage, ToolOffer } from '../lib/types';

// A chat turn as the Chat view keeps it, built from POST /chat's events or from a stored conversation. Plain
// functions over plain objects: the view's state (chat.svelte.ts) holds them in its $state, the tests call them as is.

// POST /chat's steps and answer, and a stored conversation's messages, are the wire contract's.
export type { ChatAnswerMeta, ChatStep, ConversationSummary, StoredMessage } from '../lib/types';

/** What the view shows: the person's messages, and each answer with the tool steps taken on the way. */
export interface ChatEntry {
  role: 'user' | 'assistant';
  text: string;
  /** The model's reasoning (`<think>` blocks), apart from its answer; empty when it showed none. */
  reasoning: string;
  steps: ChatStep[];
  /** Calls running now (an answer still coming). */
  running: { tool_call_id: string; tool: string }[];
  /** Calls waiting for the owner's approval. */
  waiting: { call_id: string; approval_id: string; tool: string }[];
  error?: string;
  model?: string;
  timings?: { total_ms: number; model_ms: number; tools_ms: number };
  /** `prompted`: the model has no native tool support, its tools were described in the prompt. */
  toolMode?: ChatToolMode;
  toolModeReason?: string;
  /** Ollama only: the window asked for and the tools left out to fit it. */
  context?: ChatWindowReport;
  /** The tools offered to the model in the turn's last request and why; absent when every tool was. */
  offered?: ToolOffer[];
  done: boolean;
}

export function newEntry(role: ChatEntry['role'], text = '', done = true): ChatEntry {
  return { role, text, reasoning: '', steps: [], running: [], waiting: [], done };
}

/** The answer's closing fields onto its entry (the streamed reasoning, when there was some, is kept as shown). */
function applyMeta(answer: ChatEntry, meta: ChatAnswerMeta): void {
  if (meta.steps) answer.steps = meta.steps;
  if (meta.model) answer.model = meta.model;
  if (meta.timings) answer.timings = meta.timings;
  if (meta.tool_mode) {
    answer.toolMode = meta.tool_mode;
    answer.toolModeReason = meta.tool_mode_reason;
  }
  if (meta.reasoning && answer.reasoning === '') answer.reasoning = meta.reasoning;
  if (meta.context) answer.context = meta.context;
  if (Array.isArray(meta.tools_offered)) answer.offered = meta.tools_offered;
}

/** Stored messages (assistant turns and tool results in between) as the view's entries: one answer per question. */
export function entriesOf(messages: StoredMessage[]): ChatEntry[] {
  const entries: ChatEntry[] = [];
  for (const { message, meta } of messages) {
    if (message.role === 'user') {
      entries.push(newEntry('user', message.content));
      continue;
    }
    if (message.role !== 'assistant') continue;
    let answer = entries.at(-1);
    if (!answer || answer.role !== 'assistant') {
      answer = newEntry('assistant');
      entries.push(answer);
    }
    answer.text += message.content;
    if (meta) applyMeta(answer, meta);
  }
  return entries;
}

/** One event of POST /chat's stream onto the answer it builds (`start`'s conversation id is the session's). */
export function applyEvent(answer: ChatEntry, event: string, data: Record<string, unknown>): void {
  switch (event) {
    case 'start':
      answer.model = data.model as string;
      break;
    case 'delta':
      answer.text += data.text as string;
      break;
    case 'reasoning':
      answer.reasoning += data.text as string;
      break;
    case 'mode':
      answer.toolMode = data.mode as ChatToolMode;
      answer.toolModeReason = data.reason as string | undefined;
      break;
    case 'call':
      // Reasoning written before a round of calls is its own paragraph, apart from what the model thinks next.
      if (answer.reasoning !== '' && !answer.reasoning.endsWith('\n\n')) answer.reasoning += '\n\n';
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
    case 'done': {
      const { steps: _steps, ...meta } = data as ChatAnswerMeta; // the steps came one by one
      applyMeta(answer, meta);
      break;
    }
    case 'error':
      answer.error = data.message as string;
      break;
  }
}

/** How the open conversation's model is given its tools: the latest answer that said so. */
export function toolModeOf(entries: readonly ChatEntry[]): { mode: ChatToolMode; reason?: string | undefined } | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (entry.toolMode) return { mode: entry.toolMode, reason: entry.toolModeReason };
  }
  return undefined;
}

/** Server-Sent Events from a fetch body, one `{event, data}` at a time (comment lines skipped). */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<{ event: string; data: string }> {
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

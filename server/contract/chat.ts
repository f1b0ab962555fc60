import type { CallRecovery, CallStatus } from './calls.js';
import type { ErrorBody } from './envelope.js';
import type { LlmApi } from './settings.js';

/**
 * The LLM bridge on the wire: `POST /chat` (JSON, or the events `start`, `delta`, `reasoning`, `mode`, `step`,
 * `waiting`, `done`, `error`) and `GET /chat/conversations[/{id}]`.
 */

/** How the chat model is given its tools: in the request, or described in the system prompt and read from its text. */
export type ChatToolMode = 'native' | 'prompted';

/** Why a tool was offered to the model in a turn when not every tool was. */
export type ToolOfferReason = 'all' | 'yours' | 'used' | 'found' | 'relevant' | 'search';

export interface ToolOffer {
  name: string;
  why: ToolOfferReason;
}

/** What Pincer did to a model's call before it ran: absent for a clean native call. */
export type ChatCallRecovery = CallRecovery;

/** Ollama only: the window Pincer asked for, and the tools left out to fit it. */
export interface ChatWindowReport {
  estimated_tokens: number;
  /** The `num_ctx` sent; absent when Ollama's default window held the request. */
  num_ctx?: number;
  /** The largest window allowed (the model's context length and `llm.max_context`, whichever is smaller). */
  limit: number;
  tools_offered: number;
  /** Tools not sent because the request would not fit the limit with them. */
  tools_left_out: string[];
}

/** One tool call of a turn (the `step` event, and the answer's `steps`). */
export interface ChatStep {
  call_id: string;
  tool_call_id: string;
  tool: string;
  arguments: unknown;
  /** The arguments in one line, as the call's live row shows them. */
  preview: string;
  status: CallStatus;
  result?: unknown;
  error?: ErrorBody;
  duration_ms?: number;
  /** The model wrote the call in its answer's text; Pincer recovered it. */
  recovered?: true;
  recovery?: ChatCallRecovery;
}

/** How long a turn took: all of it, waiting for the model, running tools; and how many times the model was asked. */
export interface ChatTimings {
  total_ms: number;
  model_ms: number;
  tools_ms: number;
  model_calls: number;
}

/** The tokens the model server counted for the turn. */
export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** The answer's fields as `done` carries them, and as a stored turn's last message keeps them in `meta`. */
export interface ChatAnswerMeta {
  answer?: string;
  steps?: ChatStep[];
  model?: string;
  timings?: ChatTimings;
  usage?: ChatUsage;
  tool_mode?: ChatToolMode;
  tool_mode_reason?: string;
  /** The model's reasoning (`<think>` blocks), kept out of the answer. */
  reasoning?: string;
  context?: ChatWindowReport;
  /** The tools offered to the model in the last request and why, when not every tool was (`llm.max_tools`). */
  tools_offered?: ToolOffer[];
}

/** `POST /chat` (or its `done` event): the answer, the steps taken on the way, and the turn's figures. */
export interface ChatAnswer extends ChatAnswerMeta {
  conversation_id: string;
  answer: string;
  steps: ChatStep[];
  model: string;
  timings: ChatTimings;
  usage: ChatUsage;
  /** The turn stopped after the most rounds of tool calls a turn may take. */
  stopped_at_step_limit: boolean;
  tool_mode: ChatToolMode;
}

/** One model the LLM server offers (`GET /chat/models`). */
export interface ChatModel {
  id: string;
  /** Epoch seconds when known. */
  created?: number;
  size?: number;
  details?: Record<string, unknown>;
}

/** `GET /chat/models`: what the configured LLM server offers, and the model Settings name (null: none yet). */
export interface ChatModelList {
  api: LlmApi;
  base_url: string;
  default: string | null;
  models: ChatModel[];
}

export interface ConversationSummary {
  id: string;
  client: string;
  title: string;
  model: string;
  created_at: string;
  updated_at: string;
  messages: number;
}

/** `GET /chat/conversations`. */
export interface ConversationList {
  conversations: ConversationSummary[];
}

/** One kept message of a conversation. */
export interface StoredMessage {
  seq: number;
  /** The message as the bridge keeps it (role, content, tool calls or the call it answers). */
  message: { role: string; content: string; [key: string]: unknown };
  /** For an answer: the tool steps, model and timings of its turn. */
  meta: ChatAnswerMeta | null;
  created_at: string;
}

/** `GET /chat/conversations/{id}`: the summary, with its messages in place of their count. */
export interface Conversation extends Omit<ConversationSummary, 'messages'> {
  messages: StoredMessage[];
}

/**
 * The bridge's own shape of a conversation, between the two wire formats: OpenAI-compatible (`arguments` a JSON
 * string, tool results by `tool_call_id`) and Ollama's native one (`arguments` an object, results by `tool_name`).
 * Each provider translates to and from it at its edge.
 */

export type LlmApi = 'ollama' | 'openai';

export interface ToolCall {
  id: string;
  name: string;
  /** As the model sent it: an object (Ollama) or the JSON text (OpenAI), decoded only when the call is made. */
  arguments: unknown;
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string; images?: string[] }
  | { role: 'assistant'; content: string; tool_calls?: ToolCall[] }
  | { role: 'tool'; content: string; tool_call_id: string; tool_name: string };

/** A tool as both APIs take it (OpenAI's function format; Ollama accepts the same array). */
export interface ToolSpec {
  type: 'function';
  function: { name: string; description?: string; parameters?: unknown };
}

/** Sampling settings the caller chose, in OpenAI's names; each provider maps what its API knows. */
export interface Sampling {
  temperature?: number;
  top_p?: number;
  seed?: number;
  stop?: string | string[];
  max_tokens?: number;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  sampling?: Sampling;
  /** Whatever else the caller put in a request of the provider's own format, passed on as it is. */
  passthrough?: Record<string, unknown>;
  /** The context window to ask for (Ollama's `options.num_ctx`), so the tools and messages are not cut off. */
  contextWindow?: number;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** One answer of the model: its text, the tool calls it made, why it stopped. */
export interface AssistantTurn {
  model: string;
  content: string;
  toolCalls: ToolCall[];
  /** `stop`, `length`, `tool_calls`… as the upstream said it (Ollama's done_reason is mapped). */
  finishReason: string;
  /** Reasoning the server sent apart from the text (a thinking model's `thinking` / `reasoning_content`). */
  reasoning?: string;
  usage?: Usage;
}

export interface ChatOptions {
  signal?: AbortSignal;
  /** Each piece of the answer's text as it arrives. */
  onText?: (text: string) => void;
  /** Each piece of the reasoning the server sends apart from the text (Ollama's `thinking`, `reasoning_content`). */
  onReasoning?: (text: string) => void;
}

export interface ModelInfo {
  id: string;
  /** Epoch seconds when known. */
  created?: number;
  size?: number;
  details?: Record<string, unknown>;
}

/** What a server says of a model before it is asked anything (Ollama's /api/show). */
export interface ModelDetails {
  /** `completion`, `tools`, `thinking`, `vision`… when the server lists them. */
  capabilities?: string[];
  contextLength?: number;
}

/** One LLM server speaking one API. */
export interface LlmProvider {
  readonly api: LlmApi;
  readonly baseUrl: string;
  chat(request: ChatRequest, options?: ChatOptions): Promise<AssistantTurn>;
  models(signal?: AbortSignal): Promise<ModelInfo[]>;
  /** The server's version, when it says (Ollama's /api/version). */
  version?(signal?: AbortSignal): Promise<string | undefined>;
  /** What the server says of a model before it is asked anything: capabilities, context length (Ollama's /api/show). */
  describe?(model: string, signal?: AbortSignal): Promise<ModelDetails>;
}

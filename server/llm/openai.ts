import { badResponse, modelNotFound } from './errors.js';
import { jsonBody, lines, upstreamRequest, type UpstreamOptions } from './http.js';
import type { AssistantTurn, ChatMessage, ChatOptions, ChatRequest, LlmProvider, ModelInfo, ToolCall } from './types.js';

/** Any OpenAI-compatible server: OpenAI, Ollama's /v1, LM Studio, llama.cpp server, vLLM. */
export class OpenAIProvider implements LlmProvider {
  readonly api = 'openai' as const;

  constructor(private readonly options: UpstreamOptions) {}

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  /** The base URL may or may not end in /v1 (both are common); requests go to …/v1/…. */
  #path(path: string): string {
    return /\/v1\/?$/.test(this.options.baseUrl) ? path : `/v1${path}`;
  }

  async chat(request: ChatRequest, options: ChatOptions = {}): Promise<AssistantTurn> {
    const stream = options.onText !== undefined;
    const body = {
      ...request.passthrough,
      model: request.model,
      messages: request.messages.map(toOpenAIMessage),
      ...(request.tools && request.tools.length > 0 && { tools: request.tools }),
      ...request.sampling,
      stream,
      ...(stream && { stream_options: { include_usage: true } }),
    };
    const upstream = await upstreamRequest(this.options, this.#path('/chat/completions'), { method: 'POST', body, signal: options.signal }, (status, message) =>
      status === 404 && /model/i.test(message) ? modelNotFound(request.model, 'openai', message) : undefined,
    );
    if (!stream) return fromCompletion(await jsonBody(upstream), request.model);
    const turn = new StreamedTurn(request.model);
    for await (const line of lines(upstream)) {
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data === '[DONE]') break;
      let chunk: unknown;
      try {
        chunk = JSON.parse(data);
      } catch {
        throw badResponse(`a stream event is not JSON: ${data.slice(0, 120)}`);
      }
      const { text, reasoning } = turn.add(chunk);
      if (reasoning) options.onReasoning?.(reasoning);
      if (text) options.onText!(text);
    }
    return turn.finish();
  }

  async models(signal?: AbortSignal): Promise<ModelInfo[]> {
    const upstream = await upstreamRequest(this.options, this.#path('/models'), { method: 'GET', signal });
    const body = (await jsonBody(upstream)) as { data?: { id?: unknown; created?: unknown }[] };
    if (!Array.isArray(body?.data)) throw badResponse('the model list has no "data" array');
    return body.data
      .filter((m) => typeof m?.id === 'string')
      .map((m) => ({ id: m.id as string, ...(typeof m.created === 'number' && { created: m.created }) }));
  }
}

/** Our message in OpenAI's shape: arguments as JSON text, results by tool_call_id. */
/** A tool call as the OpenAI API spells it (arguments as a JSON string). */
export function openAIToolCall(call: ToolCall) {
  return {
    id: call.id,
    type: 'function' as const,
    function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}) },
  };
}

export function toOpenAIMessage(message: ChatMessage): Record<string, unknown> {
  switch (message.role) {
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.tool_calls?.length && {
          tool_calls: message.tool_calls.map(openAIToolCall),
        }),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.tool_call_id, content: message.content };
    default:
      return { role: message.role, content: message.content };
  }
}

function fromCompletion(body: unknown, model: string): AssistantTurn {
  const completion = body as {
    model?: string;
    choices?: {
      message?: { content?: string | null; reasoning_content?: unknown; reasoning?: unknown; tool_calls?: { id?: string; function?: { name?: string; arguments?: unknown } }[] };
      finish_reason?: string;
    }[];
    usage?: { prompt_tokens?: number; completion_tokens?: number };
  };
  const choice = completion?.choices?.[0];
  if (!choice?.message) throw badResponse('the completion has no choices[0].message');
  // A call without an id (several llama.cpp builds) is given a unique one by the tool loop.
  const toolCalls: ToolCall[] = (choice.message.tool_calls ?? []).map((call) => ({
    id: call.id ?? '',
    name: call.function?.name ?? '',
    arguments: call.function?.arguments ?? '',
  }));
  const reasoning = reasoningOf(choice.message);
  return {
    model: completion.model ?? model,
    content: choice.message.content ?? '',
    ...(reasoning && { reasoning }),
    toolCalls,
    finishReason: choice.finish_reason ?? (toolCalls.length ? 'tool_calls' : 'stop'),
    ...(completion.usage && { usage: { prompt_tokens: completion.usage.prompt_tokens ?? 0, completion_tokens: completion.usage.completion_tokens ?? 0 } }),
  };
}

/** Reasoning sent apart from the text: `reasoning_content` (DeepSeek, vLLM, llama.cpp) or `reasoning` (Ollama's /v1). */
function reasoningOf(part: { reasoning_content?: unknown; reasoning?: unknown } | undefined): string {
  const value = part?.reasoning_content ?? part?.reasoning;
  return typeof value === 'string' ? value : '';
}

/**
 * Puts a streamed answer back together. OpenAI sends a call's arguments in fragments keyed by `index` (the id and
 * name come with the first); some servers repeat index 0 for every call but change the id, so a new id opens a new
 * call too. Ollama's /v1 sends each call whole.
 */
class StreamedTurn {
  #content = '';
  #reasoning = '';
  #calls: { id: string; name: string; arguments: string }[] = [];
  #byIndex = new Map<number, number>();
  #lastIndex = 0;
  #finish = '';
  #model: string;
  #usage: AssistantTurn['usage'];

  constructor(model: string) {
    this.#model = model;
  }

  /** Takes one chunk; answers the text and reasoning it added. */
  add(chunk: unknown): { text: string; reasoning: string } {
    const c = chunk as {
      model?: string;
      choices?: {
        delta?: {
          content?: string | null;
          reasoning_content?: unknown;
          reasoning?: unknown;
          tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[];
        };
        finish_reason?: string | null;
      }[];
      usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
      error?: { message?: string };
    };
    if (c?.error) throw badResponse(c.error.message ?? 'an error event');
    if (c?.model) this.#model = c.model;
    if (c?.usage) this.#usage = { prompt_tokens: c.usage.prompt_tokens ?? 0, completion_tokens: c.usage.completion_tokens ?? 0 };
    const choice = c?.choices?.[0];
    if (!choice) return { text: '', reasoning: '' };
    if (choice.finish_reason) this.#finish = choice.finish_reason;
    for (const fragment of choice.delta?.tool_calls ?? []) {
      // A fragment without an index continues the call before it unless it brings an id of its own.
      const index = fragment.index ?? (fragment.id || this.#calls.length === 0 ? this.#byIndex.size : this.#lastIndex);
      this.#lastIndex = index;
      let at = this.#byIndex.get(index);
      const current = at === undefined ? undefined : this.#calls[at];
      if (current === undefined || (fragment.id && current.id && fragment.id !== current.id)) {
        at = this.#calls.push({ id: fragment.id ?? '', name: '', arguments: '' }) - 1;
        this.#byIndex.set(index, at);
      }
      const call = this.#calls[at!]!;
      if (fragment.id && !call.id) call.id = fragment.id;
      if (fragment.function?.name) call.name += fragment.function.name;
      if (fragment.function?.arguments) call.arguments += typeof fragment.function.arguments === 'string' ? fragment.function.arguments : JSON.stringify(fragment.function.arguments);
    }
    const text = choice.delta?.content ?? '';
    const reasoning = reasoningOf(choice.delta);
    this.#content += text;
    this.#reasoning += reasoning;
    return { text, reasoning };
  }

  finish(): AssistantTurn {
    const toolCalls = this.#calls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments }));
    return {
      model: this.#model,
      content: this.#content,
      toolCalls,
      ...(this.#reasoning && { reasoning: this.#reasoning }),
      finishReason: this.#finish || (toolCalls.length ? 'tool_calls' : 'stop'),
      ...(this.#usage && { usage: this.#usage }),
    };
  }
}

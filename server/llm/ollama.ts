import { badResponse, modelNotFound } from './errors.js';
import { jsonBody, lines, upstreamRequest, type UpstreamOptions } from './http.js';
import type { AssistantTurn, ChatMessage, ChatOptions, ChatRequest, LlmProvider, ModelDetails, ModelInfo, Sampling, ToolCall } from './types.js';

/** Ollama's native API: /api/chat (NDJSON when streaming), /api/tags, /api/version. */
export class OllamaProvider implements LlmProvider {
  readonly api = 'ollama' as const;

  constructor(private readonly options: UpstreamOptions) {}

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  async chat(request: ChatRequest, options: ChatOptions = {}): Promise<AssistantTurn> {
    const stream = options.onText !== undefined;
    const passthrough = request.passthrough ?? {};
    const sampling = ollamaOptions(request.sampling);
    const given = passthrough.options as Record<string, unknown> | undefined;
    const modelOptions = { ...given, ...sampling, ...(request.contextWindow !== undefined && { num_ctx: request.contextWindow }) };
    const body = {
      ...passthrough,
      model: request.model,
      messages: request.messages.map(toOllamaMessage),
      ...(request.tools && request.tools.length > 0 && { tools: request.tools }),
      ...(Object.keys(modelOptions).length > 0 && { options: modelOptions }),
      stream,
    };
    const upstream = await upstreamRequest(this.options, '/api/chat', { method: 'POST', body, signal: options.signal }, (status, message) =>
      status === 404 ? modelNotFound(request.model, 'ollama', message) : undefined,
    );
    if (!stream) return fromChunks([await jsonBody(upstream)], request.model);
    const turn = new OllamaTurn(request.model);
    for await (const line of lines(upstream)) {
      if (line.trim() === '') continue;
      let chunk: unknown;
      try {
        chunk = JSON.parse(line);
      } catch {
        throw badResponse(`a stream line is not JSON: ${line.slice(0, 120)}`);
      }
      const { text, thinking } = turn.add(chunk);
      if (thinking) options.onReasoning?.(thinking);
      if (text) options.onText!(text);
      if ((chunk as { done?: boolean }).done) break;
    }
    return turn.finish();
  }

  async models(signal?: AbortSignal): Promise<ModelInfo[]> {
    const upstream = await upstreamRequest(this.options, '/api/tags', { method: 'GET', signal });
    const body = (await jsonBody(upstream)) as { models?: { name?: unknown; model?: unknown; size?: unknown; modified_at?: unknown; details?: unknown }[] };
    if (!Array.isArray(body?.models)) throw badResponse('the model list has no "models" array');
    return body.models
      .filter((m) => typeof (m?.name ?? m?.model) === 'string')
      .map((m) => ({
        id: String(m.name ?? m.model),
        ...(typeof m.size === 'number' && { size: m.size }),
        ...(typeof m.modified_at === 'string' ? { created: Math.floor(Date.parse(m.modified_at) / 1000) || 0 } : {}),
        ...(m.details && typeof m.details === 'object' ? { details: m.details as Record<string, unknown> } : {}),
      }));
  }

  /** Ollama's own description of a model (/api/show), as it gives it. */
  async show(model: string, signal?: AbortSignal): Promise<unknown> {
    const upstream = await upstreamRequest(this.options, '/api/show', { method: 'POST', body: { model }, signal }, (status, message) =>
      status === 404 ? modelNotFound(model, 'ollama', message) : undefined,
    );
    return jsonBody(upstream);
  }

  /** Capabilities and context length from /api/show (`model_info` holds `<architecture>.context_length`). */
  async describe(model: string, signal?: AbortSignal): Promise<ModelDetails> {
    const shown = (await this.show(model, signal)) as { capabilities?: unknown; model_info?: Record<string, unknown> } | null;
    const capabilities = Array.isArray(shown?.capabilities) ? shown.capabilities.filter((c): c is string => typeof c === 'string') : undefined;
    const info = shown?.model_info && typeof shown.model_info === 'object' ? shown.model_info : {};
    const lengthKey = Object.keys(info).find((key) => key.endsWith('.context_length'));
    const length = lengthKey === undefined ? undefined : info[lengthKey];
    return {
      ...(capabilities && { capabilities }),
      ...(typeof length === 'number' && Number.isInteger(length) && length > 0 && { contextLength: length }),
    };
  }

  async version(signal?: AbortSignal): Promise<string | undefined> {
    const upstream = await upstreamRequest(this.options, '/api/version', { method: 'GET', signal });
    const body = (await jsonBody(upstream)) as { version?: unknown };
    return typeof body?.version === 'string' ? body.version : undefined;
  }
}

/** OpenAI's sampling names in Ollama's `options`. */
function ollamaOptions(sampling: Sampling | undefined): Record<string, unknown> | undefined {
  if (!sampling) return undefined;
  const options: Record<string, unknown> = {};
  if (sampling.temperature !== undefined) options.temperature = sampling.temperature;
  if (sampling.top_p !== undefined) options.top_p = sampling.top_p;
  if (sampling.seed !== undefined) options.seed = sampling.seed;
  if (sampling.stop !== undefined) options.stop = Array.isArray(sampling.stop) ? sampling.stop : [sampling.stop];
  if (sampling.max_tokens !== undefined) options.num_predict = sampling.max_tokens;
  return Object.keys(options).length ? options : undefined;
}

/** Our message in Ollama's shape: arguments as an object (text is a 400 there), results by tool_name. */
export function toOllamaMessage(message: ChatMessage): Record<string, unknown> {
  switch (message.role) {
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.tool_calls?.length && {
          tool_calls: message.tool_calls.map(ollamaToolCall),
        }),
      };
    case 'tool':
      return { role: 'tool', content: message.content, tool_name: message.tool_name, tool_call_id: message.tool_call_id };
    default:
      return { role: message.role, content: message.content, ...(message.images?.length && { images: message.images }) };
  }
}

/** Arguments that were text (from an OpenAI client) as the object Ollama requires; unreadable text becomes {}. */
/** A tool call as Ollama's API spells it (arguments as an object). */
export function ollamaToolCall(call: ToolCall) {
  return { id: call.id, function: { name: call.name, arguments: argumentsObject(call.arguments) } };
}

export function argumentsObject(raw: unknown): Record<string, unknown> {
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) return raw as Record<string, unknown>;
  if (typeof raw === 'string') {
    try {
      const parsed = JSON.parse(raw) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // the model's malformed text: the tool result already told it so
    }
  }
  return {};
}

function fromChunks(chunks: unknown[], model: string): AssistantTurn {
  const turn = new OllamaTurn(model);
  for (const chunk of chunks) turn.add(chunk);
  return turn.finish();
}

/** Collects an Ollama answer; each tool call arrives whole, in any chunk (often the last before done). */
class OllamaTurn {
  #content = '';
  #thinking = '';
  #calls: ToolCall[] = [];
  #finish = 'stop';
  #usage: AssistantTurn['usage'];
  #model: string;

  constructor(model: string) {
    this.#model = model;
  }

  add(chunk: unknown): { text: string; thinking: string } {
    const c = chunk as {
      model?: string;
      error?: string;
      message?: { content?: string; thinking?: string; tool_calls?: { id?: string; function?: { name?: string; arguments?: unknown } }[] };
      done?: boolean;
      done_reason?: string;
      prompt_eval_count?: number;
      eval_count?: number;
    };
    if (!c || typeof c !== 'object') throw badResponse('a chunk is not an object');
    if (typeof c.error === 'string') throw badResponse(c.error);
    if (c.model) this.#model = c.model;
    for (const call of c.message?.tool_calls ?? []) {
      // No id from the upstream (Ollama's native API sends none): the tool loop gives the call one that is unique.
      this.#calls.push({ id: call.id || '', name: call.function?.name ?? '', arguments: call.function?.arguments ?? {} });
    }
    if (c.done) {
      if (c.done_reason) this.#finish = c.done_reason;
      if (c.prompt_eval_count !== undefined || c.eval_count !== undefined) {
        this.#usage = { prompt_tokens: c.prompt_eval_count ?? 0, completion_tokens: c.eval_count ?? 0 };
      }
    }
    const text = c.message?.content ?? '';
    const thinking = typeof c.message?.thinking === 'string' ? c.message.thinking : '';
    this.#content += text;
    this.#thinking += thinking;
    return { text, thinking };
  }

  finish(): AssistantTurn {
    return {
      model: this.#model,
      content: this.#content,
      toolCalls: this.#calls,
      // Ollama says "stop" even when the model called tools.
      finishReason: this.#calls.length > 0 ? 'tool_calls' : this.#finish,
      ...(this.#thinking && { reasoning: this.#thinking }),
      ...(this.#usage && { usage: this.#usage }),
    };
  }
}

import { badRequest } from './proxy.js';
import type { ChatMessage, Sampling, ToolCall, ToolSpec } from './types.js';

/** An OpenAI chat request, read into the bridge's shapes; anything malformed is a 400 naming the field. */
export function readOpenAIRequest(body: unknown): {
  model: string | undefined;
  messages: ChatMessage[];
  tools: ToolSpec[];
  stream: boolean;
  includeUsage: boolean;
  sampling: Sampling;
  passthrough: Record<string, unknown>;
} {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('Send a chat completion request: {"model", "messages": [ … ]}.');
  const { model, messages, tools, stream, stream_options, temperature, top_p, seed, stop, max_tokens, max_completion_tokens, ...rest } = body as Record<string, unknown>;
  if (model !== undefined && typeof model !== 'string') throw badRequest('"model" must be a string.');
  if (!Array.isArray(messages) || messages.length === 0) throw badRequest('"messages" must be a non-empty array.');
  const sampling: Sampling = {};
  if (typeof temperature === 'number') sampling.temperature = temperature;
  if (typeof top_p === 'number') sampling.top_p = top_p;
  if (typeof seed === 'number') sampling.seed = seed;
  if (typeof stop === 'string' || (Array.isArray(stop) && stop.every((s) => typeof s === 'string'))) sampling.stop = stop as string | string[];
  const maxTokens = max_completion_tokens ?? max_tokens;
  if (typeof maxTokens === 'number') sampling.max_tokens = maxTokens;
  return {
    model: model || undefined,
    messages: readMessages(messages),
    tools: readTools(tools),
    stream: stream === true,
    includeUsage: (stream_options as { include_usage?: unknown } | undefined)?.include_usage === true,
    sampling,
    passthrough: rest,
  };
}

export function readTools(tools: unknown): ToolSpec[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw badRequest('"tools" must be an array.');
  return tools.map((tool, i) => {
    const t = tool as { type?: unknown; function?: { name?: unknown; description?: unknown; parameters?: unknown } };
    if (!t || t.type !== 'function' || typeof t.function?.name !== 'string') throw badRequest(`tools[${i}] must be {"type": "function", "function": {"name", …}}.`);
    return {
      type: 'function',
      function: {
        name: t.function.name,
        ...(typeof t.function.description === 'string' && { description: t.function.description }),
        ...(t.function.parameters !== undefined && { parameters: t.function.parameters }),
      },
    };
  });
}

/** Text of a message's content: a string, or the text parts of an array of parts. */
function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (Array.isArray(content)) {
    return content
      .map((part) => (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : ''))
      .join('');
  }
  throw badRequest('A message\'s "content" must be a string or an array of parts.');
}

/** OpenAI messages (or Ollama's: the same roles, arguments as objects, results named by tool_name). */
export function readMessages(messages: unknown[]): ChatMessage[] {
  const names = new Map<string, string>();
  const answered = new Set<string>();
  return messages.map((raw, i) => {
    const m = raw as { role?: unknown; content?: unknown; tool_calls?: unknown; tool_call_id?: unknown; tool_name?: unknown; name?: unknown; images?: unknown };
    if (!m || typeof m !== 'object') throw badRequest(`messages[${i}] must be an object.`);
    switch (m.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content: text(m.content) };
      case 'user':
        return {
          role: 'user',
          content: text(m.content),
          ...(Array.isArray(m.images) && m.images.every((x) => typeof x === 'string') && m.images.length > 0 && { images: m.images as string[] }),
        };
      case 'assistant': {
        const calls: ToolCall[] = [];
        if (m.tool_calls !== undefined && m.tool_calls !== null) {
          if (!Array.isArray(m.tool_calls)) throw badRequest(`messages[${i}].tool_calls must be an array.`);
          m.tool_calls.forEach((c: { id?: unknown; function?: { name?: unknown; arguments?: unknown } }, j) => {
            if (typeof c?.function?.name !== 'string') throw badRequest(`messages[${i}].tool_calls[${j}].function.name must be a string.`);
            const id = typeof c.id === 'string' && c.id ? c.id : `call_${i}_${j}`;
            names.set(id, c.function.name);
            calls.push({ id, name: c.function.name, arguments: c.function.arguments ?? {} });
          });
        }
        return { role: 'assistant', content: text(m.content), ...(calls.length > 0 && { tool_calls: calls }) };
      }
      case 'tool': {
        const id = typeof m.tool_call_id === 'string' ? m.tool_call_id : '';
        const name = typeof m.tool_name === 'string' ? m.tool_name : typeof m.name === 'string' ? m.name : (names.get(id) ?? '');
        if (!id && !name) throw badRequest(`messages[${i}] (role "tool") needs "tool_call_id" or "tool_name".`);
        const callId = id || callIdFor(name, messages, i, answered);
        answered.add(callId);
        return { role: 'tool', content: text(m.content), tool_call_id: callId, tool_name: name || (names.get(id) ?? '') };
      }
      default:
        throw badRequest(`messages[${i}].role must be system, user, assistant or tool.`);
    }
  });
}

/**
 * A tool result named only by its tool (Ollama): the first call of that tool, in the latest assistant message that
 * called it, not answered yet (two calls of one tool get their results in order, as Ollama's own API pairs them).
 */
function callIdFor(name: string, messages: unknown[], before: number, answered: ReadonlySet<string>): string {
  for (let i = before - 1; i >= 0; i--) {
    const calls = (messages[i] as { tool_calls?: { id?: string; function?: { name?: string } }[] }).tool_calls;
    if (!Array.isArray(calls)) continue;
    const ids = calls.map((c, j) => (c?.function?.name === name ? c.id || `call_${i}_${j}` : undefined)).filter((id) => id !== undefined);
    if (ids.length > 0) return ids.find((id) => !answered.has(id)) ?? ids[ids.length - 1]!;
  }
  return `call_${name}`;
}

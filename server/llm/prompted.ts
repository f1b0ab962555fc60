import { expectedArguments } from './recovery/schema-summary.js';
import type { ChatMessage, ChatRequest, ToolCall, ToolSpec } from './types.js';

/**
 * Prompted tool calling, for a model whose template or server has no tool support: the offered tools are described
 * in the system prompt with one declared reply format (the Hermes `<tool_call>` block most small models were trained
 * on), earlier calls are written back in that format, and tool results come back as the user's words, which every
 * template can show. The reply is read with the same recovery parsers as any text-shaped call.
 */
export function promptedRequest(request: ChatRequest): ChatRequest {
  const tools = request.tools ?? [];
  const { tools: _sent, ...rest } = request;
  if (tools.length === 0) return { ...rest, messages: request.messages.map(asPlainMessage).reduce(mergeResults, []) };
  const instructions = toolPrompt(tools);
  const messages = request.messages.map(asPlainMessage).reduce(mergeResults, []);
  const first = messages[0];
  if (first?.role === 'system') messages[0] = { ...first, content: `${first.content}\n\n${instructions}` };
  else messages.unshift({ role: 'system', content: instructions });
  return { ...rest, messages };
}

/** The system prompt's part that offers the tools. */
export function toolPrompt(tools: readonly ToolSpec[]): string {
  const list = tools
    .map((tool) => {
      const description = (tool.function.description ?? '').replace(/\s+/g, ' ').trim();
      return `- ${tool.function.name}: ${description.length > 300 ? `${description.slice(0, 299)}…` : description} Arguments: ${expectedArguments(tool.function.parameters)}`;
    })
    .join('\n');
  return [
    'You can call tools. To call a tool, answer with only this block (one block per call, nothing inside it but JSON):',
    '<tool_call>',
    '{"name": "<tool name>", "arguments": {<the arguments as a JSON object>}}',
    '</tool_call>',
    'Then stop: the result comes back in a <tool_response> block, and you answer the user with it. When no tool is needed, answer normally.',
    'Tools:',
    list,
  ].join('\n');
}

function callBlock(call: ToolCall): string {
  let args = call.arguments;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args) as unknown;
    } catch {
      // written back as the model sent it
    }
  }
  return `<tool_call>\n${JSON.stringify({ name: call.name, arguments: args ?? {} })}\n</tool_call>`;
}

/** A message as a template without tool support can render it: calls as their text, results as the user's words. */
function asPlainMessage(message: ChatMessage): ChatMessage {
  if (message.role === 'assistant' && message.tool_calls?.length) {
    const blocks = message.tool_calls.map(callBlock).join('\n');
    return { role: 'assistant', content: message.content ? `${message.content}\n${blocks}` : blocks };
  }
  if (message.role === 'tool') {
    return { role: 'user', content: `<tool_response>\n${JSON.stringify({ name: message.tool_name, content: jsonOrText(message.content) })}\n</tool_response>` };
  }
  return message;
}

/** A tool result (an envelope as JSON) nested as the value it is, not as a string of escaped JSON. */
function jsonOrText(content: string): unknown {
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return content;
  }
}

/** Results of one round's calls become one user message: two user turns in a row break some templates. */
function mergeResults(out: ChatMessage[], message: ChatMessage): ChatMessage[] {
  const last = out[out.length - 1];
  if (last?.role === 'user' && message.role === 'user' && last.content.startsWith('<tool_response>') && message.content.startsWith('<tool_response>')) {
    out[out.length - 1] = { ...last, content: `${last.content}\n${message.content}` };
  } else {
    out.push(message);
  }
  return out;
}

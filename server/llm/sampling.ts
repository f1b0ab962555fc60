import type { LlmBridge } from './bridge.js';
import type { ChatMessage } from './types.js';

/** A text-only conversation for the configured model, as an imported MCP server's sampling request asks it. */
export interface ModelPrompt {
  system_prompt: string | null;
  messages: { role: 'user' | 'assistant'; text: string }[];
  max_tokens: number;
  temperature?: number;
  stop?: string[];
}

export interface ModelAnswer {
  model: string;
  text: string;
  /** Why the model stopped, in MCP's words. */
  stopped: 'endTurn' | 'maxTokens' | 'stopSequence';
}

/** Runs a prompt once on the configured LLM, with no tools: a server's request gets the model's words, nothing else. */
export async function answerPrompt(bridge: LlmBridge, prompt: ModelPrompt, signal: AbortSignal): Promise<ModelAnswer> {
  const provider = bridge.provider();
  const model = await bridge.model(provider, undefined, signal);
  const messages: ChatMessage[] = [
    ...(prompt.system_prompt ? [{ role: 'system' as const, content: prompt.system_prompt }] : []),
    ...prompt.messages.map((m) => ({ role: m.role, content: m.text })),
  ];
  const turn = await provider.chat(
    {
      model,
      messages,
      sampling: { max_tokens: prompt.max_tokens, ...(prompt.temperature !== undefined && { temperature: prompt.temperature }), ...(prompt.stop && { stop: prompt.stop }) },
    },
    { signal },
  );
  return { model: turn.model || model, text: turn.content, stopped: turn.finishReason === 'length' ? 'maxTokens' : 'endTurn' };
}

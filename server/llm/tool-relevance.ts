import type { ChatMessage, ToolSpec } from './types.js';

/**
 * The offered tools, most worth keeping first, for when not all of them fit the model's window: the caller's own
 * tools and tools already used in the conversation, then those sharing the most words with what the user asked
 * (the last message counting most), then the order they were offered in.
 */
export function relevanceOrder(tools: readonly ToolSpec[], messages: readonly ChatMessage[], isPinned: (name: string) => boolean): ToolSpec[] {
  const used = new Set(messages.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.name) : [])));
  const asked = new Map<string, number>();
  const users = messages.filter((m) => m.role === 'user');
  users.forEach((message, i) => {
    const weight = i === users.length - 1 ? 3 : 1;
    for (const word of wordsOf(message.content)) asked.set(word, Math.max(asked.get(word) ?? 0, weight));
  });
  const scored = tools.map((tool, index) => {
    const pinned = isPinned(tool.function.name) || used.has(tool.function.name);
    let score = 0;
    for (const word of new Set(wordsOf(`${tool.function.name.replace(/[_-]/g, ' ')} ${tool.function.description ?? ''}`))) score += asked.get(word) ?? 0;
    return { tool, index, pinned, score };
  });
  scored.sort((a, b) => Number(b.pinned) - Number(a.pinned) || b.score - a.score || a.index - b.index);
  return scored.map((s) => s.tool);
}

const STOP = new Set(['the', 'a', 'an', 'and', 'or', 'of', 'to', 'in', 'on', 'for', 'is', 'it', 'me', 'my', 'what', 'with', 'this', 'that', 'be', 'can', 'you', 'please']);

function wordsOf(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 && !STOP.has(w)).map((w) => (w.length > 4 && w.endsWith('s') ? w.slice(0, -1) : w));
}

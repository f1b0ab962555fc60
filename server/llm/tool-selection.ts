import type { ChatMessage, ToolSpec } from './types.js';

/** Why a tool was offered to the model this turn, as the Chat view shows it. */
export type OfferReason = 'all' | 'yours' | 'used' | 'found' | 'relevant' | 'search';

export interface ToolSelection {
  tools: ToolSpec[];
  offered: { name: string; why: OfferReason }[];
}

export interface SelectionInput {
  /** Every tool the caller may use this turn (the caller's own tools in the proxies included). */
  tools: readonly ToolSpec[];
  messages: readonly ChatMessage[];
  /** Tools offered besides search_tools: `llm.max_tools`, else worked out from the window (see toolsForWindow). */
  cap: number;
  searchTool: string;
  /** The caller's own tools (proxies): always offered, counted inside the cap. */
  isCallerTool: (name: string) => boolean;
  /** What search_tools found for this caller: offered while they fit. */
  found: readonly string[];
  /** Names of the tools best matching a request, best first (the tool index). */
  rank: (query: string, limit: number) => string[];
}

/**
 * How many tools a model's window can take well, when the owner set no `llm.max_tools`: eight per 4k tokens of
 * context below 32k (a small model loses accuracy with every tool past a dozen, and its window with every schema);
 * all of them at 32k or more, or when the window is not known.
 */
export function toolsForWindow(contextLength: number | undefined): number {
  if (contextLength === undefined || contextLength >= 32_768) return Infinity;
  return Math.max(4, Math.floor(contextLength / 4096) * 8);
}

/**
 * The tools offered in one turn: all when they fit; else at most `cap` of them plus search_tools — the caller's own
 * (always), those the model already used in this conversation, those search_tools found, then the most relevant to what the
 * user asked (the last message first, then the conversation before it).
 */
export function selectTools(input: SelectionInput): ToolSelection {
  const { tools, cap } = input;
  if (tools.length <= cap + 1) return { tools: [...tools], offered: tools.map((t) => ({ name: t.function.name, why: 'all' as const })) };
  const byName = new Map(tools.map((t) => [t.function.name, t]));
  const chosen = new Map<string, OfferReason>();
  const take = (name: string, why: OfferReason) => {
    if (chosen.size < cap && byName.has(name) && name !== input.searchTool && !chosen.has(name)) chosen.set(name, why);
  };
  // The caller's own tools are what it asked the model to use: never left out, even past the cap.
  for (const tool of tools) if (input.isCallerTool(tool.function.name)) chosen.set(tool.function.name, 'yours');
  const used = input.messages.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.name) : []));
  for (const name of [...used].reverse()) take(name, 'used');
  for (const name of [...input.found].reverse()) take(name, 'found');
  const asked = input.messages.filter((m) => m.role === 'user').map((m) => m.content);
  const last = asked[asked.length - 1];
  if (last) for (const name of input.rank(last, cap)) take(name, 'relevant');
  if (asked.length > 1) for (const name of input.rank(asked.slice(0, -1).slice(-4).join('\n'), cap)) take(name, 'relevant');
  const offered = [...chosen].map(([name, why]) => ({ name, why }));
  if (byName.has(input.searchTool)) offered.push({ name: input.searchTool, why: 'search' });
  return { tools: tools.filter((t) => offered.some((o) => o.name === t.function.name)), offered };
}

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

/** What ranks the tools: the same as a selection's, without its cap. */
export type RankingInput = Omit<SelectionInput, 'cap'>;

/**
 * The tools worth offering, best first, at most `limit` (the caller's own always, past the limit): the caller's own,
 * those the model already used in this conversation, those search_tools found, then the most relevant to what the
 * user asked (the last message first, then the conversation before it). search_tools itself is not among them.
 */
function ranked(input: RankingInput, limit: number): Map<string, OfferReason> {
  const { tools } = input;
  const names = new Set(tools.map((t) => t.function.name));
  const chosen = new Map<string, OfferReason>();
  const take = (name: string, why: OfferReason) => {
    if (chosen.size < limit && names.has(name) && name !== input.searchTool && !chosen.has(name)) chosen.set(name, why);
  };
  // The caller's own tools are what it asked the model to use: never left out, even past the cap.
  for (const tool of tools) if (input.isCallerTool(tool.function.name)) chosen.set(tool.function.name, 'yours');
  const used = input.messages.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.name) : []));
  for (const name of [...used].reverse()) take(name, 'used');
  for (const name of [...input.found].reverse()) take(name, 'found');
  const asked = input.messages.filter((m) => m.role === 'user').map((m) => m.content);
  const last = asked[asked.length - 1];
  if (last) for (const name of input.rank(last, limit)) take(name, 'relevant');
  if (asked.length > 1) for (const name of input.rank(asked.slice(0, -1).slice(-4).join('\n'), limit)) take(name, 'relevant');
  return chosen;
}

/** The tools offered in one turn: all when they fit; else at most `cap` of the best ranked plus search_tools. */
export function selectTools(input: SelectionInput): ToolSelection {
  const { tools, cap } = input;
  if (tools.length <= cap + 1) return { tools: [...tools], offered: tools.map((t) => ({ name: t.function.name, why: 'all' as const })) };
  const offered = [...ranked(input, cap)].map(([name, why]) => ({ name, why }));
  if (tools.some((t) => t.function.name === input.searchTool)) offered.push({ name: input.searchTool, why: 'search' });
  const names = new Set(offered.map((o) => o.name));
  return { tools: tools.filter((t) => names.has(t.function.name)), offered };
}

/**
 * All the tools, most worth keeping first, for when not all of them fit the model's window: the same ranking,
 * search_tools right after the caller's own (what is left out can still be found), then the rest as offered.
 */
export function windowOrder(input: RankingInput): ToolSpec[] {
  const byName = new Map(input.tools.map((t) => [t.function.name, t]));
  const order = [...ranked(input, input.tools.length)];
  const callers = order.filter(([, why]) => why === 'yours').map(([name]) => name);
  const rest = order.filter(([, why]) => why !== 'yours').map(([name]) => name);
  const first = [...callers, input.searchTool, ...rest].filter((name) => byName.has(name));
  const placed = new Set(first);
  return [...first.map((name) => byName.get(name)!), ...input.tools.filter((t) => !placed.has(t.function.name))];
}

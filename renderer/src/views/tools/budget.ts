import type { ClientProfile } from '../../lib/types';

// A client's budget (PUT /clients/{name}/budget) in words and as typed. Pure, so it is tested without a page.

/** The largest budget the gateway takes. */
export const MAX_BUDGET = 1000;

/** The budget field as typed: empty for no limit, else a whole number from 1 to 1000 (search_tools counted). */
export function parseBudget(text: string): { ok: true; value: number | null } | { ok: false; message: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, value: null };
  const value = Number(trimmed);
  if (!Number.isInteger(value) || value < 1 || value > MAX_BUDGET) {
    return { ok: false, message: `The budget is a whole number from 1 to ${MAX_BUDGET}, or empty for no limit.` };
  }
  return { ok: true, value };
}

const tools = (n: number) => `${n} tool${n === 1 ? '' : 's'}`;

/** The clients table's cell: "no limit", "12 tools", "12 tools · 2 pinned". */
export function budgetInWords(profile: Pick<ClientProfile, 'max_tools' | 'pinned'>): string {
  if (profile.max_tools === null) return 'no limit';
  const pinned = profile.pinned?.length ?? 0;
  return `${tools(profile.max_tools)}${pinned > 0 ? ` · ${pinned} pinned` : ''}`;
}

/**
 * What a budget does to a client with `count` tools in its set and `pinned` tools pinned: over it, its lists carry
 * search_tools first, then its pinned tools while they fit, plus what search_tools found for it (as the gateway lists).
 */
export function budgetNote(count: number, budget: number | null, pinned: number): { over: boolean; text: string } {
  if (budget === null) return { over: false, text: `No limit: its lists carry all ${tools(count)} of its set.` };
  if (count <= budget) return { over: false, text: `Its ${tools(count)} fit the budget: its lists carry them all.` };
  const fit = Math.min(pinned, Math.max(0, budget - 1));
  const carried = fit > 0 ? `search_tools and ${fit} pinned` : 'search_tools';
  const left = pinned > fit ? ` ${pinned - fit} pinned ${pinned - fit === 1 ? 'tool does' : 'tools do'} not fit.` : '';
  return {
    over: true,
    text: `${tools(count)} in its set, over the budget: its lists carry ${carried}, plus the tools search_tools finds for it; it can still call any tool of its set by name.${left}`,
  };
}

import type { ToolMatch, ToolMatchHow } from './types';

// The Tools view's search: its query string and the words explaining why a tool was found. Pure, so the explanations
// are tested without a page.

/** How many tools a search shows. */
export const TOOL_SEARCH_LIMIT = 10;

/** `GET /tools/search?…` for the words typed. */
export function toolSearchPath(q: string, limit = TOOL_SEARCH_LIMIT): string {
  return `/tools/search?${new URLSearchParams({ q: q.trim(), limit: String(limit) }).toString()}`;
}

const HOW: Record<ToolMatchHow, string> = {
  word: 'same word',
  stem: 'same stem',
  synonym: 'synonym',
  related: 'related word',
  fuzzy: 'typo',
};

/** One word's match: "high → elevation (synonym)"; a word found as typed is just the word. */
export function matchInWords(match: ToolMatch): string {
  if (match.how === 'word' && match.word.toLowerCase() === match.matched.toLowerCase()) return match.word;
  return `${match.word} → ${match.matched} (${HOW[match.how] ?? match.how})`;
}

/** Every word's match, once each, in the order the gateway gave: "high → elevation (synonym) · denver". */
export function matchesInWords(matches: readonly ToolMatch[]): string {
  return [...new Set(matches.map(matchInWords))].join(' · ');
}

/** A score as shown beside a result: two decimals at most, no trailing zeros. */
export function scoreText(score: number): string {
  return Number.isFinite(score) ? String(Math.round(score * 100) / 100) : '–';
}

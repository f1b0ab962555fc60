/**
 * A search box's matcher: a text matches when it contains every word of `query`, ignoring case. Null when the query
 * has no words (everything matches), so a caller can skip building the texts. `text` must be in lower case already:
 * callers build it once per record and reuse it.
 */
export function wordMatcher(query: string): ((text: string) => boolean) | null {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return words.length === 0 ? null : (text) => words.every((word) => text.includes(word));
}

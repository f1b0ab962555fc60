import type { MemoryFilter } from '../store/memories.js';
import { GRAM_ROWS, type GramBudget } from '../store/memory-statistics.js';
import { ftsPhrase } from '../store/memories.js';
import type { Corpus } from './corpus.js';
import type { Ranked, TermMatch } from './ranking.js';
import type { Steps } from './steps.js';
import { isCjk } from './tokenize.js';

/**
 * How many vocabulary terms holding a query term stand for it, the most frequent first. A part as common as `ing`
 * is held by thousands of terms: past this many, the rarest of them are left out (their memories are few), which
 * keeps the index query to a bounded size.
 */
const HOLDERS = 200;
const COMMON_WORD = 0.05;

/**
 * keyword: memories holding every query term, as a term of their own or as part of one (`config` finds
 * `tsconfig.json`, `flow` finds `workflows`), ranked by BM25 (FTS5's bm25()'s) over the terms that hold them.
 * A Latin or numeric query term of three characters or more is looked up in the vocabulary's trigram table; a
 * two-character one, and a CJK one (its bigrams are already parts of the text), as itself or the start of a term;
 * a single character and a common word as itself only. Counts and vocabulary come from `corpus` (see corpus.ts).
 * The terms holding a query term share the index entries one query may read with the other query terms' (corpus.ts):
 * past its share, the commonest of them are left out.
 */
export function* keywordSearch(corpus: Corpus, terms: readonly string[], filter: MemoryFilter, limit: number): Steps<Ranked[]> {
  const store = corpus.statistics;
  const holders = new Map<string, Set<string>>();
  const df = store.documentFrequencies(terms);
  const { docs } = store.corpus();
  const share = corpus.matchPostings() / terms.length;
  const budget: GramBudget = { gramRows: GRAM_ROWS };
  for (const term of terms) {
    yield;
    const found = new Set([term]);
    // A word in more than a twentieth of the memories ("the") was typed as that word: the memories holding it as
    // part of another ("other", "then") would only make the index rank most of the corpus. A single character
    // (the `v` and `2` of `v2.3.1`) is part of nearly everything: it counts as a term of its own only.
    if ([...term].length < 2 || (df.get(term) ?? 0) > docs * COMMON_WORD) {
      holders.set(term, found);
      continue;
    }
    const long = [...term].length >= 3 && !isCjk(term);
    let postings = 0;
    for (const holder of long ? store.termsContaining(term, HOLDERS, budget) : store.termsWithPrefix(term, HOLDERS)) {
      if (holder.term === term || postings + holder.docs > share) continue;
      found.add(holder.term);
      postings += holder.docs;
    }
    holders.set(term, found);
  }
  yield;
  const match = [...holders.values()].map((found) => `(${[...found].map(ftsPhrase).join(' OR ')})`).join(' AND ');
  // Each alternative is a phrase of its own, as FTS5's bm25() counts them.
  const phrases = [...holders.values()].flatMap((found) => [...found]);
  const found = yield* corpus.ranked(match, phrases, filter, limit);
  return found.map((memory) => {
    const present = new Set(memory.terms);
    const matched: TermMatch[] = [];
    const missing: string[] = [];
    for (const [query, found] of holders) {
      // The shortest term of the memory holding it explains it best (`tsconfig` before `tsconfig.json`).
      const term = present.has(query) ? query : [...found].filter((t) => present.has(t)).sort((a, b) => a.length - b.length || (a < b ? -1 : 1))[0];
      if (term === undefined) missing.push(query);
      else matched.push(term === query ? { query, term, distance: 0 } : { query, term, distance: [...term].length - [...query].length, part: true });
    }
    return { memory, score: memory.score, terms: matched, missing };
  });
}

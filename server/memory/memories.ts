import type { IndexedMemory, Memory, MemoryFilter, MemoryStore } from '../store/memories.js';
import { ftsPhrase } from '../store/memories.js';
import { allowedDistance, editDistance, trigrams } from './distance.js';
import { isCjk, normalize, queryTerms, tokenize } from './tokenize.js';

export type { Memory, MemoryFilter } from '../store/memories.js';

export type SearchMethod = 'keyword' | 'tfidf' | 'fuzzy' | 'hybrid';
export const SEARCH_METHODS: readonly SearchMethod[] = ['keyword', 'tfidf', 'fuzzy', 'hybrid'];

/** One query term and the memory term it matched: `distance` 0 is exact. */
export interface TermMatch {
  query: string;
  term: string;
  distance: number;
}

/** Why a memory was found: the terms that matched (exactly or at which distance) and those that did not. */
export interface MatchExplanation {
  method: SearchMethod;
  terms: TermMatch[];
  missing: string[];
}

export interface SearchResult extends Memory {
  score: number;
  match: MatchExplanation;
}

export interface SearchOptions extends MemoryFilter {
  query: string;
  method?: SearchMethod;
  limit?: number;
}

export const MEMORY_LIMITS = { content: 100_000, tags: 32, tag: 64, category: 64, limit: 100 } as const;

/** A memory write that cannot be stored; `field` names the bad one. */
export class MemoryInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'MemoryInputError';
  }
}

/** BM25 parameters of the hybrid score (the same values FTS5's bm25() uses for keyword and tfidf). */
const K1 = 1.2;
const B = 0.75;
/** How many vocabulary terms sharing trigrams with a query term are compared with it. */
const FUZZY_CANDIDATES = 64;
/** How many memories the index hands to the fuzzy and hybrid scoring, at least. */
const MIN_POOL = 200;

/**
 * The memory: writes (terms come from the one tokeniser) and the four search methods.
 * - keyword: every query term present, ranked by FTS5 bm25();
 * - tfidf: any query term, ranked by FTS5 bm25() (Okapi BM25, k1 = 1.2, b = 0.75, IDF over the whole corpus);
 * - fuzzy: each query term matched to vocabulary terms within its edit distance (trigram candidates, then
 *   Damerau-Levenshtein); a memory scores the sum over query terms of its best match's similarity (1 − d/len);
 * - hybrid: exact and fuzzy matches in one BM25 score, a fuzzy match weighted down by its distance and never worth
 *   more than the exact term would be.
 */
export class Memories {
  constructor(private readonly store: MemoryStore) {}

  add(input: { content: unknown; tags?: unknown; category?: unknown; client: string; callId?: string | null }): Memory {
    const content = checkContent(input.content);
    const tags = checkTags(input.tags);
    const category = checkCategory(input.category);
    return this.store.add({ content, tags, category, client: input.client, call_id: input.callId ?? null, terms: indexTerms(content, tags, category) });
  }

  /** Changes the fields given; answers undefined for an unknown id. */
  update(id: number, patch: { content?: unknown; tags?: unknown; category?: unknown }): Memory | undefined {
    const current = this.store.get(id);
    if (!current) return undefined;
    const content = patch.content === undefined ? current.content : checkContent(patch.content);
    const tags = patch.tags === undefined ? current.tags : checkTags(patch.tags);
    const category = patch.category === undefined ? current.category : checkCategory(patch.category);
    return this.store.update(id, { content, tags, category, terms: indexTerms(content, tags, category) });
  }

  remove(id: number): boolean {
    return this.store.remove(id);
  }

  get(id: number): Memory | undefined {
    return this.store.get(id);
  }

  newest(filter: MemoryFilter, limit: number): Memory[] {
    return this.store.newest(filter, limit);
  }

  search(options: SearchOptions): SearchResult[] {
    const method = options.method ?? 'hybrid';
    const limit = options.limit ?? 10;
    const terms = queryTerms(options.query);
    if (terms.length === 0) return [];
    const filter: MemoryFilter = {
      ...(options.tags && { tags: options.tags.map((t) => normalize(t).trim()) }),
      ...(options.category !== undefined && { category: normalize(options.category).trim() }),
      ...(options.client !== undefined && { client: options.client }),
    };
    if (method === 'keyword' || method === 'tfidf') {
      const match = terms.map(ftsPhrase).join(method === 'keyword' ? ' AND ' : ' OR ');
      return this.store.search(match, filter, limit).map((row) => result(row, row.score, explainExact(method, terms, row.terms)));
    }
    return this.#scored(method, terms, filter, limit);
  }

  /** Fuzzy and hybrid: the index finds the memories holding any variant; each is scored from its own terms. */
  #scored(method: 'fuzzy' | 'hybrid', terms: string[], filter: MemoryFilter, limit: number): SearchResult[] {
    const df = this.store.documentFrequencies(terms);
    const variants = new Map<string, Map<string, number>>(); // query term → vocabulary term → distance
    for (const term of terms) {
      const found = new Map<string, number>();
      if (df.has(term)) found.set(term, 0);
      const max = allowedDistance(term, isCjk(term));
      if (max > 0) {
        for (const candidate of this.store.termsSharingGrams(trigrams(term), FUZZY_CANDIDATES)) {
          if (candidate.term === term) continue;
          const distance = editDistance(term, candidate.term, max);
          if (distance <= max) {
            found.set(candidate.term, distance);
            df.set(candidate.term, candidate.docs);
          }
        }
      }
      variants.set(term, found);
    }
    const all = [...new Set([...variants.values()].flatMap((found) => [...found.keys()]))];
    if (all.length === 0) return [];
    const pool = this.store.search(all.map(ftsPhrase).join(' OR '), filter, Math.max(MIN_POOL, limit * 10));
    const { docs, tokens } = this.store.corpus();
    const averageLength = docs > 0 ? tokens / docs : 1;
    const idf = (term: string) => {
      const n = df.get(term) ?? 0;
      return Math.log(1 + (docs - n + 0.5) / (n + 0.5));
    };

    const scored = pool.map((memory) => {
      const counts = new Map<string, number>();
      for (const term of memory.terms) counts.set(term, (counts.get(term) ?? 0) + 1);
      const lengthNorm = K1 * (1 - B + (B * memory.terms.length) / averageLength);
      let score = 0;
      const matched: TermMatch[] = [];
      const missing: string[] = [];
      for (const [query, found] of variants) {
        let best: { term: string; distance: number; value: number } | undefined;
        for (const [term, distance] of found) {
          const tf = counts.get(term);
          if (!tf) continue;
          const similarity = 1 - distance / Math.max([...query].length, [...term].length);
          let value: number;
          if (method === 'fuzzy') value = similarity;
          else {
            // A near term is worth less than the exact one, and never more than the exact term's own rarity.
            const weight = distance === 0 ? 1 : 0.7 * similarity;
            const rarity = distance === 0 || !df.has(query) ? idf(term) : Math.min(idf(term), idf(query));
            value = weight * rarity * ((tf * (K1 + 1)) / (tf + lengthNorm));
          }
          if (!best || value > best.value) best = { term, distance, value };
        }
        if (best) {
          score += best.value;
          matched.push({ query, term: best.term, distance: best.distance });
        } else missing.push(query);
      }
      return result(memory, score, { method, terms: matched, missing });
    });
    return scored.sort((a, b) => b.score - a.score || b.created_at.localeCompare(a.created_at) || b.id - a.id).slice(0, limit);
  }
}

/** What is indexed: the content's terms, then the tags' and the category's. */
function indexTerms(content: string, tags: readonly string[], category: string | null): string[] {
  return [...tokenize(content), ...tags.flatMap(tokenize), ...(category ? tokenize(category) : [])];
}

function result(memory: IndexedMemory, score: number, match: MatchExplanation): SearchResult {
  const { terms: _terms, ...rest } = memory;
  return { ...rest, score: Math.round(score * 10_000) / 10_000, match };
}

function explainExact(method: SearchMethod, terms: readonly string[], memoryTerms: readonly string[]): MatchExplanation {
  const present = new Set(memoryTerms);
  return {
    method,
    terms: terms.filter((t) => present.has(t)).map((t) => ({ query: t, term: t, distance: 0 })),
    missing: terms.filter((t) => !present.has(t)),
  };
}

function checkContent(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new MemoryInputError('content', 'content must be a non-empty string.');
  if (value.length > MEMORY_LIMITS.content) throw new MemoryInputError('content', `content is longer than ${MEMORY_LIMITS.content} characters.`);
  return value;
}

/** Tags are kept trimmed, NFKC and lower case, without repeats. */
function checkTags(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((t) => typeof t === 'string')) throw new MemoryInputError('tags', 'tags must be a list of strings.');
  const tags = [...new Set((value as string[]).map((t) => normalize(t).trim()).filter((t) => t !== ''))];
  if (tags.length > MEMORY_LIMITS.tags) throw new MemoryInputError('tags', `at most ${MEMORY_LIMITS.tags} tags.`);
  const long = tags.find((t) => t.length > MEMORY_LIMITS.tag);
  if (long) throw new MemoryInputError('tags', `tag "${long.slice(0, 20)}…" is longer than ${MEMORY_LIMITS.tag} characters.`);
  return tags;
}

function checkCategory(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new MemoryInputError('category', 'category must be a string.');
  const category = normalize(value).trim();
  if (category.length > MEMORY_LIMITS.category) throw new MemoryInputError('category', `category is longer than ${MEMORY_LIMITS.category} characters.`);
  return category === '' ? null : category;
}

/** Tags as a query gives them: one comma-separated value. */
export function parseTagList(value: string): string[] {
  return [...new Set(value.split(',').map((t) => normalize(t).trim()).filter((t) => t !== ''))];
}

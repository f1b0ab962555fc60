import type { IndexedTool } from '../../../../server/tools/search/tool-index.js';
import type { GradedRequest } from './requests.js';

/**
 * Plain BM25 (k1 = 1.2, b = 0.75) over each tool's name and description as one text, lower-cased and split on
 * anything not a letter or digit: what the index must beat.
 */
export class PlainBm25 {
  readonly #docs: { name: string; tf: Map<string, number>; length: number }[];
  readonly #df = new Map<string, number>();
  readonly #average: number;

  constructor(tools: readonly IndexedTool[]) {
    this.#docs = tools.map((tool) => {
      const terms = plainTerms(`${tool.name} ${tool.description}`);
      const tf = new Map<string, number>();
      for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1);
      for (const term of tf.keys()) this.#df.set(term, (this.#df.get(term) ?? 0) + 1);
      return { name: tool.name, tf, length: terms.length };
    });
    this.#average = this.#docs.reduce((sum, doc) => sum + doc.length, 0) / Math.max(1, this.#docs.length);
  }

  search(query: string, limit: number): string[] {
    const k1 = 1.2;
    const b = 0.75;
    const n = this.#docs.length;
    const terms = [...new Set(plainTerms(query))];
    return this.#docs
      .map((doc) => {
        let score = 0;
        for (const term of terms) {
          const tf = doc.tf.get(term);
          if (!tf) continue;
          const df = this.#df.get(term)!;
          const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
          score += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * doc.length) / this.#average));
        }
        return { name: doc.name, score };
      })
      .filter((hit) => hit.score > 0)
      .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1))
      .slice(0, limit)
      .map((hit) => hit.name);
  }
}

function plainTerms(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

export interface Scores {
  recallAt5: number;
  mrrAt10: number;
  /** Requests whose tool was not in the first five, with what came first. */
  misses: { query: string; expected: readonly string[]; got: string[] }[];
}

/** Recall@5 and MRR@10 of a ranker (names, best first) over the graded requests. */
export function evaluate(requests: readonly GradedRequest[], rank: (query: string) => string[]): Scores {
  let found = 0;
  let reciprocal = 0;
  const misses: Scores['misses'] = [];
  for (const request of requests) {
    const names = rank(request.query).slice(0, 10);
    const at = names.findIndex((name) => request.expected.includes(name));
    if (at >= 0 && at < 5) found++;
    else misses.push({ query: request.query, expected: request.expected, got: names.slice(0, 5) });
    if (at >= 0) reciprocal += 1 / (at + 1);
  }
  return { recallAt5: found / requests.length, mrrAt10: reciprocal / requests.length, misses };
}

import { allowedDistance, editDistance, trigrams } from '../../memory/distance.js';

/** How many words sharing the most trigrams with a typed word are compared with it (edit distance is the cost). */
const CANDIDATES = 48;
/** A transposed pair of letters changes up to this many of a word's padded trigrams. */
const GRAMS_PER_EDIT = 4;

export interface NearWord {
  word: string;
  distance: number;
}

/**
 * Words within a typo of a typed one (`delte` → `delete`). Never compares a word with the whole dictionary: the
 * words sharing enough padded trigrams with it are found through a trigram table, and only the best of those are
 * compared by edit distance (memory's `editDistance` and `allowedDistance`). Words are counted in and out, so the
 * same word added by two tools stays until both are gone.
 */
export class FuzzyDictionary {
  readonly #counts = new Map<string, number>();
  /** Trigram → the words holding it (arrays: far smaller than sets, and words leave seldom). */
  readonly #grams = new Map<string, string[]>();

  get size(): number {
    return this.#counts.size;
  }

  has(word: string): boolean {
    return this.#counts.has(word);
  }

  add(word: string): void {
    const count = this.#counts.get(word) ?? 0;
    this.#counts.set(word, count + 1);
    if (count > 0) return;
    for (const gram of new Set(trigrams(word))) {
      const holders = this.#grams.get(gram);
      if (holders) holders.push(word);
      else this.#grams.set(gram, [word]);
    }
  }

  delete(word: string): void {
    const count = this.#counts.get(word);
    if (count === undefined) return;
    if (count > 1) {
      this.#counts.set(word, count - 1);
      return;
    }
    this.#counts.delete(word);
    for (const gram of new Set(trigrams(word))) {
      const holders = this.#grams.get(gram);
      if (!holders) continue;
      const at = holders.indexOf(word);
      if (at >= 0) holders.splice(at, 1);
      if (holders.length === 0) this.#grams.delete(gram);
    }
  }

  /** The dictionary's words within `allowedDistance` of `word` (itself excluded), nearest first. */
  near(word: string, maxDistance = allowedDistance(word, false)): NearWord[] {
    if (maxDistance <= 0) return [];
    const grams = [...new Set(trigrams(word))];
    const length = [...word].length;
    const shared = new Map<string, number>();
    for (const gram of grams) {
      for (const holder of this.#grams.get(gram) ?? []) shared.set(holder, (shared.get(holder) ?? 0) + 1);
    }
    const needed = Math.max(1, grams.length - GRAMS_PER_EDIT * maxDistance);
    const candidates = [...shared]
      .filter(([holder, count]) => count >= needed && holder !== word && Math.abs([...holder].length - length) <= maxDistance)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, CANDIDATES);
    const found: NearWord[] = [];
    for (const [holder] of candidates) {
      // The dictionary word's own allowance too: a long typed word must not reach a short one it merely contains.
      const max = Math.min(maxDistance, Math.max(allowedDistance(holder, false), 1));
      const distance = editDistance(word, holder, max);
      if (distance <= max) found.push({ word: holder, distance });
    }
    return found.sort((a, b) => a.distance - b.distance || (a.word < b.word ? -1 : 1));
  }
}

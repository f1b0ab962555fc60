import { FuzzyDictionary, type NearWord } from './fuzzy.js';
import { softwareMates } from './software-words.js';
import { stemOf } from './text.js';
import type { WordNet } from './wordnet.js';

/**
 * WordNet words kept per indexed word, the closer first (WordNet lists frequent senses first; related words come
 * sense by sense: lemmas of rarer senses, broader, narrower and derived terms, definition words): more only add noise.
 */
const MAX_RELATED = 24;
const MAX_SYNONYMS = 24;
/** Word pairs whose answer (a WordNet phrase or not) is kept. */
const MAX_PHRASES = 4096;
/** Words that may be an adjective's comparative or superlative (`higher`, `highest`). */
const COMPARED = /^[a-z]{2,}(?:er|est)$/;

/** The key a word or a WordNet phrase (`take_away`) is looked up under: its words' stems joined by `_`. */
export function phraseKey(lemma: string): string {
  if (!/[_\s]/.test(lemma)) return stemOf(lemma);
  return lemma
    .split(/[_\s]+/)
    .filter((w) => w !== '')
    .map(stemOf)
    .join('_');
}

/**
 * The index's vocabulary (the Latin words of its tools, as written) and what leads to each word: its WordNet
 * synonyms and related words and its software synonyms (software-words.ts), worked out once when the word enters
 * the vocabulary (never per query) and kept as a map from each such key to the indexed words it stands for, so a
 * query word finds them in one look-up. Words are counted in and out: a word's links go when its last tool goes.
 */
export class Vocabulary {
  readonly #wordnet: WordNet | null;
  readonly #phrases = new Map<string, boolean>();
  readonly #counts = new Map<string, number>();
  /**
   * Indexed word → the keys it is found by, kept to take them out again: software synonym, WordNet synonym and related
   * keys, and the synonyms as written (what a typo is corrected to), as one compact string (`sw|syn syn|rel|word`).
   */
  readonly #links = new Map<string, string>();
  /** Key → the indexed words (as written, space-separated: most keys lead to one) it is a synonym of. */
  readonly #synonyms = new Map<string, string>();
  /** Key → the indexed words it is a software synonym of (software-words.ts). */
  readonly #software = new Map<string, string>();
  /** Key → the indexed words (as written, space-separated) it is related to. */
  readonly #related = new Map<string, string>();
  /** The indexed words and their synonyms as written, for correcting typos. */
  readonly #fuzzy = new FuzzyDictionary();

  constructor(wordnet: WordNet | null) {
    this.#wordnet = wordnet;
  }

  get size(): number {
    return this.#counts.size;
  }

  /** Counts words in; those new to the vocabulary get their links (one pass over WordNet for all of them). */
  add(surfaces: Iterable<string>): void {
    const fresh: string[] = [];
    for (const surface of surfaces) {
      const count = this.#counts.get(surface) ?? 0;
      this.#counts.set(surface, count + 1);
      if (count === 0) fresh.push(surface);
    }
    if (fresh.length === 0) return;
    const link = () => {
      for (const surface of fresh) this.#link(surface);
    };
    if (this.#wordnet) this.#wordnet.batch(link);
    else link();
  }

  /** Counts words out; a word no tool holds any more loses its links. */
  delete(surfaces: Iterable<string>): void {
    for (const surface of surfaces) {
      const count = this.#counts.get(surface);
      if (count === undefined) continue;
      if (count > 1) {
        this.#counts.set(surface, count - 1);
        continue;
      }
      this.#counts.delete(surface);
      this.#unlink(surface);
    }
  }

  /**
   * The indexed words (as written) `key` (a query word's stem or a phrase key) is a software synonym, a WordNet
   * synonym or a related word of.
   */
  linked(key: string): { software: readonly string[]; synonyms: readonly string[]; related: readonly string[] } {
    return { software: words(this.#software.get(key) ?? ''), synonyms: words(this.#synonyms.get(key) ?? ''), related: words(this.#related.get(key) ?? '') };
  }

  /** Whether `key` leads anywhere. */
  /** Whether WordNet has these words as one lemma (`sea level`, `take away`): then they mean it, not each word. */
  isPhrase(phrase: string): boolean {
    if (!this.#wordnet) return false;
    const known = this.#phrases.get(phrase);
    if (known !== undefined) return known;
    const found = this.#wordnet.baseForms(phrase.replace(/\s+/g, '_')).length > 0;
    // Requests repeat their word pairs; each answer costs a search of the files, so the answers are kept (bounded).
    if (this.#phrases.size >= MAX_PHRASES) this.#phrases.delete(this.#phrases.keys().next().value!);
    this.#phrases.set(phrase, found);
    return found;
  }

  isKey(key: string): boolean {
    return this.#software.has(key) || this.#synonyms.has(key) || this.#related.has(key);
  }

  /** Indexed words and their synonyms within a typo of `word`. */
  near(word: string): NearWord[] {
    return this.#fuzzy.near(word);
  }

  #link(surface: string): void {
    const own = stemOf(surface);
    const software = new Set<string>();
    const synonyms = new Set<string>();
    const related = new Set<string>();
    const spelled = new Set<string>();
    const take = (lemma: string, into: Set<string>, limit: number) => {
      if (into.size >= limit) return;
      const key = phraseKey(lemma);
      if (key === '' || key === own || software.has(key) || (into === related && synonyms.has(key))) return;
      into.add(key);
      if (into !== related && !lemma.includes('_')) spelled.add(lemma);
    };
    for (const mate of softwareMates(own)) take(mate, software, Infinity);
    const relations = this.#wordnet?.lookup(surface);
    if (relations) {
      for (const lemma of relations.synonyms) take(lemma, synonyms, MAX_SYNONYMS);
      for (const lemma of relations.related) {
        take(lemma, related, MAX_RELATED);
        // A comparative or superlative also leads by its base form (`highest` in a definition: `high`), which the
        // stemmer does not reach (it does reach `-ed`, `-ing`, `-s`); only those are looked up: each costs a search.
        if (COMPARED.test(lemma)) for (const base of this.#wordnet?.baseForms(lemma) ?? []) if (base.lemma !== lemma) take(base.lemma, related, MAX_RELATED);
      }
    }
    this.#links.set(surface, [software, synonyms, related, spelled].map((set) => [...set].join(' ')).join('|'));
    for (const key of software) push(this.#software, key, surface);
    for (const key of synonyms) push(this.#synonyms, key, surface);
    for (const key of related) push(this.#related, key, surface);
    this.#fuzzy.add(surface);
    for (const word of spelled) this.#fuzzy.add(word);
  }

  #unlink(surface: string): void {
    const links = this.#links.get(surface);
    if (links === undefined) return;
    this.#links.delete(surface);
    const [software = '', synonyms = '', related = '', spelled = ''] = links.split('|');
    for (const key of words(software)) pull(this.#software, key, surface);
    for (const key of words(synonyms)) pull(this.#synonyms, key, surface);
    for (const key of words(related)) pull(this.#related, key, surface);
    this.#fuzzy.delete(surface);
    for (const word of words(spelled)) this.#fuzzy.delete(word);
  }
}

function words(list: string): string[] {
  return list === '' ? [] : list.split(' ');
}

function push(map: Map<string, string>, key: string, value: string): void {
  const list = map.get(key);
  map.set(key, list === undefined ? value : `${list} ${value}`);
}

function pull(map: Map<string, string>, key: string, value: string): void {
  const list = map.get(key);
  if (list === undefined) return;
  const rest = words(list).filter((word) => word !== value);
  if (rest.length === 0) map.delete(key);
  else map.set(key, rest.join(' '));
}

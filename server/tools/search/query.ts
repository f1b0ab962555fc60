import { tokenize } from '../../memory/tokenize.js';
import { englishFor } from './cjk-words.js';
import { impliedWords } from './implied.js';
import type { Postings } from './postings.js';
import { KNOWN_WORD_WORDNET, MATCH_WEIGHT, SECOND_EDIT } from './ranking.js';
import { softwareMates } from './software-words.js';
import { stemOf, words } from './text.js';
import { phraseKey, type Vocabulary } from './vocabulary.js';

export type MatchKind = 'word' | 'stem' | 'synonym' | 'related' | 'fuzzy';

/** One indexed term a query word stands for, and what meeting it is worth. */
export interface Expansion {
  term: string;
  weight: number;
  how: MatchKind;
}

/** A query word (or a two-word phrase WordNet knows, `sea level`) and the indexed terms it stands for. */
export interface QueryWord {
  word: string;
  expansions: Expansion[];
}

/** Longest query read: a pasted document is not a request for a tool. */
const MAX_QUERY_LENGTH = 1000;
const MAX_QUERY_WORDS = 32;
/** Unknown words of one query looked up as typos (each costs a trigram search). */
const MAX_CORRECTED = 8;
const SIMPLE_WORD = /^[\p{L}\p{N}]+$/u;
/** What a word's own matches are worth when it is part of a compound the query names. */
const PHRASE_PART = 0.5;

/** The indexed terms one query word stands for, each with the best weight found for it. */
class Expansions {
  readonly #found = new Map<string, Expansion>();

  constructor(
    private readonly postings: Postings,
    private readonly vocabulary: Vocabulary,
  ) {}

  add(term: string, weight: number, how: MatchKind): void {
    const known = this.#found.get(term);
    if (!this.postings.has(term) || (known && known.weight >= weight)) return;
    this.#found.set(term, { term, weight, how });
  }

  /**
   * The indexed words `key` is a synonym of or related to, at `scale` times those relations' worth. A word the
   * tools use themselves is mostly meant as they use it: its WordNet senses count for less then.
   */
  addLinked(key: string, scale: number, how?: MatchKind): void {
    const { software, synonyms, related } = this.vocabulary.linked(key);
    const wordnet = scale * (this.postings.has(key) ? KNOWN_WORD_WORDNET : 1);
    for (const surface of software) this.add(stemOf(surface), scale * MATCH_WEIGHT.synonym, how ?? 'synonym');
    for (const surface of synonyms) this.add(stemOf(surface), wordnet * MATCH_WEIGHT.synonym, how ?? 'synonym');
    for (const surface of related) this.add(stemOf(surface), wordnet * MATCH_WEIGHT.related, how ?? 'related');
  }

  list(): Expansion[] {
    return [...this.#found.values()];
  }
}

/**
 * A query's words, each with what it stands for in the index: itself (as its stem, or a CJK term as it is), the
 * indexed words it is a synonym of or related to (the vocabulary's precomputed map, one look-up), and, when it is
 * unknown to the index as typed, the indexed words and synonyms within a typo of it (and what those stand for).
 * Then what the request implies (`notes.txt`: a file) and the two-word phrases WordNet knows. Stop words are left
 * out; a word that stands for nothing is dropped.
 */
export function parseQuery(query: string, postings: Postings, vocabulary: Vocabulary): QueryWord[] {
  const text = query.slice(0, MAX_QUERY_LENGTH);
  const parsed: QueryWord[] = [];
  const push = (word: string, expansions: Expansion[]) => {
    if (expansions.length > 0 && parsed.length < MAX_QUERY_WORDS) parsed.push({ word, expansions });
  };
  const typed = new Set<string>();
  let corrections = MAX_CORRECTED;
  for (const word of words(text)) {
    if (parsed.length >= MAX_QUERY_WORDS) break;
    if (typed.has(word.term)) continue;
    typed.add(word.term);
    const expansions = new Expansions(postings, vocabulary);
    expansions.add(word.term, MATCH_WEIGHT.word, 'word');
    if (word.cjk) {
      // A Chinese word of a request in English (tool descriptions are), and what that English word stands for.
      for (const english of englishFor(word.term)) {
        const term = stemOf(english);
        expansions.add(term, MATCH_WEIGHT.synonym, 'synonym');
        expansions.addLinked(term, MATCH_WEIGHT.synonym);
      }
    } else {
      expansions.addLinked(word.term, 1);
      if (!postings.has(word.term) && !vocabulary.isKey(word.term) && corrections-- > 0) {
        for (const near of vocabulary.near(word.surface)) {
          const weight = MATCH_WEIGHT.fuzzy * (near.distance > 1 ? SECOND_EDIT : 1);
          expansions.add(stemOf(near.word), weight, 'fuzzy');
          expansions.addLinked(stemOf(near.word), weight, 'fuzzy');
        }
      }
    }
    push(word.surface, expansions.list());
    // An abbreviation of several words (`pr`: pull request) stands for each of them.
    if (!word.cjk) {
      const parts = new Set(softwareMates(word.term).flatMap((mate) => (mate.includes('_') ? mate.split('_').map(stemOf) : [])));
      for (const term of parts) if (postings.has(term)) push(word.surface, [{ term, weight: MATCH_WEIGHT.synonym, how: 'synonym' }]);
    }
  }
  for (const { word, token } of impliedWords(text)) {
    const term = stemOf(word);
    if (typed.has(term) || !postings.has(term)) continue;
    typed.add(term);
    push(token, [{ term, weight: MATCH_WEIGHT.synonym, how: 'related' }]);
  }
  // Two-word phrases WordNet has as one lemma ("sea level", "take away"), stop words included.
  const plain = tokenize(text).filter((token) => SIMPLE_WORD.test(token));
  const phrases = new Set<string>();
  for (let i = 0; i + 1 < plain.length; i++) {
    const phrase = `${plain[i]} ${plain[i + 1]}`;
    // A word inside a compound means the compound (`level` in `sea level`), so its own matches count for less.
    if (vocabulary.isPhrase(phrase)) {
      for (const part of parsed) {
        if (part.word !== plain[i] && part.word !== plain[i + 1]) continue;
        part.expansions = part.expansions.map((e) => (e.how === 'word' || e.how === 'stem' ? { ...e, weight: e.weight * PHRASE_PART } : e));
      }
    }
    const key = phraseKey(phrase);
    if (phrases.has(key) || !vocabulary.isKey(key)) continue;
    phrases.add(key);
    const expansions = new Expansions(postings, vocabulary);
    expansions.addLinked(key, 1);
    push(phrase, expansions.list());
  }
  return parsed;
}

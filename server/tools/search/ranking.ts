import type { FieldWeights } from './postings.js';

/** BM25's term-frequency saturation. */
export const K1 = 1.2;

/**
 * BM25F's fields (in `Field` order: name, title, source, summary — the description's first sentence —, the rest of
 * the description, parameter names, parameter text): a word of the name says most about what a tool does, the
 * first sentence of its description more than the rest, its parameters least. Names and titles are a few words
 * each: their length hardly says anything (small b); the server name is the same for all of a server's tools (b 0).
 */
export const FIELDS: FieldWeights = {
  weight: [3, 2, 1.5, 1.5, 1, 0.6, 0.4],
  b: [0.3, 0.3, 0, 0.5, 0.75, 0.5, 0.75],
};

/**
 * What a query word is worth when it meets a tool's term: as written or in another form of the same stem, as a
 * synonym (software words, WordNet's frequent senses, the English of a Chinese word, what a file name implies), as a
 * related word (WordNet: rarer senses, broader and narrower terms, definitions), as a typo of a word the index knows.
 */
export const MATCH_WEIGHT = {
  word: 1,
  synonym: 0.6,
  related: 0.3,
  fuzzy: 0.8,
} as const;

/**
 * WordNet's synonyms and related words of a query word the tools themselves use count this much of their weight: the
 * word is mostly meant as the tools mean it (`report`, `file`), and WordNet's other senses of a common word find the
 * wrong tools. Its software synonyms count in full.
 */
export const KNOWN_WORD_WORDNET = 0.25;

/** A fuzzy match two edits away counts this much of one a single edit away. */
export const SECOND_EDIT = 0.8;

/**
 * The bonus for a query that names a tool: this much times the share of the tool's own name words (server prefix
 * left out) the query's words meet, each as much as its match is worth.
 */
export const NAME_BONUS = 1;


import { stemmer } from 'stemmer';
import { isCjk, normalize, tokenize } from '../../memory/tokenize.js';
import { isStopWord } from './stop-words.js';

/** One word of a tool's text or of a query: as written (folded), and the form it is indexed under. */
export interface Word {
  /** Case-folded as written: `files`. */
  surface: string;
  /** The indexed form: a Latin word's Porter stem (`file`), a CJK term itself. */
  term: string;
  cjk: boolean;
}

/** Where camelCase words meet: `getPullRequest`, `HTMLParser` (not `PRs`, `URLs`). */
const CAMEL = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll}{2})/gu;
const NUMBER = /^\p{N}+$/u;
const SEPARATED = /[._-]/;

/** The words of a tool name, lower case: `github__get_pull_request_files` → github, get, pull, request, files. */
export function splitName(name: string): string[] {
  return normalize(name.replace(CAMEL, ' '))
    .split(/[^\p{L}\p{N}]+/u)
    .filter((part) => part !== '');
}

/** The server prefix of an imported tool's name (`github__create_issue` → `github`), or undefined. */
export function namePrefix(name: string): string | undefined {
  const at = name.indexOf('__');
  return at > 0 ? name.slice(0, at) : undefined;
}

const stems = new Map<string, string>();
const STEM_CACHE = 8192;

/** A Latin word's Porter stem (cached, bounded). */
export function stemOf(word: string): string {
  let stem = stems.get(word);
  if (stem === undefined) {
    stem = stemmer(word);
    if (stems.size >= STEM_CACHE) stems.clear();
    stems.set(word, stem);
  }
  return stem;
}

/**
 * The words of a text that can tell tools apart, in order, repeats kept: the memory store's tokeniser (NFKC, case
 * folding, CJK bigrams), camelCase split first, without stop words, single letters, bare numbers or the joined
 * forms of identifiers (`feature-x` counts as `feature` and `x`).
 */
export function words(text: string): Word[] {
  const out: Word[] = [];
  for (const token of tokenize(text.replace(CAMEL, ' '))) {
    if (isCjk(token)) {
      out.push({ surface: token, term: token, cjk: true });
      continue;
    }
    if (token.length < 2 || NUMBER.test(token) || SEPARATED.test(token) || isStopWord(token)) continue;
    out.push({ surface: token, term: stemOf(token), cjk: false });
  }
  return out;
}

/** The words of a tool name, as `words` gives them. */
export function nameWords(name: string): Word[] {
  return words(splitName(name).join(' '));
}

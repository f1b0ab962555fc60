/**
 * The one tokeniser of memory text and queries (both sides must agree).
 *
 * - Unicode NFKC, then case folding (lower case, with ß → ss and final sigma folded), so full-width letters and
 *   digits, ligatures and upper case all meet their plain forms.
 * - Latin (and every other space-separated script) words, without stemming: a stemmer helps English and hurts
 *   identifiers, names and every other language; the fuzzy match covers near forms instead.
 * - Identifiers and numbers are kept whole *and* split: `tsconfig.json` → `tsconfig.json`, `tsconfig`, `json`;
 *   `sh600519` → `sh600519`, `sh`, `600519`; `v2.3.1` → `v2.3.1`, `v2`, `v`, `2`, `3`, `1`.
 * - Chinese and Japanese runs (which have no spaces): character bigrams, so any two adjacent characters of a query
 *   find the memory and one wrong character still leaves the others' bigrams matching, plus the longer words
 *   `Intl.Segmenter` finds (its two-character words are bigrams already); a lone character is its own term.
 */

const CJK = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々〆`;
const WORD_CHAR = String.raw`[[\p{L}\p{N}\p{M}]--[${CJK}]]`;
/** A CJK run, or a word whose parts may be joined by `.`, `_` or `-` (identifiers, versions, file names). */
const TOKEN = new RegExp(String.raw`(?<cjk>[${CJK}]+)|(?<word>${WORD_CHAR}+(?:[._\-]${WORD_CHAR}+)*)`, 'gv');
const PART_SPLIT = /[._-]/;
const LETTERS_OR_DIGITS = /\p{L}[\p{L}\p{M}]*|\p{N}+/gu;
const CJK_CHAR = new RegExp(`[${CJK}]`, 'v');
const CJK_RUN = new RegExp(`[${CJK}]+`, 'gv');

const segmenter = new Intl.Segmenter('zh', { granularity: 'word' });
/** The longest piece of a CJK run given to the segmenter at once (see cjkTerms). */
const SEGMENTED_RUN = 256;

/** NFKC and case folding. */
export function normalize(text: string): string {
  return text.normalize('NFKC').toLowerCase().replaceAll('ß', 'ss').replaceAll('ς', 'σ');
}

/** Whether a term is CJK text (bigram or word). */
export function isCjk(term: string): boolean {
  return CJK_CHAR.test(term);
}

/** The terms of a text, in order, repeats kept (term frequencies count them). */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  for (const match of normalize(text).matchAll(TOKEN)) {
    const { cjk, word } = match.groups!;
    if (cjk !== undefined) cjkTerms(cjk, terms);
    else if (word !== undefined) wordTerms(word, terms);
  }
  return terms;
}

/** The CJK runs of a text (folded), in order: what a query's Chinese or Japanese words are, unsplit. */
export function cjkRuns(text: string): string[] {
  return normalize(text).match(CJK_RUN) ?? [];
}

/** The distinct terms of a query, in order. */
export function queryTerms(text: string): string[] {
  return [...new Set(tokenize(text))];
}

function wordTerms(word: string, out: string[]): void {
  out.push(word);
  const parts = new Set<string>();
  for (const piece of word.split(PART_SPLIT)) {
    if (piece !== word) parts.add(piece);
    const runs = piece.match(LETTERS_OR_DIGITS) ?? [];
    if (runs.length > 1) for (const run of runs) parts.add(run);
  }
  parts.delete(word);
  out.push(...parts);
}

function cjkTerms(run: string, out: string[]): void {
  const chars = [...run];
  if (chars.length === 1) {
    out.push(run);
    return;
  }
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
  if (chars.length < 3) return;
  // Security: denial of service. The segmenter's time grows with the square of a run's length (a run of 32,000
  // characters without punctuation took 200 ms, of 100,000 seconds): a long run is segmented a piece at a time.
  // Text has punctuation long before; only a word across two pieces is missed.
  for (let at = 0; at < chars.length; at += SEGMENTED_RUN) {
    const piece = at === 0 && chars.length <= SEGMENTED_RUN ? run : chars.slice(at, at + SEGMENTED_RUN).join('');
    for (const { segment } of segmenter.segment(piece)) if ([...segment].length >= 3) out.push(segment);
  }
}

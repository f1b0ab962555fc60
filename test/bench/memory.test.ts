import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchMemory, defaultMemoryOptions, memoryLines, memoryVerdicts } from '../../bench/memory.js';
import { corpusMemory, LABELLED, loadSentences, plantedPositions, TARGETS } from '../../bench/memory-corpus.js';
import { GRADED_KINDS, gradedSet, type GradedKind } from '../../bench/memory-graded-set.js';

// The memory part of `npm run bench` at a small size: 10,000 and 100,000 stay in the benchmark.
const ROOT = resolve(import.meta.dirname, '..', '..');

describe('memory benchmark', () => {
  it('builds the same corpus from the same seed, with every labelled target planted', () => {
    const pools = loadSentences(ROOT);
    expect(corpusMemory(pools, 7, 123)).toEqual(corpusMemory(pools, 7, 123));
    expect(corpusMemory(pools, 7, 123)).not.toEqual(corpusMemory(pools, 8, 123));
    const planted = plantedPositions(1500);
    expect(planted.size).toBeGreaterThanOrEqual(Object.keys(TARGETS).length);
    expect(Math.max(...planted.keys())).toBeLessThan(1500);
    expect(Math.min(...planted.keys())).toBeGreaterThanOrEqual(0);
    for (const { want } of LABELLED) expect(TARGETS[want], want).toBeDefined();
  });

  it('builds the same graded set from the same seed, each query picking out its memory alone', () => {
    const pools = loadSentences(ROOT);
    const options = { size: 1200, seed: 9, perKind: Object.fromEntries(GRADED_KINDS.map((k) => [k, 4])) as Record<GradedKind, number> };
    const set = gradedSet(pools, options);
    expect(gradedSet(pools, options)).toEqual(set);
    expect(new Set(set.texts).size).toBe(1200);
    expect(set.queries).toHaveLength(4 * GRADED_KINDS.length);
    for (const kind of GRADED_KINDS) expect(set.queries.filter((q) => q.kind === kind)).toHaveLength(4);
    // Chinese queries are whole fragments of their memory; a typo query is not the memory's text.
    for (const q of set.queries.filter((x) => x.kind === 'chinese')) for (const part of q.query.split(' ')) expect(set.texts[q.want]).toContain(part);
    for (const q of set.queries.filter((x) => x.kind === 'chinese-typo')) expect(set.texts[q.want]).not.toContain(q.query.split(' ')[0]);
    expect(new Set(set.queries.map((q) => q.want)).size).toBe(set.queries.length);
  });

  it('measures every method, agrees with the naive scan on keyword, and prints verdicts', async () => {
    const graded = { size: 800, seed: 5, perKind: Object.fromEntries(GRADED_KINDS.map((k) => [k, 2])) as Record<GradedKind, number> };
    const options = { ...defaultMemoryOptions(ROOT, [1500]), sampled: 8, singleAdds: 20, naive: () => ({ queries: 3, budgetMs: 5000 }), graded };
    const result = await benchMemory(options);
    const [size] = result.sizes;
    expect(size!.size).toBe(1500);
    expect(result.bulk.added).toBe(1500);
    for (const method of ['keyword', 'tfidf', 'fuzzy', 'hybrid'] as const) {
      expect(size!.latency[method].samples).toBe(LABELLED.length + 8);
      expect(size!.naive[method].queries).toBe(3);
      expect(Number.isFinite(size!.naive[method].speedup)).toBe(true);
    }
    // Same BM25 as FTS5's bm25(): the full scan must rank the same top 10.
    expect(size!.naive.keyword.top10Agreement).toBe(1);
    // Identifiers are exact terms: every method but keyword's AND of bigrams finds them.
    expect(size!.retrieval.hybrid.byKind.identifier.recallAt5).toBe(1);
    const names = memoryVerdicts(result).map((v) => v.name);
    expect(names).toContain('memory_bulk_add_per_s');
    expect(names).toContain('memory_hybrid_p95_ms');
    expect(memoryLines(result).join('\n')).toContain('1,500 hybrid');
    // The graded run went through the HTTP API: every method answered every query.
    expect(result.graded!.memories).toBe(800);
    for (const method of ['keyword', 'tfidf', 'fuzzy', 'hybrid'] as const) expect(result.graded!.methods[method].byKind.typo.queries).toBe(2);
    expect(names).toContain('memory_graded_hybrid_http_p50_ms');
    expect(memoryLines(result).join('\n')).toContain('graded set: 800 memories');
  }, 180_000);
});

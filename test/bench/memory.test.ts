import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchMemory, defaultMemoryOptions, memoryLines, memoryVerdicts } from '../../bench/memory.js';
import { corpusMemory, LABELLED, loadSentences, plantedPositions, TARGETS } from '../../bench/memory-corpus.js';

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

  it('measures every method, agrees with the naive scan on keyword, and prints verdicts', async () => {
    const options = { ...defaultMemoryOptions(ROOT, [1500]), sampled: 8, singleAdds: 20, naive: () => ({ queries: 3, budgetMs: 5000 }) };
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
  }, 180_000);
});

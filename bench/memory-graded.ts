/**
 * The graded retrieval run of the memory benchmark, the way a held-out grading runs: a real gateway on
 * 127.0.0.1 in this process, every memory of the graded set (memory-graded-set.ts) stored with `POST /memory`, then
 * each query asked with `GET /memory?q=&method=&limit=10` for every method. Reports recall@5 and MRR@10 per method
 * and per kind, and each method's latency over HTTP (client side: request sent to answer read, keep-alive).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SEARCH_METHODS, type SearchMethod } from '../server/memory/memories.js';
import { createGateway, loadConfig } from '../server/index.js';
import { makeTempDir, removeTempDir } from './children.js';
import { cpuTimeMs, machineBusyMs, otherCores, percentile, retrievalScores } from './common.js';
import { GRADED_KINDS, gradedSet, type GradedKind, type GradedOptions } from './memory-graded-set.js';
import type { Sentences } from './memory-corpus.js';

export interface GradedMethod {
  recallAt5: number;
  mrrAt10: number;
  byKind: Record<GradedKind, { queries: number; recallAt5: number; mrrAt10: number }>;
  /** Queries whose memory was not in the top 5: rank 0 = not in the top 10. */
  misses: { kind: GradedKind; query: string; rank: number }[];
  /** Milliseconds per GET /memory, client side. */
  p50: number;
  p95: number;
}

export interface GradedResult {
  memories: number;
  queries: number;
  /** POST /memory one at a time: memories per second. */
  addPerS: number;
  /** CPU used by other processes while the queries ran, in cores: above a quarter, the latency is noisy. */
  otherLoadCores: number | null;
  methods: Record<SearchMethod, GradedMethod>;
}

const progress = (line: string) => process.stderr.write(`bench: ${line}\n`);

/** Stores the graded set through a real gateway's HTTP API and grades every method on it. */
export async function benchGraded(pools: Sentences, options: GradedOptions): Promise<GradedResult> {
  const set = gradedSet(pools, options);
  const dir = makeTempDir('pincer-bench-graded-');
  mkdirSync(join(dir, 'root'));
  // The data folder and the (unused) root folder side by side: a root may not be inside the data folder.
  const config = loadConfig({ flags: { dataDir: join(dir, 'data'), port: 0, host: '127.0.0.1' }, env: {}, cwd: join(dir, 'root') });
  const gateway = createGateway({ config, log: () => {} });
  try {
    const { url } = await gateway.listen();
    const headers = { authorization: `Bearer ${gateway.credentials.defaultToken}` };
    progress(`memory graded: POST /memory × ${set.texts.length.toLocaleString('en-US')}`);
    const ids: number[] = [];
    const t0 = performance.now();
    for (const content of set.texts) {
      const response = await fetch(`${url}/memory`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ content }),
      });
      if (response.status !== 201) throw new Error(`memory graded: POST /memory answered ${response.status}`);
      ids.push(((await response.json()) as { id: number }).id);
    }
    const addPerS = (set.texts.length * 1000) / (performance.now() - t0);

    progress(`memory graded: ${set.queries.length} queries × ${SEARCH_METHODS.length} methods over GET /memory`);
    const ask = async (query: string, method: SearchMethod) => {
      const started = performance.now();
      const response = await fetch(`${url}/memory?${new URLSearchParams({ q: query, method, limit: '10' })}`, { headers });
      const body = (await response.json()) as { results: { id: number }[] };
      return { ms: performance.now() - started, ids: body.results.map((r) => r.id) };
    };
    for (const query of set.queries.slice(0, 10)) for (const method of SEARCH_METHODS) await ask(query.query, method);
    const methods = {} as Record<SearchMethod, GradedMethod>;
    const busy0 = machineBusyMs();
    const own0 = cpuTimeMs(process.pid);
    const wall0 = performance.now();
    for (const method of SEARCH_METHODS) {
      const times: number[] = [];
      const ranks: { kind: GradedKind; query: string; rank: number }[] = [];
      for (const query of set.queries) {
        const answer = await ask(query.query, method);
        times.push(answer.ms);
        ranks.push({ kind: query.kind, query: query.query, rank: answer.ids.indexOf(ids[query.want]!) + 1 });
      }
      times.sort((a, b) => a - b);
      methods[method] = { ...retrievalScores(ranks, GRADED_KINDS), p50: percentile(times, 0.5), p95: percentile(times, 0.95) };
    }
    const otherLoadCores = otherCores(busy0, own0, performance.now() - wall0);
    return { memories: set.texts.length, queries: set.queries.length, addPerS, otherLoadCores, methods };
  } finally {
    await gateway.close();
    removeTempDir(dir);
  }
}

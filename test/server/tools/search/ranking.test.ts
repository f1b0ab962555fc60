import { beforeAll, describe, expect, it } from 'vitest';
import { ToolIndex, type IndexedTool } from '../../../../server/tools/search/tool-index.js';
import { evaluate, PlainBm25, type Scores } from './baseline.js';
import { catalogue } from './catalogue.js';
import { REQUESTS } from './requests.js';

/**
 * The graded set: ~150 tools (Pincer's built-ins, a finance plugin with Chinese words, servers written like the
 * official MCP servers, and the real tool lists of the filesystem, memory and everything servers installed here)
 * and ~130 requests typed as people type them. The index must find the meant tool in its first five for at least
 * 90% of them (MRR@10 ≥ 0.75), and beat plain BM25 over names and descriptions by at least 0.05 on both.
 */
describe('tool search on the graded set', () => {
  let tools: IndexedTool[];
  let index: Scores;
  let bm25: Scores;

  beforeAll(async () => {
    tools = await catalogue();
    const toolIndex = new ToolIndex();
    toolIndex.update(tools);
    const plain = new PlainBm25(tools);
    index = evaluate(REQUESTS, (query) => toolIndex.search(query, { limit: 10 }).map((hit) => hit.name));
    bm25 = evaluate(REQUESTS, (query) => plain.search(query, 10));
    const line = (name: string, s: Scores) => `${name.padEnd(10)} recall@5 ${s.recallAt5.toFixed(3)}  MRR@10 ${s.mrrAt10.toFixed(3)}`;
    console.log(
      [
        `tool search, ${tools.length} tools, ${REQUESTS.length} requests`,
        line('ToolIndex', index),
        line('BM25', bm25),
        ...index.misses.map((m) => `  missed: "${m.query}" (${m.expected.join(' | ')}) → ${m.got.join(', ') || 'nothing'}`),
      ].join('\n'),
    );
  }, 60_000);

  it('holds the tools it is meant to', () => {
    expect(tools.length).toBeGreaterThanOrEqual(120);
    const names = new Set(tools.map((t) => t.name));
    expect(names.size).toBe(tools.length);
    for (const request of REQUESTS) {
      for (const name of request.expected) expect(names.has(name), `${request.query} → ${name}`).toBe(true);
    }
  });

  it('finds the meant tool in the first five for at least 90% of the requests, MRR@10 at least 0.75', () => {
    expect(index.recallAt5).toBeGreaterThanOrEqual(0.9);
    expect(index.mrrAt10).toBeGreaterThanOrEqual(0.75);
  });

  it('beats plain BM25 over names and descriptions by at least 0.05 on both', () => {
    expect(index.recallAt5 - bm25.recallAt5).toBeGreaterThanOrEqual(0.05);
    expect(index.mrrAt10 - bm25.mrrAt10).toBeGreaterThanOrEqual(0.05);
  });
});

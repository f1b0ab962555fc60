import { describe, expect, it } from 'vitest';
import { benchToolSearch, toolSearchLines, toolSearchVerdicts } from '../../bench/tool-search.js';

/** The tool search bench runs end to end (a short run; the bar itself is judged by `npm run bench`, never here). */
describe('bench: tool search at 120 and 2,000 tools', () => {
  it('times the index against a linear scan at both sizes, and a new server of 50 tools', () => {
    const result = benchToolSearch(40);
    expect(result.sizes.map((s) => s.tools)).toEqual([120, 2000]);
    for (const size of result.sizes) {
      expect(size.search.samples).toBe(40);
      expect(size.search.p50).toBeGreaterThan(0);
      expect(size.scan.p50).toBeGreaterThan(0);
      expect(size.p50Ratio).toBeGreaterThan(0);
      expect(size.p95Ratio).toBeGreaterThan(0);
      expect(size.newServerMs).toBeGreaterThan(0);
    }
    expect(toolSearchVerdicts(result).map((v) => v.name)).toEqual(['tool_search_p50_ms_2000_tools']);
    expect(toolSearchLines(result)).toHaveLength(3);
  }, 120_000);
});

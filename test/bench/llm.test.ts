import { describe, expect, it } from 'vitest';
import { benchLlm, llmLines, llmVerdicts } from '../../bench/llm.js';

/** The LLM proxy bench runs end to end (a short run; the bar itself is judged by `npm run bench`, never here). */
describe('bench: LLM proxy overhead', () => {
  it('measures every proxied shape against the same model directly and reports one verdict', async () => {
    const result = await benchLlm(40);
    expect(result.cases.map((c) => c.name)).toEqual(['openai → openai, JSON', 'openai → openai, stream', 'ollama → ollama, JSON']);
    for (const c of result.cases) {
      expect(c.direct.samples).toBe(40);
      expect(c.proxied.samples).toBe(40);
    }
    expect(llmVerdicts(result).map((v) => v.name)).toEqual(['llm_proxy_overhead_p50_ms']);
    expect(llmLines(result)).toHaveLength(4);
  });
});

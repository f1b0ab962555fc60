import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson, startGateway, type TestGateway } from '../../helpers/gateway.js';

/** Words of six random letters, the same on every run. */
function words(n: number, seed: number): string[] {
  let state = seed;
  const letter = () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return String.fromCharCode(97 + ((state >>> 16) % 26));
  };
  return Array.from({ length: n }, () => Array.from({ length: 6 }, letter).join(''));
}

/**
 * Security: denial of service through remember and recall, which any client may call without approval. A note's
 * size is limited, and a recall with a long query over large notes matches a bounded number of terms, in steps,
 * while the gateway keeps answering.
 */
describe('remember and recall over HTTP, at their limits', () => {
  let gw: TestGateway;
  const call = async (tool: string, args: Record<string, unknown>) => readJson(await gw.api(`/tools/${tool}/execute`, { method: 'POST', json: args }));

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw.close();
  });

  it('remember refuses a note over 32 KiB, naming the limit', async () => {
    // Fewer characters than the limit, but three bytes each.
    const chinese = await call('remember', { content: '茅'.repeat(12_000) });
    expect(chinese.success).toBe(false);
    expect(chinese.error).toMatchObject({ name: 'INVALID_MEMORY', message: 'content is 36,000 bytes of UTF-8; a memory holds at most 32,768 (32 KiB): split it into several.' });
    // Past the limit in characters too, the arguments' schema refuses it first.
    const long = await gw.api('/tools/remember/execute', { method: 'POST', json: { content: 'a'.repeat(40_000) } });
    expect(long.status).toBe(400);
    expect((await readJson(long)).error).toMatchObject({ name: 'INVALID_ARGUMENTS', message: expect.stringContaining('must NOT have more than 32768 characters') });
    const posted = await gw.api('/memory', { method: 'POST', json: { content: 'b'.repeat(40_000) } });
    expect(posted.status).toBe(400);
    expect((await readJson(posted)).error.message).toContain('at most 32,768');
    expect((await call('remember', { content: 'c '.repeat(16_000) })).success).toBe(true);
  });

  it('answers a recall of a 1000-character query over large notes, matching 32 terms, and /health meanwhile', async () => {
    const vocabulary = words(6000, 7);
    for (let i = 0; i < 12; i++) {
      const note = vocabulary.slice(i * 400, i * 400 + 4600).join(' ').slice(0, 30_000);
      expect((await call('remember', { content: note })).success).toBe(true);
    }
    const tea = await call('remember', { content: 'Prefers green tea over coffee', tags: ['prefs'] });
    // 1000 characters of words the notes hold, each one letter off: every one a fuzzy match to look for.
    const query = vocabulary
      .slice(0, 300)
      .map((w) => w.slice(0, 5) + (w[5] === 'z' ? 'y' : 'z'))
      .join(' ')
      .slice(0, 1000);
    const recalls = Array.from({ length: 4 }, () => call('recall', { query, method: 'fuzzy', limit: 1 }));
    const health = Array.from({ length: 4 }, () => gw.api('/health').then((res) => res.status));
    const [answers, statuses] = await Promise.all([Promise.all(recalls), Promise.all(health)]);
    expect(statuses).toEqual([200, 200, 200, 200]);
    for (const answer of answers) {
      expect(answer.success).toBe(true);
      expect(answer.result.count).toBe(1);
      expect(answer.result.note).toMatch(/^The query has \d+ distinct terms; only the first 32 were searched for\./);
      const [best] = answer.result.results;
      expect(best.match.terms.length + best.match.missing.length).toBe(32);
    }
    // An ordinary recall finds what it found before, and says nothing of terms left out.
    const recalled = await call('recall', { query: 'grean tea' });
    expect(recalled.result.results[0].id).toBe(tea.result.id);
    expect(recalled.result.note).toBeUndefined();
    const hybrid = await call('recall', { query: `${vocabulary[4500]} ${vocabulary[4501]}`, limit: 3 });
    expect(hybrid.result.results[0].content).toContain(`${vocabulary[4500]} ${vocabulary[4501]}`);
  });
});

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { allowedDistance, FUZZY_MAX_LENGTH, trigrams } from '../../../server/memory/distance.js';
import { MEMORY_LIMITS, Memories, MemoryInputError, searchedTerms } from '../../../server/memory/memories.js';
import { runStepsYielding, Turns, type Steps } from '../../../server/memory/steps.js';
import { tokenize } from '../../../server/memory/tokenize.js';
import { openStore, type Store } from '../../../server/store/index.js';
import { GRAM_HOLDERS, PREFIX_RANGE } from '../../../server/store/memory-statistics.js';
import { tempDir } from '../../helpers/gateway.js';

/** Made-up words of seven random letters after `prefix`, the same on every run: far apart, so none is near another. */
function words(n: number, prefix = 'q'): string[] {
  let state = 20_240_613;
  const letter = () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return String.fromCharCode(97 + ((state >>> 16) % 26));
  };
  const out = new Set<string>();
  while (out.size < n) out.add(prefix + Array.from({ length: 7 }, letter).join(''));
  return [...out];
}

describe('memory search: the work one search or one memory may cost is bounded', () => {
  let dir: string;
  let store: Store;
  let memories: Memories;

  beforeEach(() => {
    dir = tempDir();
    store = openStore(join(dir, 'pincer.db'));
    memories = new Memories(store.memories);
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const addMany = (texts: readonly string[]) =>
    store.memories.addMany(texts.map((content) => ({ content, tags: [], category: null, client: 'test', call_id: null, terms: tokenize(content) })));

  it('matches only the first MEMORY_LIMITS.queryTerms distinct terms of a query, and says how many it left out', () => {
    const query = words(100).join(' ');
    expect(MEMORY_LIMITS.queryTerms).toBe(32);
    expect(searchedTerms(query)).toEqual({ terms: words(32), dropped: 68 });
    expect(searchedTerms('kubernetes cluster kubernetes')).toEqual({ terms: ['kubernetes', 'cluster'], dropped: 0 });

    const first = memories.add({ content: `a note about ${words(100)[0]}`, client: 'test' });
    const last = memories.add({ content: `a note about ${words(100)[99]}`, client: 'test' });
    for (const method of ['tfidf', 'fuzzy', 'hybrid'] as const) {
      const found = memories.search({ query, method, limit: 10 });
      expect(found.map((r) => r.id), method).toEqual([first.id]);
      expect(found[0]!.match.terms.length + found[0]!.match.missing.length, method).toBe(32);
    }
    // keyword: every term searched for present; the 33rd on is not asked for.
    const holding = memories.add({ content: words(32).join(' '), client: 'test' });
    const [found] = memories.search({ query: words(40).join(' '), method: 'keyword' });
    expect(found?.id).toBe(holding.id);
    expect(found?.match.missing).toEqual([]);
  });

  it('a long CJK query is matched by its first terms, its runs cut to them', () => {
    const memory = memories.add({ content: '会议室讨论预算', client: 'test' });
    // 800 characters: 799 bigrams, far past the cap; the start is what was typed.
    const query = '会议室讨论预算' + '的'.repeat(3) + Array.from({ length: 790 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 20000))).join('');
    expect(searchedTerms(query).terms).toHaveLength(32);
    expect(memories.search({ query, method: 'hybrid' })[0]?.id).toBe(memory.id);
  });

  it('compares no term longer than FUZZY_MAX_LENGTH by edit distance', () => {
    const long = 'a'.repeat(20) + 'bcdefghijklmnopqrstu'; // 40 letters
    expect(FUZZY_MAX_LENGTH).toBeLessThan(long.length);
    expect(allowedDistance(long, false)).toBe(0);
    expect(allowedDistance(long.slice(0, FUZZY_MAX_LENGTH), false)).toBe(2);
    memories.add({ content: `the key is ${long}`, client: 'test' });
    const typo = long.slice(0, -1) + 'x';
    const grams = vi.spyOn(store.memories, 'gramHolders');
    const sharing = vi.spyOn(store.memories, 'termsSharingGrams');
    expect(memories.search({ query: typo, method: 'fuzzy' })).toEqual([]);
    expect(grams).not.toHaveBeenCalled();
    expect(sharing).not.toHaveBeenCalled();
    // One of 32 letters still is.
    const short = long.slice(0, FUZZY_MAX_LENGTH);
    memories.add({ content: `the other key is ${short}`, client: 'test' });
    expect(memories.search({ query: short.slice(0, -1) + 'x', method: 'fuzzy' })[0]?.match.terms).toEqual([{ query: short.slice(0, -1) + 'x', term: short, distance: 1 }]);
  });

  it('reads no trigram held by more than GRAM_HOLDERS terms, and still finds the near terms', () => {
    // GRAM_HOLDERS + 1 terms "zz" and four of k…t: the grams "^^z" and "^zz" are held by every one of them.
    const common = Array.from({ length: GRAM_HOLDERS + 1 }, (_, i) => `zz${String(i).padStart(4, '0').replace(/\d/g, (d) => 'klmnopqrst'[Number(d)]!)}`);
    addMany(Array.from({ length: Math.ceil(common.length / 500) }, (_, i) => common.slice(i * 500, i * 500 + 500).join(' ')));
    addMany(['the zzebra crossing']);
    const holders = store.memories.gramHolders(trigrams('zzerba'));
    expect(holders.get('^^z')).toBe(GRAM_HOLDERS + 1);
    expect(holders.get('^zz')).toBe(GRAM_HOLDERS + 1);
    expect(holders.get('zze')).toBeLessThanOrEqual(GRAM_HOLDERS);
    const sharing = vi.spyOn(store.memories, 'termsSharingGrams');
    const [best] = memories.search({ query: 'zzerba', method: 'fuzzy' });
    expect(best?.match.terms).toEqual([{ query: 'zzerba', term: 'zzebra', distance: 1 }]);
    for (const [grams] of sharing.mock.calls) expect(grams).not.toContain('^^z');
    // A spent budget reads nothing more: every gram answers as too common.
    const budget = { gramRows: 0 };
    expect([...store.memories.gramHolders(['zze', 'bra'], budget).values()]).toEqual([GRAM_HOLDERS + 1, GRAM_HOLDERS + 1]);
    expect(store.memories.termsContaining('ebra', 10, budget)).toEqual([]);
  });

  it('completes no prefix that starts more than PREFIX_RANGE terms', () => {
    const many = words(PREFIX_RANGE + 1, 'zq');
    addMany(Array.from({ length: Math.ceil(many.length / 500) }, (_, i) => many.slice(i * 500, i * 500 + 500).join(' ')));
    expect(store.memories.termsWithPrefix('zq', 10)).toEqual([]);
    const fewer = many.filter((t) => t.startsWith('zqa'));
    expect(fewer.length).toBeLessThan(PREFIX_RANGE);
    expect(store.memories.termsWithPrefix('zqa', 1000).map((t) => t.term)).toEqual([...fewer].sort());
  });

  it('refuses a memory over 32 KiB of UTF-8 with an error naming the limit', () => {
    expect(MEMORY_LIMITS.content).toBe(32 * 1024);
    expect(memories.add({ content: 'a'.repeat(MEMORY_LIMITS.content), client: 'test' }).id).toBeGreaterThan(0);
    const refused = (content: string) => {
      try {
        memories.add({ content, client: 'test' });
      } catch (error) {
        expect(error).toBeInstanceOf(MemoryInputError);
        return (error as Error).message;
      }
      throw new Error('not refused');
    };
    expect(refused('a'.repeat(MEMORY_LIMITS.content + 1))).toBe('content is 32,769 bytes of UTF-8; a memory holds at most 32,768 (32 KiB): split it into several.');
    // 12,000 Chinese characters are fewer characters than the limit but 36,000 bytes.
    expect(refused('茅'.repeat(12_000))).toContain('36,000 bytes');
    expect(() => memories.update(1, { content: 'b'.repeat(100_000) })).toThrow(/at most 32,768/);
  });

  it('segments a long CJK run a piece at a time, keeping every bigram', () => {
    const run = Array.from({ length: 2000 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 20000))).join('');
    const terms = tokenize(run);
    const chars = [...run];
    expect(terms.slice(0, chars.length - 1)).toEqual(chars.slice(1).map((c, i) => chars[i]! + c));
    // A word in the first piece of a long run is found as in a short one.
    expect(tokenize('東京タワー' + run)).toContain('東京タワー');
  });
});

describe('a search run in steps', () => {
  /** Steps that each hold the thread for `ms`, recording when they run. */
  function* busy(steps: number, ms: number, log: string[], name: string): Steps<string> {
    for (let i = 0; i < steps; i++) {
      const until = performance.now() + ms;
      while (performance.now() < until);
      log.push(`${name}${i}`);
      yield;
    }
    return name;
  }

  it('lets other work run between its steps', async () => {
    const log: string[] = [];
    const other = new Promise<void>((resolve) => setImmediate(() => (log.push('other'), resolve())));
    expect(await runStepsYielding(busy(8, 4, log, 's'))).toBe('s');
    await other;
    // The other callback ran before the last step, not after the whole search.
    expect(log.indexOf('other')).toBeGreaterThan(0);
    expect(log.indexOf('other')).toBeLessThan(log.indexOf('s7'));
  });

  it('takes turns: a second search starts when the first has ended', async () => {
    const log: string[] = [];
    const turns = new Turns();
    const [a, b] = await Promise.all([turns.run(() => runStepsYielding(busy(4, 4, log, 'a'))), turns.run(() => runStepsYielding(busy(4, 4, log, 'b')))]);
    expect([a, b]).toEqual(['a', 'b']);
    expect(log).toEqual(['a0', 'a1', 'a2', 'a3', 'b0', 'b1', 'b2', 'b3']);
  });

  it('stops once its signal aborts', async () => {
    const log: string[] = [];
    const aborted = AbortSignal.abort(new Error('call timed out'));
    await expect(new Turns().run(() => runStepsYielding(busy(4, 4, log, 'a'), aborted), aborted)).rejects.toThrow('call timed out');
    const controller = new AbortController();
    const running = runStepsYielding(busy(50, 4, log, 'b'), controller.signal);
    setImmediate(() => controller.abort(new Error('stopped')));
    await expect(running).rejects.toThrow('stopped');
    expect(log.filter((s) => s.startsWith('b')).length).toBeLessThan(50);
  });
});

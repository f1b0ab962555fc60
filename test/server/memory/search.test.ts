import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Memories, type SearchMethod } from '../../../server/memory/memories.js';
import { tokenize } from '../../../server/memory/tokenize.js';
import { openStore, type Store } from '../../../server/store/index.js';
import { tempDir } from '../../helpers/gateway.js';

const TEXTS = [
  'The quarterly report for Kweichow Moutai sh600519 shows revenue growth',
  'Remember to update tsconfig.json to target ES2022 before the release',
  'Upgrade the parser library to v2.3.1, it fixes the unicode bug',
  '贵州茅台的股价今天上涨了百分之三',
  '明天下午三点在会议室讨论预算',
  'My favourite restaurant is the ramen place near the station',
  'The Kubernetes cluster needs more memory for the database pods',
  'Python virtual environments live in the .venv folder of each project',
  'Grandma birthday is on the fourth of July, buy flowers',
  'The restaurant booking for Friday was cancelled',
];

/** Query → the index (into TEXTS) of the memory it is about. */
const LABELLED: Array<{ kind: string; query: string; want: number }> = [
  { kind: 'word', query: 'restaurant ramen', want: 5 },
  { kind: 'identifier', query: 'sh600519', want: 0 },
  { kind: 'identifier', query: 'tsconfig.json', want: 1 },
  { kind: 'identifier', query: 'v2.3.1', want: 2 },
  { kind: 'typo', query: 'kubernetse memroy', want: 6 },
  { kind: 'typo', query: 'pyhton enviroments', want: 7 },
  { kind: 'chinese', query: '茅台股价', want: 3 },
  { kind: 'chinese', query: '会议室', want: 4 },
  { kind: 'chinese-typo', query: '贵州茅抬股价', want: 3 },
  { kind: 'mixed', query: '茅台 sh600519', want: 0 },
];

describe('memory search', () => {
  let dir: string;
  let store: Store;
  let memories: Memories;
  const ids: number[] = [];

  beforeEach(() => {
    dir = tempDir();
    store = openStore(join(dir, 'pincer.db'));
    memories = new Memories(store.memories);
    ids.length = 0;
    for (const content of TEXTS) ids.push(memories.add({ content, client: 'test' }).id);
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const top = (query: string, method: SearchMethod) => memories.search({ query, method, limit: 5 }).map((r) => r.id);

  it('hybrid puts the labelled memory first for every query kind', () => {
    for (const { query, want } of LABELLED) expect(top(query, 'hybrid')[0], query).toBe(ids[want]);
  });

  it('fuzzy finds typo queries first', () => {
    expect(top('kubernetse memroy', 'fuzzy')[0]).toBe(ids[6]);
    expect(top('pyhton enviroments', 'fuzzy')[0]).toBe(ids[7]);
  });

  it('keyword needs every term; tfidf ranks any term by rarity', () => {
    expect(top('restaurant ramen', 'keyword')).toEqual([ids[5]]);
    expect(top('restaurant friday', 'keyword')).toEqual([ids[9]]);
    expect(top('restaurant cancelled', 'tfidf')[0]).toBe(ids[9]);
    expect(top('restaurant', 'tfidf').sort()).toEqual([ids[5], ids[9]].sort());
    expect(top('kubernetse', 'keyword')).toEqual([]);
  });

  it('explains each match: exact terms, near terms with their distance, missing terms', () => {
    const [best] = memories.search({ query: 'kubernetse cluster zebra', method: 'hybrid' });
    expect(best!.id).toBe(ids[6]);
    expect(best!.match.terms).toEqual([
      { query: 'kubernetse', term: 'kubernetes', distance: 1 },
      { query: 'cluster', term: 'cluster', distance: 0 },
    ]);
    expect(best!.match.missing).toEqual(['zebra']);
  });

  it('prefers an exact match over a near one', () => {
    const a = memories.add({ content: 'the form was filled in', client: 'test' });
    const b = memories.add({ content: 'a letter from home', client: 'test' });
    const found = top('form', 'hybrid');
    expect(found[0]).toBe(a.id);
    // "from" is one swap away from "form": found, but below the exact match.
    expect(found.indexOf(b.id)).toBeGreaterThan(0);
  });

  it('filters by tags and category', () => {
    const tagged = memories.add({ content: 'ramen again on Sunday', tags: ['Food', 'weekend'], category: 'Plans', client: 'test' });
    expect(top('ramen', 'hybrid')).toContain(ids[5]);
    expect(memories.search({ query: 'ramen', tags: ['food'] }).map((r) => r.id)).toEqual([tagged.id]);
    expect(memories.search({ query: 'ramen', category: 'plans' }).map((r) => r.id)).toEqual([tagged.id]);
    expect(memories.search({ query: 'ramen', tags: ['food', 'work'] })).toEqual([]);
  });

  it('keeps the index exact after update and delete', () => {
    const id = ids[5]!;
    memories.update(id, { content: 'My favourite bakery sells croissants' });
    expect(top('ramen', 'keyword')).toEqual([]);
    expect(top('croissants', 'keyword')).toEqual([id]);
    expect(memories.remove(id)).toBe(true);
    expect(top('croissants', 'hybrid')).toEqual([]);
    expect(top('croisants', 'fuzzy')).toEqual([]);
    expect(store.memories.documentFrequencies(['croissants', 'restaurant'])).toEqual(new Map([['restaurant', 1]]));
    expect(store.memories.corpus().docs).toBe(TEXTS.length - 1);
  });

  it('keyword finds a query term as part of a longer term, and says so', () => {
    expect(top('config', 'keyword')).toEqual([ids[1]]);
    expect(top('600519 moutai', 'keyword')).toEqual([ids[0]]);
    expect(top('kubernet cluster', 'keyword')).toEqual([ids[6]]);
    expect(top('config ramen', 'keyword')).toEqual([]);
    const [found] = memories.search({ query: 'config', method: 'keyword' });
    expect(found!.match.terms).toEqual([{ query: 'config', term: 'tsconfig', distance: 2, part: true }]);
  });

  it('hybrid completes words typed in part, below the exact word', () => {
    const [best] = memories.search({ query: 'virtual enviro', method: 'hybrid' });
    expect(best!.id).toBe(ids[7]);
    expect(best!.match.terms).toContainEqual({ query: 'enviro', term: 'environments', distance: 6, part: true });
    const whole = memories.add({ content: 'enviro is the name of the package', client: 'test' });
    expect(top('enviro', 'hybrid')[0]).toBe(whole.id);
  });

  it('hybrid puts a CJK word with one wrong character inside it right, from both its neighbours', () => {
    const target = memories.add({ content: '参数具有名称，但不具有类型。', client: 'test' });
    memories.add({ content: '参考文档具有很多例子', client: 'test' });
    memories.add({ content: '它具有名称', client: 'test' });
    const [best] = memories.search({ query: '参书具有', method: 'hybrid' });
    expect(best!.id).toBe(target.id);
    expect(best!.match.terms).toContainEqual({ query: '参书', term: '参数', distance: 1 });
  });

  it('finds a CJK word whose first or last character is wrong from the rest of it', () => {
    memories.add({ content: '议时间定在周五', client: 'test' });
    expect(top('会议时讨论', 'hybrid')[0]).toBe(ids[4]);
    expect(top('惠议室', 'hybrid')[0]).toBe(ids[4]);
  });

  it('ranks a memory holding a CJK run whole above one holding its bigrams apart', () => {
    const apart = memories.add({ content: '预算的讨论在会议室，周五', client: 'test' });
    const whole = memories.add({ content: '会议室讨论预算要带电脑，还有别的很多事情要说一下', client: 'test' });
    const found = top('会议室讨论预算', 'hybrid');
    expect(found.indexOf(whole.id)).toBeLessThan(found.indexOf(apart.id));
    expect(found.indexOf(ids[4]!)).toBeGreaterThanOrEqual(0);
  });

  it('counts a batch the same as one memory at a time', () => {
    const texts = ['alpha beta beta', 'beta gamma', '贵州茅台 sh600519'];
    const other = openStore(join(dir, 'other.db'));
    try {
      other.memories.addMany(texts.map((content) => ({ content, tags: [], category: null, client: 'test', call_id: null, terms: tokenize(content) })));
      const single = openStore(join(dir, 'single.db'));
      try {
        for (const content of texts) single.memories.add({ content, tags: [], category: null, client: 'test', call_id: null, terms: tokenize(content) });
        const terms = [...new Set(texts.flatMap(tokenize))];
        expect(other.memories.documentFrequencies(terms)).toEqual(single.memories.documentFrequencies(terms));
        expect(other.memories.corpus()).toEqual(single.memories.corpus());
        expect(other.memories.termsSharingGrams(['^^b', '^be', 'bet', 'eta', 'ta$'], 5, [4, 4], 10)).toEqual([{ term: 'beta', docs: 2 }]);
        // Outside a batch, the insert trigger counts again.
        other.memories.add({ content: 'beta', tags: [], category: null, client: 'test', call_id: null, terms: ['beta'] });
        expect(other.memories.documentFrequencies(['beta']).get('beta')).toBe(3);
      } finally {
        single.close();
      }
    } finally {
      other.close();
    }
  });

  it('lists the newest first without a query', () => {
    expect(memories.newest({}, 3).map((m) => m.id)).toEqual([ids[9], ids[8], ids[7]]);
  });
});

import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Memories, SEARCH_METHODS, type SearchResult } from '../../../server/memory/memories.js';
import { tokenize } from '../../../server/memory/tokenize.js';
import { migrate } from '../../../server/store/db.js';
import { openStore, type Store } from '../../../server/store/index.js';
import { MIGRATIONS } from '../../../server/store/migrations/index.js';
import { tempDir } from '../../helpers/gateway.js';

/** What the limited reader ("beta") wrote. */
const OWN = [
  'beta keeps the staging deployment checklist',
  'The quartermaster service builds every staging image',
  'The staging database is restored every night at two',
  'Remember to update tsconfig.json before the staging release',
  '明天下午三点在会议室讨论预算',
  '会议室的投影仪坏了',
  'Python virtual environments live in the .venv folder of each project',
  'The Kubernetes cluster needs more memory for the staging pods',
];

/**
 * Another client's private memories: a rare word, words the reader's memories hold too (so the counts would move),
 * a CJK word next to the reader's, and look-alikes of the reader's "quartermaster", each closer to the typo
 * "quartermastr" than the real word is, more than the fuzzy search compares.
 */
const LOOK_ALIKES = [...'abcdefghijklmnopqrstuvwxyz'].flatMap((a) => [`quartermastr${a}`, `quartermastr${a}${a}`, `quartermastr${a}x`]);
const OTHERS = [
  'alpha private: the zorblax key opens the staging vault',
  'alpha staging staging staging deployment notes, staging again',
  '会议室密码是四七一一',
  LOOK_ALIKES.join(' '),
  'alpha: virtual environments for the kubernetes staging cluster',
];

const QUERIES = [
  'staging',
  'staging deployment',
  'zorblax',
  'staging zorblax',
  'zorblx',
  'zorbl',
  'orbla',
  'quartermastr',
  'quartermaster',
  'staging vault',
  'tsconfig',
  'config',
  'kubernetse memroy',
  'pyhton enviroments',
  'virtual enviro',
  '会议室',
  '会议室密码',
  '会议时讨论',
];

/** A result without what differs between two stores by construction (ids, dates). */
const comparable = (results: SearchResult[]) => results.map(({ content, score, match, tags, category }) => ({ content, score, match, tags, category }));

describe('memory statistics for a reader limited to its own memories', () => {
  let dir: string;
  let mixed: Store;
  let alone: Store;

  beforeEach(() => {
    dir = tempDir();
    mixed = openStore(join(dir, 'mixed.db'));
    alone = openStore(join(dir, 'alone.db'));
  });
  afterEach(() => {
    mixed.close();
    alone.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** beta limited to its own memories, alpha and the owner seeing every one. */
  const memoriesOf = (store: Store) => new Memories(store.memories, (client) => (client === 'beta' ? 'own' : 'all'));

  it("scores exactly as a store holding only its memories, whatever another client's memories hold", () => {
    const withOthers = memoriesOf(mixed);
    const onlyOwn = memoriesOf(alone);
    // The other client writes before, between and after: ids and counts move everywhere.
    withOthers.add({ content: OTHERS[0]!, client: 'alpha' });
    for (const [i, content] of OWN.entries()) {
      withOthers.add({ content, client: 'beta' });
      onlyOwn.add({ content, client: 'beta' });
      if (i < OTHERS.length - 1) withOthers.add({ content: OTHERS[i + 1]!, client: 'alpha' });
    }
    for (const method of SEARCH_METHODS) {
      for (const query of QUERIES) {
        const limited = withOthers.search({ query, method, limit: 20, reader: 'beta' });
        expect(comparable(limited), `${method} "${query}"`).toEqual(comparable(onlyOwn.search({ query, method, limit: 20, reader: 'beta' })));
        // Nothing shown comes from the other client: neither its memories nor its vocabulary.
        const shown = limited.flatMap((r) => [r.content, ...r.match.terms.map((t) => t.term)]);
        expect(shown.join(' '), `${method} "${query}"`).not.toMatch(/zorblax|quartermastr[a-z]|密码|alpha/);
      }
    }
    // The other client's look-alikes do not push the reader's own word out of its fuzzy candidates.
    for (const method of ['fuzzy', 'hybrid'] as const) {
      const [found] = withOthers.search({ query: 'quartermastr', method, reader: 'beta' });
      expect(found?.content, method).toBe(OWN[1]);
    }
    // Control: over every memory they would have (the reader that sees everything, filtered to beta's memories).
    expect(withOthers.search({ query: 'quartermastr', method: 'fuzzy', client: 'beta' })).toEqual([]);
    const [everyone] = withOthers.search({ query: 'deployment', method: 'tfidf', client: 'beta' });
    const [limited] = withOthers.search({ query: 'deployment', method: 'tfidf', reader: 'beta' });
    expect(everyone!.id).toBe(limited!.id);
    expect(everyone!.score).not.toBeCloseTo(limited!.score, 3);
  });

  it("ranks one writer's memories with the same BM25 as FTS5's bm25() over a store holding only them", () => {
    const onlyOwn = memoriesOf(alone);
    for (const content of OWN) onlyOwn.add({ content, client: 'beta' });
    // Owner (FTS5's bm25) and limited reader (scored over the writer's own counts) over the same memories.
    for (const method of SEARCH_METHODS) {
      for (const query of QUERIES) {
        const owner = onlyOwn.search({ query, method, limit: 20 });
        const limited = onlyOwn.search({ query, method, limit: 20, reader: 'beta' });
        expect(limited.map((r) => r.id), `${method} "${query}"`).toEqual(owner.map((r) => r.id));
        limited.forEach((r, i) => expect(r.score, `${method} "${query}"`).toBeCloseTo(owner[i]!.score, 3));
      }
    }
  });

  it('past the memories one search reads, still chooses and scores from the writer\'s own alone', () => {
    // More matches than a writer's search reads (1,000), from both writers, some with rarer words.
    const rows = (client: string, n: number, word: (i: number) => string) =>
      Array.from({ length: n }, (_, i) => {
        const content = `staging note ${i} ${word(i)} ${'filler '.repeat(i % 7)}`;
        return { content, tags: [], category: null, client, call_id: null, terms: tokenize(content) };
      });
    // "xenon" is rare among beta's memories and common among alpha's, "yonder" the other way round: over every
    // memory, BM25 would prefer the other word, and so would any choice of what to read made from those counts.
    const beta = rows('beta', 1650, (i) => (i % 40 === 0 ? 'rarely' : i % 3 === 0 ? 'sometimes' : 'often') + (i % 11 < 4 ? ' xenon' : ' yonder'));
    mixed.memories.addMany(rows('alpha', 800, (i) => (i % 2 ? 'rarely' : 'sometimes') + ' xenon xenon'));
    mixed.memories.addMany(beta);
    alone.memories.addMany(beta);
    mixed.memories.addMany(rows('alpha', 3000, (i) => (i % 5 ? 'often' : 'rarely') + ' xenon'));
    const withOthers = memoriesOf(mixed);
    const onlyOwn = memoriesOf(alone);
    for (const method of SEARCH_METHODS) {
      for (const query of ['staging', 'staging rarely', 'sometimes note', 'note often', 'staging rarly', 'xenon yonder']) {
        const limited = withOthers.search({ query, method, limit: 10, reader: 'beta' });
        // Keyword search takes words as typed and wants all of them: these find nothing there.
        if (method !== 'keyword' || (query !== 'staging rarly' && query !== 'xenon yonder')) expect(limited.length, `${method} "${query}"`).toBeGreaterThan(0);
        expect(comparable(limited), `${method} "${query}"`).toEqual(comparable(onlyOwn.search({ query, method, limit: 10, reader: 'beta' })));
      }
    }
  });

  /** Each writer's counts as a scan of its memories gives them. */
  function expectedCounts(store: Store, writer: string) {
    const ids = store.memories.newest({ client: writer }, 100_000).map((m) => m.id);
    const memories = store.memories.indexed(ids);
    const df = new Map<string, number>();
    for (const memory of memories) for (const term of new Set(memory.terms)) df.set(term, (df.get(term) ?? 0) + 1);
    return { corpus: { docs: memories.length, tokens: memories.reduce((n, m) => n + m.terms.length, 0) }, df };
  }
  const terms = [...new Set([...OWN, ...OTHERS, 'changed text for staging', 'imported zorblax line'].flatMap(tokenize))];
  const countsOf = (store: Store, writer: string) => ({
    corpus: store.memories.ofWriter(writer).corpus(),
    df: store.memories.ofWriter(writer).documentFrequencies(terms),
  });

  it('keeps each writer\'s counts exact through add, update, delete, a bulk batch and an import', async () => {
    const memories = memoriesOf(mixed);
    const ids = OWN.map((content) => memories.add({ content, client: 'beta' }).id);
    for (const content of OTHERS) memories.add({ content, client: 'alpha' });
    memories.update(ids[0]!, { content: 'changed text for staging' });
    memories.remove(ids[1]!);
    mixed.memories.addMany(OTHERS.map((content, i) => ({ content, tags: [], category: null, client: i % 2 ? 'alpha' : 'beta', call_id: null, terms: tokenize(content) })));
    async function* lines() {
      yield JSON.stringify({ content: 'imported zorblax line', client: 'alpha' });
      yield JSON.stringify({ id: 9000, content: 'imported zorblax line', client: 'beta', created_at: '2020-01-01T00:00:00Z' });
    }
    expect((await memories.import(lines(), 'owner')).imported).toBe(2);
    for (const writer of ['alpha', 'beta']) expect(countsOf(mixed, writer), writer).toEqual(expectedCounts(mixed, writer));
    // A writer whose last memory goes has no counts left behind.
    for (const id of mixed.memories.newest({ client: 'alpha' }, 1000).map((m) => m.id)) memories.remove(id);
    expect(countsOf(mixed, 'alpha')).toEqual({ corpus: { docs: 0, tokens: 0 }, df: new Map() });
    expect(mixed.memories.ofWriter('alpha').termsWithPrefix('zorb', 10)).toEqual([]);
  });

  it("looks up only the writer's own vocabulary, narrowed before the limit", () => {
    const memories = memoriesOf(mixed);
    for (const content of OWN) memories.add({ content, client: 'beta' });
    for (const content of OTHERS) memories.add({ content, client: 'alpha' });
    const beta = mixed.memories.ofWriter('beta');
    expect(beta.termsWithPrefix('zorb', 10)).toEqual([]);
    expect(mixed.memories.termsWithPrefix('zorb', 10)).toEqual([{ term: 'zorblax', docs: 1 }]);
    expect(beta.termsContaining('orbla', 10)).toEqual([]);
    expect(beta.termsWithPrefix('quartermast', 1)).toEqual([{ term: 'quartermaster', docs: 1 }]);
    const grams = ['^^q', '^qu', 'qua', 'uar', 'art', 'rte', 'ter', 'erm', 'rma', 'mas', 'ast', 'str', 'tr$'];
    expect(mixed.memories.termsSharingGrams(grams, 5, [10, 14], 64).map((t) => t.term)).not.toContain('quartermaster');
    expect(beta.termsSharingGrams(grams, 5, [10, 14], 64)).toEqual([{ term: 'quartermaster', docs: 1 }]);
    expect(beta.documentFrequencies(['staging', 'zorblax'])).toEqual(new Map([['staging', 5]]));
  });

  it('migration 009 counts the memories already stored, per writer', () => {
    const file = join(dir, 'old.db');
    const db = new Database(file);
    migrate(db, MIGRATIONS.filter((m) => m.version <= 8));
    const insert = db.prepare('INSERT INTO memories (content, client, terms, created_at, updated_at) VALUES (?, ?, ?, 1, 1)');
    for (const content of OWN) insert.run(content, 'beta', JSON.stringify(tokenize(content)));
    for (const content of OTHERS) insert.run(content, 'alpha', JSON.stringify(tokenize(content)));
    db.close();
    const upgraded = openStore(file);
    try {
      for (const writer of ['alpha', 'beta']) expect(countsOf(upgraded, writer), writer).toEqual(expectedCounts(upgraded, writer));
      expect(upgraded.memories.corpus().docs).toBe(OWN.length + OTHERS.length);
    } finally {
      upgraded.close();
    }
  });
});

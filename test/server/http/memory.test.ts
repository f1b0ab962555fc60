import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson, startGateway, type TestGateway } from '../../helpers/gateway.js';

describe('memory over HTTP', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw.close();
  });

  const remember = async (content: string, extra: Record<string, unknown> = {}) => {
    const res = await gw.api('/memory', { method: 'POST', json: { content, ...extra } });
    expect(res.status).toBe(201);
    return readJson(res);
  };

  it('stores a memory (201 with its id and the client that wrote it) and reads it back', async () => {
    const stored = await remember('Kweichow Moutai sh600519 closed higher', { tags: ['Stocks'], category: 'markets' });
    expect(stored).toMatchObject({ content: 'Kweichow Moutai sh600519 closed higher', tags: ['stocks'], category: 'markets', client: 'default' });
    expect(typeof stored.id).toBe('number');
    const again = await readJson(await gw.api(`/memory/${stored.id}`));
    expect(again).toEqual(stored);
  });

  it('searches best first with scores and explained matches, for each method', async () => {
    await remember('The Kubernetes cluster needs more memory');
    await remember('贵州茅台的股价今天上涨');
    const body = await readJson(await gw.api('/memory?q=kubernetse%20cluster'));
    expect(body.results[0]).toMatchObject({ content: 'The Kubernetes cluster needs more memory', tags: [], category: null });
    expect(body.results[0].match.terms).toContainEqual({ query: 'kubernetse', term: 'kubernetes', distance: 1 });
    expect(Object.keys(body.results[0]).sort()).toEqual(
      expect.arrayContaining(['id', 'content', 'score', 'tags', 'category', 'created_at', 'match']),
    );
    const chinese = await readJson(await gw.api(`/memory?q=${encodeURIComponent('贵州茅抬')}`));
    expect(chinese.results[0].content).toBe('贵州茅台的股价今天上涨');
    for (const method of ['keyword', 'tfidf', 'fuzzy', 'hybrid']) {
      const res = await readJson(await gw.api(`/memory?q=sh600519&method=${method}&limit=5`));
      expect(res.results[0]?.content, method).toContain('sh600519');
    }
  });

  it('lists the newest without a query and filters by tags and category', async () => {
    const newest = await readJson(await gw.api('/memory?limit=1'));
    expect(newest.results).toHaveLength(1);
    expect(newest.results[0].content).toBe('贵州茅台的股价今天上涨');
    const tagged = await readJson(await gw.api('/memory?tags=stocks,other&q=moutai'));
    expect(tagged.results).toEqual([]);
    const byTag = await readJson(await gw.api('/memory?tags=stocks&category=markets'));
    expect(byTag.results.map((r: { content: string }) => r.content)).toEqual(['Kweichow Moutai sh600519 closed higher']);
  });

  it("answers Lobster's GET /search", async () => {
    const body = await readJson(await gw.api('/search?q=moutai'));
    expect(body.query).toBe('moutai');
    expect(Object.keys(body.results[0]).sort()).toEqual(['content', 'id', 'score']);
  });

  it('updates and deletes, and the search follows', async () => {
    const stored = await remember('Dentist appointment on Tuesday');
    const patched = await gw.api(`/memory/${stored.id}`, { method: 'PATCH', json: { content: 'Dentist appointment moved to Thursday' } });
    expect(patched.status).toBe(200);
    expect((await readJson(await gw.api('/memory?q=tuesday&method=keyword'))).results).toEqual([]);
    expect((await readJson(await gw.api('/memory?q=thursday&method=keyword'))).results[0].id).toBe(stored.id);
    expect((await gw.api(`/memory/${stored.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await gw.api(`/memory/${stored.id}`)).status).toBe(404);
    expect((await readJson(await gw.api('/memory?q=thursday'))).results).toEqual([]);
  });

  it('refuses bad input with a 400 naming the parameter', async () => {
    const cases: Array<[string, RequestInit & { json?: unknown }, string]> = [
      ['/memory?method=magic&q=x', {}, '"method"'],
      ['/memory?limit=0&q=x', {}, '"limit"'],
      ['/memory?limit=abc', {}, '"limit"'],
      ['/memory?colour=red', {}, '"colour"'],
      ['/search', {}, '"q"'],
      ['/memory', { method: 'POST', json: {} }, '"content"'],
      ['/memory', { method: 'POST', json: { content: '   ' } }, 'content'],
      ['/memory', { method: 'POST', json: { content: 'x', tags: 'a' } }, 'tags'],
      ['/memory', { method: 'POST', json: { content: 'x', colour: 1 } }, '"colour"'],
      ['/memory/abc', {}, 'memory id'],
    ];
    for (const [path, init, named] of cases) {
      const res = await gw.api(path, init);
      expect(res.status, path).toBe(400);
      expect((await readJson(res)).error.message, path).toContain(named);
    }
    expect((await gw.api('/memory/999999')).status).toBe(404);
  });

  it('needs a client token', async () => {
    const res = await fetch(`${gw.url}/memory`);
    expect(res.status).toBe(401);
  });

  it('remember, recall and forget go through the executor; forget asks', async () => {
    const stored = await readJson(await gw.api('/tools/remember/execute', { method: 'POST', json: { content: 'Prefers green tea over coffee', tags: ['prefs'] } }));
    expect(stored.success).toBe(true);
    expect(stored.result).toMatchObject({ client: 'default', call_id: stored.call_id });
    const recalled = await readJson(await gw.api('/tools/recall/execute', { method: 'POST', json: { query: 'grean tea' } }));
    expect(recalled.result.results[0].id).toBe(stored.result.id);
    const forget = await gw.api('/tools/forget/execute', {
      method: 'POST',
      json: { id: stored.result.id },
      headers: { prefer: 'respond-async' },
    });
    expect(forget.status).toBe(202);
    expect((await gw.api(`/memory/${stored.result.id}`)).status).toBe(200);
  });
});

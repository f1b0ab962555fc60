/**
 * GET /cache and DELETE /cache, and Cache-Control: no-cache on a call, through real HTTP against a real gateway with
 * a SearXNG-shaped stub behind web_search.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../server/index.js';
import { ResultCache } from '../../../server/executor/cache.js';
import { readJson as read, startGateway, tempDir, type TestGateway } from '../../helpers/gateway.js';

let provider: Server;
const queries: string[] = [];
let answer = 'first';
let s: TestGateway;

beforeAll(async () => {
  provider = createServer((req, res) => {
    const q = new URL(req.url ?? '/', 'http://stub').searchParams.get('q') ?? '';
    queries.push(q);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ results: [{ title: `${answer}: ${q}`, url: 'https://example.com/a', content: 'A result' }] }));
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.2', resolve));
  const { port } = provider.address() as { port: number };
  s = await startGateway({ webSearch: { provider: 'searxng', baseUrl: `http://127.0.0.2:${port}` }, httpAllow: ['127.0.0.2'] });
});

afterAll(async () => {
  await s?.close();
  await new Promise((resolve) => provider?.close(resolve));
});

beforeEach(async () => {
  expect((await s.asOwner('/cache', { method: 'DELETE' })).status).toBe(200);
  queries.length = 0;
  answer = 'first';
});

const search = async (query: string, headers: Record<string, string> = {}) =>
  read(await s.api('/tools/web_search/execute', { method: 'POST', json: { query }, headers }));

const cacheView = async () => {
  const res = await s.api('/cache');
  expect(res.status).toBe(200);
  return read(res);
};

describe('GET /cache', () => {
  it('shows web_search hits, misses and entries, overall and per tool, with the size bound /stats names', async () => {
    const before = await cacheView();
    await search('pincer cache');
    await search('pincer cache');
    await search('pincer cache');
    const body = await cacheView();
    expect(body.hits - before.hits).toBe(2);
    expect(body.misses - before.misses).toBe(1);
    expect(body).toMatchObject({ size: 1, max_entries: 1000 });
    expect(body.hit_rate).toBeCloseTo(body.hits / (body.hits + body.misses));
    const web = body.tools.find((t: { tool: string }) => t.tool === 'web_search');
    expect(web).toMatchObject({ size: 1, ttl_s: 300 });
    expect(web.hits).toBeGreaterThanOrEqual(2);
    expect(Object.keys(body)).toEqual(expect.arrayContaining(['evictions', 'expirations']));
    expect((await read(await s.api('/stats'))).cache.max_entries).toBe(body.max_entries);
    expect(queries).toEqual(['pincer cache']);
  });

  it('keeps recording a cached answer in the history as a cache hit', async () => {
    await search('recorded');
    const again = await search('recorded');
    expect(again.cached).toBe(true);
    const call = await read(await s.api(`/calls/${again.call_id}`));
    expect(call).toMatchObject({ tool: 'web_search', cache_hit: true, status: 'succeeded' });
  });

  it('a repeated file_write always writes: write tools are never cached', async () => {
    const path = join(s.workspace, 'note.txt');
    const first = await read(await s.api('/tools/file_write/execute', { method: 'POST', json: { path, content: 'one' } }));
    expect(first).toMatchObject({ success: true, cached: false });
    writeFileSync(path, 'changed by someone else');
    const second = await read(await s.api('/tools/file_write/execute', { method: 'POST', json: { path, content: 'one' } }));
    expect(second).toMatchObject({ success: true, cached: false });
    expect(readFileSync(path, 'utf8')).toBe('one');
    expect((await cacheView()).tools.some((t: { tool: string }) => t.tool === 'file_write')).toBe(false);
  });
});

describe('Cache-Control: no-cache', () => {
  it('runs the tool again and refreshes the cached answer', async () => {
    const first = await search('fresh please');
    answer = 'second';
    const bypassed = await search('fresh please', { 'cache-control': 'no-cache' });
    expect(bypassed).toMatchObject({ success: true, cached: false });
    expect(bypassed.result.results[0].title).toBe('second: fresh please');
    expect(first.result.results[0].title).toBe('first: fresh please');
    // The next plain call gets the refreshed answer from the cache.
    const after = await search('fresh please');
    expect(after).toMatchObject({ cached: true });
    expect(after.result).toEqual(bypassed.result);
    expect(queries).toEqual(['fresh please', 'fresh please']);
  });

  it('is honoured among other directives and through POST /execute', async () => {
    await search('directives');
    const res = await s.api('/execute', {
      method: 'POST',
      json: { name: 'web_search', arguments: { query: 'directives' } },
      headers: { 'cache-control': 'max-age=0, no-cache' },
    });
    expect(await read(res)).toMatchObject({ success: true, cached: false });
    expect(queries).toEqual(['directives', 'directives']);
  });
});

describe('DELETE /cache', () => {
  it('is refused to a client token, as every owner route is', async () => {
    await search('kept');
    for (const path of ['/cache', '/cache?tool=web_search']) {
      const res = await s.api(path, { method: 'DELETE' });
      expect(res.status).toBe(403);
      expect((await read(res)).error.name).toBe('FORBIDDEN');
    }
    expect((await cacheView()).size).toBe(1);
  });

  it('empties one tool when the owner names it, and everything otherwise', async () => {
    await search('one');
    await search('two');
    s.gateway.executor.cache.set('calculate\u0000{}', 1, 60_000);
    const some = await read(await s.asOwner('/cache?tool=web_search', { method: 'DELETE' }));
    expect(some).toMatchObject({ cleared: 2, tool: 'web_search', cache: { size: 1 } });
    const all = await read(await s.asOwner('/cache', { method: 'DELETE' }));
    expect(all).toMatchObject({ cleared: 1, tool: null, cache: { size: 0 } });
    await search('one');
    expect(queries).toEqual(['one', 'two', 'one']);
  });

  it('answers 404 for an unknown tool and 400 for an unknown parameter', async () => {
    expect((await s.asOwner('/cache?tool=no_such_tool', { method: 'DELETE' })).status).toBe(404);
    expect((await s.asOwner('/cache?tools=web_search', { method: 'DELETE' })).status).toBe(400);
  });
});

describe('the cache setting and the sweep', () => {
  it('reads cache.max_entries from config.json, and stops on a bad value with one line naming the key', () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ cache: { max_entries: 5 } }));
    expect(loadConfig({ flags: { dataDir }, env: {} }).cacheMaxEntries).toBe(5);
    for (const [bad, key] of [
      [{ max_entries: -1 }, 'cache.max_entries'],
      [{ max_entries: 'many' }, 'cache.max_entries'],
      [{ size: 5 }, 'cache'],
      [5, 'cache'],
    ] as const) {
      writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ cache: bad }));
      let error: unknown;
      try {
        loadConfig({ flags: { dataDir }, env: {} });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain(key);
      expect((error as Error).message).not.toContain('\n');
    }
  });

  it('a gateway started with a small cache evicts beyond it', async () => {
    const small = await startGateway({ cacheMaxEntries: 2 });
    try {
      for (const expression of ['1+1', '1+2', '1+3']) {
        small.gateway.executor.cache.set(`calculate\u0000${expression}`, 1, 60_000);
      }
      expect(await read(await small.api('/cache'))).toMatchObject({ size: 2, max_entries: 2, evictions: 1 });
    } finally {
      await small.close();
    }
  });

  it('sweeps expired entries without waiting for a lookup, counting them as expirations', () => {
    const cache = new ResultCache(10);
    cache.set('web_search\u0000a', 1, 1_000, 0);
    cache.set('web_search\u0000b', 2, 5_000, 0);
    expect(cache.sweep(2_000)).toBe(1);
    expect(cache.stats()).toMatchObject({ size: 1, expirations: 1, hits: 0, misses: 0 });
    expect(cache.toolStats()).toEqual([expect.objectContaining({ tool: 'web_search', size: 1, expirations: 1 })]);
  });

  it('a cache of 0 entries keeps nothing', () => {
    const cache = new ResultCache(0);
    cache.set('calculate\u0000x', 1, 1_000);
    expect(cache.get('calculate\u0000x')).toBeUndefined();
    expect(cache.stats()).toMatchObject({ size: 0, evictions: 0 });
  });
});

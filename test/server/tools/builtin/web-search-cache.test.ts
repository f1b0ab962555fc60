import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../../helpers/gateway.js';

/** web_search declares a result cache: the same query within the TTL reaches the provider once. */

let provider: Server;
const queries: string[] = [];
let tg: TestGateway;

beforeAll(async () => {
  // A SearXNG-shaped stub on its own loopback address, opened to the HTTP tools through http_allow.
  provider = createServer((req, res) => {
    const q = new URL(req.url ?? '/', 'http://stub').searchParams.get('q') ?? '';
    queries.push(q);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ results: [{ title: `About ${q}`, url: 'https://example.com/a', content: 'A result' }] }));
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.2', resolve));
  const { port } = provider.address() as { port: number };
  tg = await startGateway({ webSearch: { provider: 'searxng', baseUrl: `http://127.0.0.2:${port}` }, httpAllow: ['127.0.0.2'] });
});

afterAll(async () => {
  await tg.close();
  await new Promise((resolve) => provider.close(resolve));
});

const search = async (query: string) =>
  (await (await tg.api('/tools/web_search/execute', { method: 'POST', json: { query } })).json()) as { success: boolean; cached: boolean; result: unknown };

it('answers a repeated query from the cache, and a different query from the provider', async () => {
  const first = await search('tool gateway');
  expect(first).toMatchObject({ success: true, cached: false });
  const again = await search('tool gateway');
  expect(again).toMatchObject({ success: true, cached: true, result: first.result });
  expect(queries).toEqual(['tool gateway']);
  expect(await search('something else')).toMatchObject({ cached: false });
  expect(queries).toEqual(['tool gateway', 'something else']);
  const stats = (await (await tg.api('/stats')).json()) as { cache: unknown };
  expect(stats.cache).toMatchObject({ hits: 1, misses: 2 });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson, startGateway, type TestGateway } from '../../helpers/gateway.js';

interface Listed {
  id: number;
  content: string;
  score: null;
  match: null;
}
interface Page {
  results: Listed[];
  total: number;
  next_cursor: string | null;
}

describe('GET /memory without words pages through every memory, newest first, with a total', () => {
  let gw: TestGateway;
  const tokens: Record<string, string> = {};
  /** Ids of the 120 memories written first, newest first. */
  let written: number[] = [];

  const as = (client: string, path: string, init: { method?: string; json?: unknown } = {}) =>
    gw.api(path, { method: init.method ?? (init.json === undefined ? 'GET' : 'POST'), json: init.json, headers: { authorization: `Bearer ${tokens[client]}` } });

  /** Every page from `first` on, following next_cursor. */
  const walk = async (first: string, client = 'default'): Promise<Page[]> => {
    const pages: Page[] = [];
    let path: string | null = first;
    while (path !== null) {
      const res = await as(client, path);
      expect(res.status, path).toBe(200);
      const page = (await readJson(res)) as Page;
      pages.push(page);
      path = page.next_cursor === null ? null : `${first}${first.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(page.next_cursor)}`;
      expect(pages.length).toBeLessThan(20);
    }
    return pages;
  };

  beforeAll(async () => {
    gw = await startGateway();
    tokens.default = gw.token;
    const res = await gw.asOwner('/clients', { json: { name: 'alpha' } });
    expect(res.status).toBe(201);
    tokens.alpha = (await readJson(res)).token;
    // Notes 68 to 71 share one creation time across the boundary of the first page of 50, so the order (and the
    // cursor) has to fall back to the id.
    const minute = (i: number) => (i >= 68 && i <= 71 ? 68 : i);
    const lines = Array.from({ length: 120 }, (_, i) =>
      JSON.stringify({ content: `note ${i}`, tags: i % 4 === 0 ? ['fourth'] : [], created_at: new Date(Date.UTC(2026, 0, 1) + minute(i) * 60_000).toISOString() }),
    );
    const imported = await fetch(`${gw.url}/memory/import`, {
      method: 'POST',
      headers: { ...(await gw.ownerHeaders()), 'content-type': 'application/x-ndjson' },
      body: lines.join('\n'),
    });
    expect(await readJson(imported)).toEqual({ imported: 120, skipped: 0, failed: 0, errors: [] });
    const everything = (await readJson(await gw.api('/memory?limit=100'))) as Page;
    written = everything.results.map((r) => r.id);
  });
  afterAll(async () => {
    await gw.close();
  });

  it('pages through 120 memories in pages of 50, 50 and 20, each with the total, newest first, none twice', async () => {
    const pages = await walk('/memory?limit=50');
    expect(pages.map((p) => p.results.length)).toEqual([50, 50, 20]);
    expect(pages.map((p) => p.total)).toEqual([120, 120, 120]);
    expect(pages.at(-1)!.next_cursor).toBeNull();
    const contents = pages.flatMap((p) => p.results.map((r) => r.content));
    expect(new Set(contents).size).toBe(120);
    // Among memories of one creation time the larger id (written later) comes first, on either side of a page.
    expect(contents.slice(48, 52)).toEqual(['note 71', 'note 70', 'note 69', 'note 68']);
    expect(contents[0]).toBe('note 119');
    expect(contents.at(-1)).toBe('note 0');
    expect(pages[0]!.results[0]).toMatchObject({ score: null, match: null });
    expect(pages.flatMap((p) => p.results.map((r) => r.id)).slice(0, 100)).toEqual(written);
  });

  it('says the last page is the last: a page that ends exactly at the end has no next cursor', async () => {
    const pages = await walk('/memory?limit=60');
    expect(pages.map((p) => p.results.length)).toEqual([60, 60]);
    expect(pages[1]!.next_cursor).toBeNull();
  });

  it('counts and pages only what the filters select', async () => {
    const pages = await walk('/memory?limit=20&tags=fourth');
    expect(pages.map((p) => [p.results.length, p.total])).toEqual([
      [20, 30],
      [10, 30],
    ]);
    const none = (await readJson(await gw.api('/memory?category=nothing-here'))) as Page;
    expect(none).toEqual({ results: [], total: 0, next_cursor: null });
  });

  it('keeps its place while memories are added: the next page follows on, and the total grows', async () => {
    const first = (await readJson(await gw.api('/memory?limit=50'))) as Page;
    expect((await gw.api('/memory', { method: 'POST', json: { content: 'written between two pages' } })).status).toBe(201);
    const second = (await readJson(await gw.api(`/memory?limit=50&cursor=${encodeURIComponent(first.next_cursor!)}`))) as Page;
    expect(second.results[0]!.id).toBe(written[50]);
    expect(second.total).toBe(121);
  });

  it("counts, for a client limited to its own memories, only its own (another's are not even counted)", async () => {
    for (let i = 0; i < 3; i++) expect((await as('alpha', '/memory', { json: { content: `alpha note ${i}` } })).status).toBe(201);
    const own = await walk('/memory?limit=2', 'alpha');
    expect(own.map((p) => [p.results.length, p.total])).toEqual([
      [2, 3],
      [1, 3],
    ]);
    expect(own.flatMap((p) => p.results.map((r) => r.content))).toEqual(['alpha note 2', 'alpha note 1', 'alpha note 0']);
    const other = (await readJson(await as('alpha', '/memory?client=default'))) as Page;
    expect(other).toEqual({ results: [], total: 0, next_cursor: null });
    // A client that sees every memory counts alpha's too.
    expect(((await readJson(await gw.api('/memory?limit=1'))) as Page).total).toBe(124);
  });

  it('refuses a cursor it did not give out, and a cursor with a search, saying what to do', async () => {
    for (const cursor of ['nonsense', Buffer.from('12.0').toString('base64url'), Buffer.from('x.5').toString('base64url')]) {
      const res = await gw.api(`/memory?cursor=${cursor}`);
      expect(res.status, cursor).toBe(400);
      expect((await readJson(res)).error.message).toMatch(/cursor is not one this gateway gave out; start again without it/);
    }
    const first = (await readJson(await gw.api('/memory?limit=5'))) as Page;
    const res = await gw.api(`/memory?q=note&cursor=${first.next_cursor}`);
    expect(res.status).toBe(400);
    expect((await readJson(res)).error.message).toMatch(/"cursor" pages the newest memories \(without "q"\)/);
  });

  it('names each bad import line with its own reason, not the request body', async () => {
    const res = await fetch(`${gw.url}/memory/import`, {
      method: 'POST',
      headers: { ...(await gw.ownerHeaders()), 'content-type': 'application/x-ndjson' },
      body: ['{"content": "fine"}', '{"content": "cut off', '[[[[[[[[[["content"]]]]]]]]]]', '{"content": 7}', '42'].join('\n'),
    });
    const report = await readJson(res);
    expect(report).toMatchObject({ imported: 1, skipped: 0, failed: 4 });
    expect(report.errors.map((e: { line: number }) => e.line)).toEqual([2, 3, 4, 5]);
    const messages: string[] = report.errors.map((e: { message: string }) => e.message);
    expect(messages[0]).toMatch(/^not JSON: \S/);
    expect(messages[1]).toBe('The line is nested 10 levels deep; at most 8 are accepted.');
    expect(messages[2]).toBe('content must be a non-empty string.');
    expect(messages[3]).toBe('each line must be a JSON object with "content"');
    for (const message of messages) expect(message).not.toMatch(/request body/i);
  });
});

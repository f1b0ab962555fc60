import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson, startGateway, type TestGateway } from '../../helpers/gateway.js';

/**
 * The attack: client A stores a private memory with a rare word; client B, limited to its own memories, searches
 * for it and compares its scores. Through the real gateway, B's answers must be those of a gateway where A's memory
 * never existed.
 */
const BETA = [
  'beta keeps the staging deployment checklist',
  'The quartermaster service builds every staging image',
  'The staging database is restored every night at two',
  '会议室的投影仪坏了',
];
const ALPHA = [
  'private: the zorblax passphrase opens the staging vault',
  [...'abcdefghijklmnopqrstuvwxyz'].flatMap((a) => [`quartermastr${a}`, `quartermastr${a}${a}`, `quartermastr${a}x`]).join(' '),
  '会议室密码是四七一一',
];
const QUERIES = ['zorblax', 'staging zorblax', 'staging', 'zorblx', 'zorbl', 'orbla', 'passphrase', 'quartermastr', '会议室密码'];
const METHODS = ['hybrid', 'keyword', 'tfidf', 'fuzzy'];

describe("a client's memory scores and another client's private memory", () => {
  let withAlpha: TestGateway;
  let withoutAlpha: TestGateway;
  const tokens = new Map<TestGateway, Record<string, string>>();

  const as = (gw: TestGateway, client: string, path: string, json?: unknown) =>
    gw.api(path, { method: json === undefined ? 'GET' : 'POST', json, headers: { authorization: `Bearer ${tokens.get(gw)![client]}` } });
  /** What B is told for a query, without what differs between two gateways by construction (ids, dates). */
  const answer = async (gw: TestGateway, client: string, query: string, method: string) => {
    const { results } = await readJson(await as(gw, client, `/memory?q=${encodeURIComponent(query)}&method=${method}&limit=20`));
    return (results as Array<{ content: string; score: number; match: unknown }>).map(({ content, score, match }) => ({ content, score, match }));
  };

  beforeAll(async () => {
    [withAlpha, withoutAlpha] = await Promise.all([startGateway(), startGateway()]);
    for (const gw of [withAlpha, withoutAlpha]) {
      const mine: Record<string, string> = { default: gw.token };
      for (const name of ['alpha', 'beta']) mine[name] = (await readJson(await gw.asOwner('/clients', { json: { name } }))).token;
      tokens.set(gw, mine);
    }
    // A writes before and after B, so B's memories sit among A's in the index.
    expect((await as(withAlpha, 'alpha', '/memory', { content: ALPHA[0] })).status).toBe(201);
    for (const content of BETA) for (const gw of [withAlpha, withoutAlpha]) expect((await as(gw, 'beta', '/memory', { content })).status).toBe(201);
    for (const content of ALPHA.slice(1)) expect((await as(withAlpha, 'alpha', '/tools/remember/execute', { content })).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([withAlpha?.close(), withoutAlpha?.close()]);
  });

  it('B gets the same results and scores as where A never wrote, for queries with and without the rare word', async () => {
    for (const method of METHODS) {
      for (const query of QUERIES) {
        expect(await answer(withAlpha, 'beta', query, method), `${method} "${query}"`).toEqual(await answer(withoutAlpha, 'beta', query, method));
      }
    }
  });

  it("B's fuzzy and completion matches offer no term only A's memories hold", async () => {
    for (const method of METHODS) {
      for (const query of QUERIES) {
        const terms = (await answer(withAlpha, 'beta', query, method)).flatMap((r) => (r.match as { terms: Array<{ term: string }> }).terms.map((t) => t.term));
        expect(terms.join(' '), `${method} "${query}"`).not.toMatch(/zorblax|passphrase|quartermastr[a-z]|密码/);
      }
    }
    // A's look-alike words neither show nor push B's own word out of its typo search.
    expect((await answer(withAlpha, 'beta', 'quartermastr', 'fuzzy')).map((r) => r.content)).toEqual([BETA[1]]);
  });

  it('the recall tool answers B as GET /memory does', async () => {
    const recall = async (gw: TestGateway) => {
      const body = await readJson(await as(gw, 'beta', '/tools/recall/execute', { query: 'staging zorblax' }));
      return (body.result.results as Array<{ content: string; score: number }>).map(({ content, score }) => ({ content, score }));
    };
    expect(await recall(withAlpha)).toEqual(await recall(withoutAlpha));
  });

  it('a client that sees every memory is scored over every memory (where the difference shows)', async () => {
    const seen = async (gw: TestGateway) => (await readJson(await as(gw, 'default', '/memory?q=staging%20deployment&method=tfidf&client=beta'))).results[0].score;
    expect(await seen(withAlpha)).not.toBe(await seen(withoutAlpha));
  });
});

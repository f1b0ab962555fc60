import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PluginContext } from '../../../server/plugin-api.js';
import {
  PLUGIN_DIR,
  loadPluginModule,
  type EntryModule,
  type KlineAnswer,
  type QuoteAnswer,
  type SearchAnswer,
  type Tool,
  type UpstreamModule,
} from './plugin-modules.js';
import { fakeContext, startSinaStub, type SinaStub } from './sina-stub.js';

// The plugin imports `pincer/plugin`, which resolves (as in its own process) through plugins/node_modules/pincer to
// the built API: a module instance of its own, so its errors are recognised by name.

let tools: Map<string, Tool>;
let stub: SinaStub;

beforeAll(async () => {
  const entry = await loadPluginModule<EntryModule>('index.js');
  tools = new Map(entry.default.tools.map((tool) => [tool.name, tool as Tool]));
  stub = await startSinaStub();
});
afterAll(() => stub.close());
beforeEach(() => {
  stub.requests.length = 0;
});

function tool(name: string): Tool {
  const found = tools.get(name);
  if (!found) throw new Error(`the plugin has no tool ${name}`);
  return found;
}

async function call<T>(name: string, args: Record<string, unknown>, ctx: PluginContext = fakeContext(stub.config).ctx): Promise<T> {
  return (await tool(name).handler(args, ctx)) as T;
}

/** The PluginToolError a call fails with: the message the model reads. */
async function failure(name: string, args: Record<string, unknown>, ctx?: PluginContext): Promise<string> {
  const error = await call(name, args, ctx).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect((error as Error).name).toBe('PluginToolError');
  return (error as Error).message;
}

describe('the plugin', () => {
  it('defines its four tools as safe, cached, read-only finance tools with object schemas', () => {
    expect([...tools.keys()]).toEqual(['stock_quote', 'index_quote', 'search_stock', 'stock_kline']);
    for (const t of tools.values()) {
      expect(t).toMatchObject({
        risk: 'safe',
        category: 'finance',
        annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
        parameters: { type: 'object', additionalProperties: false },
      });
      expect(t.description.length).toBeGreaterThan(100);
      expect(t.cache?.ttl_s).toBeGreaterThan(0);
    }
    expect(tool('stock_quote').cache).toEqual({ ttl_s: 60 });
    expect(tool('index_quote').cache).toEqual({ ttl_s: 60 });
  });

  it("declares every default host in its manifest, and its manifest names the plugin's folder and entry", async () => {
    const manifest = JSON.parse(readFileSync(join(PLUGIN_DIR, 'plugin.json'), 'utf8')) as { name: string; entry: string; permissions: { hosts: string[] } };
    const { DEFAULTS } = await loadPluginModule<UpstreamModule>('upstream.js');
    const hosts = ['quote_base_url', 'search_base_url', 'kline_base_url'].map((key) => new URL(String(DEFAULTS[key])).hostname);
    expect(manifest.permissions.hosts.sort()).toEqual(hosts.sort());
    expect(manifest.name).toBe('investment');
    expect(readFileSync(join(PLUGIN_DIR, manifest.entry), 'utf8')).toContain('export default definePlugin');
    expect(JSON.parse(readFileSync(join(PLUGIN_DIR, 'package.json'), 'utf8'))).toEqual({ type: 'module', private: true });
  });
});

describe('stock_quote', () => {
  it('quotes several codes in one request to the configured quote URL, with the Referer Sina requires', async () => {
    const answer = await call<QuoteAnswer>('stock_quote', { codes: ['600030', 'sz000001', 'SH688047'] });
    expect(answer.quotes.map((q) => [q.code, q.name, q.price])).toEqual([
      ['sh600030', '中信证券', 21.09],
      ['sz000001', '平安银行', 10.64],
      ['sh688047', '龙芯中科', 119.62],
    ]);
    expect(answer.errors).toBeUndefined();
    expect(stub.requests).toHaveLength(1);
    expect(stub.requests[0]).toMatchObject({ service: 'hq', url: '/hq/list=sh600030,sz000001,sh688047' });
    expect(stub.requests[0]?.headers.referer).toBe('https://finance.sina.com.cn');
  });

  it('says how it read a bare code, and which code the caller wrote', async () => {
    const [quote] = (await call<QuoteAnswer>('stock_quote', { codes: ['000001'] })).quotes;
    expect(quote).toMatchObject({ input: '000001', code: 'sz000001', name: '平安银行' });
    expect(quote?.assumed).toMatch(/read 000001 as sz000001 .*sh000001/);
  });

  it('quotes Hong Kong and US codes from the same service', async () => {
    const answer = await call<QuoteAnswer>('stock_quote', { codes: ['00700.HK', 'AAPL'] });
    expect(answer.quotes.map((q) => [q.input, q.code, q.name, q.currency])).toEqual([
      ['00700.HK', 'hk00700', '腾讯控股', 'HKD'],
      ['AAPL', 'gb_aapl', '苹果', 'USD'],
    ]);
    expect(stub.requests[0]?.url).toBe('/hq/list=hk00700,gb_aapl');
  });

  it('asks once for a code written twice', async () => {
    const answer = await call<QuoteAnswer>('stock_quote', { codes: ['600030', 'sh600030', '600030.SH'] });
    expect(answer.quotes).toHaveLength(1);
    expect(stub.requests[0]?.url).toBe('/hq/list=sh600030');
  });

  it('lists an unknown code under errors and still quotes the others', async () => {
    const answer = await call<QuoteAnswer>('stock_quote', { codes: ['sh600030', 'sh999999', '贵州茅台'] });
    expect(answer.quotes.map((q) => q.code)).toEqual(['sh600030']);
    expect(answer.errors).toEqual([
      { code: '贵州茅台', message: '"贵州茅台" looks like a name, not a code: find its code with search_stock' },
      { code: 'sh999999', message: 'no quote for sh999999: check the code, e.g. sh600519 or sz000001, or use search_stock' },
    ]);
  });

  it('fails with a message the model can act on when no code is known', async () => {
    expect(await failure('stock_quote', { codes: ['sh999999'] })).toBe('no quote for sh999999: check the code, e.g. sh600519 or sz000001, or use search_stock');
    expect(await failure('stock_quote', { codes: ['hk99999'] })).toBe('no quote for hk99999: check the code, e.g. 00700.HK, or use search_stock');
    expect(await failure('stock_quote', { codes: ['茅台'] })).toMatch(/looks like a name/);
    expect(stub.requests).toHaveLength(2);
  });

  it('reports a suspended stock as not trading', async () => {
    const halted = await startSinaStub({ quotes: ['hq-halted.gbk'] });
    try {
      const [quote] = (await call<QuoteAnswer>('stock_quote', { codes: ['sz000001'] }, fakeContext(halted.config).ctx)).quotes;
      expect(quote).toMatchObject({ trading: false, price: null, prev_close: 11.18 });
    } finally {
      await halted.close();
    }
  });

  it('keeps the readable quotes of an answer with malformed lines and names the others', async () => {
    const broken = await startSinaStub({ quotes: ['hq-malformed.gbk'] });
    try {
      const answer = await call<QuoteAnswer>('stock_quote', { codes: ['sh600030', 'sz000001', 'sh688047'] }, fakeContext(broken.config).ctx);
      expect(answer.quotes.map((q) => q.code)).toEqual(['sh688047']);
      expect(answer.errors?.map((e) => e.code)).toEqual(['sh600030', 'sz000001']);
      expect(answer.errors?.[1]?.message).toMatch(/^Sina's line could not be read \(sz000001: field 3 \(price\) is "--", not a number\)$/);
    } finally {
      await broken.close();
    }
  });

  it('reports an upstream failure with its status', async () => {
    stub.failWith('hq', 503);
    try {
      expect(await failure('stock_quote', { codes: ['sh600030'] })).toBe(
        `Sina's quote service (${new URL(stub.origin).host}) answered HTTP 503: it is unavailable for now, try again in a minute`,
      );
    } finally {
      stub.failWith('hq', undefined);
    }
  });

  it('reports an upstream it cannot reach, naming the host', async () => {
    const port = await closedPort();
    const { ctx } = fakeContext({ ...stub.config, quote_base_url: `http://127.0.0.1:${port}` });
    expect(await failure('stock_quote', { codes: ['sh600030'] }, ctx)).toMatch(new RegExp(`^could not reach Sina's quote service \\(127\\.0\\.0\\.1:${port}\\): `));
  });

  it("asks Sina's own quote host when nothing is configured", async () => {
    const { ctx, attempted } = fakeContext({});
    expect(await failure('stock_quote', { codes: ['600519'] }, ctx)).toMatch(/^could not reach Sina's quote service \(hq\.sinajs\.cn\): the test refused/);
    expect(attempted).toEqual(['https://hq.sinajs.cn/list=sh600519']);
  });

  it('refuses a bad base URL naming the setting', async () => {
    const { ctx, attempted } = fakeContext({ quote_base_url: 'file:///etc/passwd' });
    expect(await failure('stock_quote', { codes: ['600519'] }, ctx)).toMatch(/^the setting plugins\.investment\.quote_base_url must be an http\(s\) URL/);
    expect(await failure('stock_quote', { codes: ['600519'] }, fakeContext({ timeout_ms: 'soon' }).ctx)).toMatch(/plugins\.investment\.timeout_ms/);
    expect(attempted).toEqual([]);
  });
});

describe('index_quote', () => {
  it('answers the main indices when no codes are given', async () => {
    const answer = await call<QuoteAnswer>('index_quote', {});
    expect(answer.quotes.map((q) => [q.code, q.name])).toEqual([
      ['sh000001', '上证指数'],
      ['sz399001', '深证成指'],
      ['sz399006', '创业板指'],
      ['sh000300', '沪深300'],
      ['sh000688', '科创50'],
    ]);
    expect(stub.requests[0]?.url).toBe('/hq/list=sh000001,sz399001,sz399006,sh000300,sh000688');
  });

  it('reads a bare 000001 as 上证指数', async () => {
    const [quote] = (await call<QuoteAnswer>('index_quote', { codes: ['000001', '399006'] })).quotes;
    expect(quote).toMatchObject({ code: 'sh000001', name: '上证指数', change_percent: 1.79 });
    expect(quote?.assumed).toMatch(/sz000001/);
  });
});

describe('search_stock', () => {
  it('finds a stock by pinyin initials through the configured search URL', async () => {
    const answer = await call<SearchAnswer>('search_stock', { query: 'gzmt' });
    expect(answer).toEqual({ query: 'gzmt', results: [{ name: '贵州茅台', code: '600519', quote_code: 'sh600519', type: 'A-share stock' }] });
    expect(stub.requests[0]).toMatchObject({ service: 'suggest3', url: '/suggest3/suggest/type=&key=gzmt' });
    expect(stub.requests[0]?.headers.referer).toBe('https://finance.sina.com.cn');
  });

  it('sends a Chinese query percent-encoded and decodes the GBK answer', async () => {
    const answer = await call<SearchAnswer>('search_stock', { query: ' 腾讯 ', limit: 2 });
    expect(answer.results.map((r) => r.quote_code)).toEqual(['hk00700', 'gb_tme']);
    expect(stub.requests[0]?.url).toBe(`/suggest3/suggest/type=&key=${encodeURIComponent('腾讯')}`);
  });

  it('says what to try when nothing matches', async () => {
    const answer = await call<SearchAnswer>('search_stock', { query: 'zzzz' });
    expect(answer.results).toEqual([]);
    expect(answer.note).toMatch(/nothing matched "zzzz"/);
  });
});

describe('stock_kline', () => {
  it('asks the configured k-line URL for daily bars and summarises them', async () => {
    const answer = await call<KlineAnswer>('stock_kline', { code: '600036', count: 2 });
    expect(stub.requests[0]).toMatchObject({
      service: 'money',
      url: '/money/quotes_service/api/json_v2.php/CN_MarketData.getKLineData?symbol=sh600036&scale=240&ma=no&datalen=2',
    });
    expect(answer).toMatchObject({ code: 'sh600036', period: 'daily' });
    expect(answer.bars).toHaveLength(2);
    expect(answer.summary).toEqual({
      from: '2019-12-26',
      to: '2019-12-27',
      bars: 2,
      high: 38.5,
      low: 37.69,
      first_close: 38.1,
      last_close: 37.86,
      change: -0.24,
      change_percent: -0.63,
    });
  });

  it('asks for minute bars at their scale, and keeps only the latest count', async () => {
    const answer = await call<KlineAnswer>('stock_kline', { code: 'sh600036', period: '60min', count: 1 });
    expect(stub.requests[0]?.url).toContain('symbol=sh600036&scale=60&ma=no&datalen=1');
    expect(answer.bars.map((b) => b.date)).toEqual(['2019-12-27 15:00:00']);
  });

  it('reads the older bare-key answer', async () => {
    const answer = await call<KlineAnswer>('stock_kline', { code: 'sh600103' });
    expect(answer.bars.map((b) => b.close)).toEqual([3.04, 2.45]);
  });

  it('fails clearly for an unknown code, a Hong Kong code, a bad period and an upstream error', async () => {
    expect(await failure('stock_kline', { code: 'sh999999' })).toBe('no k-line data for sh999999: check the code, e.g. sh600519 or sz000001, or use search_stock');
    expect(await failure('stock_kline', { code: '00700.HK' })).toMatch(/Shanghai, Shenzhen and Beijing codes only, not hk00700/);
    expect(await failure('stock_kline', { code: 'sh600036', period: 'yearly' })).toMatch(/unknown period "yearly"/);
    expect(await failure('stock_kline', { code: 'sh600000' })).toBe("Sina's k-line service refused the request for sh600000 (error 3: Service not valid)");
  });

  it("asks Sina's own k-line and search hosts when nothing is configured", async () => {
    const { ctx, attempted } = fakeContext({});
    await failure('stock_kline', { code: '600519' }, ctx);
    await failure('search_stock', { query: 'gzmt' }, ctx);
    expect(attempted).toEqual([
      'https://money.finance.sina.com.cn/quotes_service/api/json_v2.php/CN_MarketData.getKLineData?symbol=sh600519&scale=240&ma=no&datalen=30',
      'https://suggest3.sinajs.cn/suggest/type=&key=gzmt',
    ]);
  });
});

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

import { beforeAll, describe, expect, it } from 'vitest';
import { fixtureBytes, fixtureText, loadPluginModule, type Quote, type QuotesModule } from './plugin-modules.js';

let quotes: QuotesModule;
beforeAll(async () => {
  quotes = await loadPluginModule<QuotesModule>('quotes.js');
});

/** Every quote of a recorded answer, by symbol. */
function parseFixture(name: string): Map<string, Quote | null> {
  const out = new Map<string, Quote | null>();
  for (const [symbol, payload] of quotes.splitQuoteResponse(fixtureText(name))) out.set(symbol, quotes.parseQuote(symbol, payload));
  return out;
}

function quoteOf(name: string, symbol: string): Quote {
  const quote = parseFixture(name).get(symbol);
  if (!quote) throw new Error(`no quote for ${symbol} in ${name}`);
  return quote;
}

describe('the recorded quote answers', () => {
  it('are GBK bytes, not UTF-8', () => {
    for (const name of ['hq-a-shares.gbk', 'hq-indices.gbk', 'hq-hk.gbk', 'hq-us.gbk', 'hq-halted.gbk', 'hq-malformed.gbk']) {
      expect(() => new TextDecoder('utf-8', { fatal: true }).decode(fixtureBytes(name)), name).toThrow();
    }
    // 中信证券 in GBK: d6d0 d0c5 d6a4 c8af.
    expect(fixtureBytes('hq-a-shares.gbk').includes(Buffer.from('d6d0d0c5d6a4c8af', 'hex'))).toBe(true);
  });

  it('split into one payload per symbol', () => {
    expect([...quotes.splitQuoteResponse(fixtureText('hq-a-shares.gbk')).keys()]).toEqual(['sh600030', 'sz000001', 'sh688047']);
    expect(quotes.splitQuoteResponse('garbage\nvar hq_str_sh600030="";\n')).toEqual(new Map([['sh600030', '']]));
  });
});

describe('A shares', () => {
  it('reads every field of a closing quote, numbers as numbers and the name decoded from GBK', () => {
    expect(quoteOf('hq-a-shares.gbk', 'sh600030')).toEqual({
      code: 'sh600030',
      name: '中信证券',
      exchange: 'SSE',
      currency: 'CNY',
      price: 21.09,
      change: 1.01,
      change_percent: 5.03,
      prev_close: 20.08,
      open: 20.08,
      high: 21.16,
      low: 20.04,
      volume: 221743961,
      amount: 4597038936,
      bids: [
        { price: 21.09, volume: 851863 },
        { price: 21.08, volume: 322800 },
        { price: 21.07, volume: 435235 },
        { price: 21.06, volume: 342211 },
        { price: 21.05, volume: 289618 },
      ],
      asks: [
        { price: 21.1, volume: 777017 },
        { price: 21.11, volume: 325000 },
        { price: 21.12, volume: 255800 },
        { price: 21.13, volume: 241600 },
        { price: 21.14, volume: 248400 },
      ],
      date: '2019-06-11',
      time: '15:00:00',
      datetime: '2019-06-11T15:00:00+08:00',
      trading: true,
    });
  });

  it('computes a fall as negative change and percent', () => {
    const quote = quoteOf('hq-a-shares.gbk', 'sz000001');
    expect(quote).toMatchObject({ name: '平安银行', exchange: 'SZSE', price: 10.64, prev_close: 11.18, change: -0.54, change_percent: -4.83 });
    expect(quote.datetime).toBe('2018-10-29T14:18:54+08:00');
  });

  it('reads the newer layout with a trailing comma, and a stock at its limit with no one selling', () => {
    const quote = quoteOf('hq-a-shares.gbk', 'sh688047');
    expect(quote).toMatchObject({ name: '龙芯中科', price: 119.62, change: 19.94, change_percent: 20, date: '2024-09-30' });
    expect(quote.asks).toEqual([]);
    expect(quote.bids?.[0]).toEqual({ price: 119.62, volume: 25600 });
  });

  it('reads a suspended stock (zero prices) as not trading, keeping only the previous close', () => {
    const quote = quoteOf('hq-halted.gbk', 'sz000001');
    expect(quote).toMatchObject({
      name: '平安银行',
      trading: false,
      price: null,
      change: null,
      change_percent: null,
      open: null,
      high: null,
      low: null,
      prev_close: 11.18,
      volume: 0,
      bids: [],
      asks: [],
    });
    expect(quote.note).toMatch(/suspended/);
  });

  it('answers null for the empty line Sina gives an unknown code', () => {
    const [[symbol, payload]] = [...quotes.splitQuoteResponse(fixtureText('hq-unknown.gbk'))] as [[string, string]];
    expect(symbol).toBe('sh999999');
    expect(quotes.parseQuote(symbol, payload)).toBeNull();
  });

  it('refuses malformed lines with the symbol and the field at fault', () => {
    const lines = quotes.splitQuoteResponse(fixtureText('hq-malformed.gbk'));
    expect(() => quotes.parseQuote('sh600030', lines.get('sh600030')!)).toThrow(/sh600030: the line has 4 fields, the layout needs at least 32/);
    expect(() => quotes.parseQuote('sz000001', lines.get('sz000001')!)).toThrow(quotes.QuoteFormatError);
    expect(() => quotes.parseQuote('sz000001', lines.get('sz000001')!)).toThrow(/field 3 \(price\) is "--", not a number/);
    expect(quotes.parseQuote('sh688047', lines.get('sh688047')!)?.price).toBe(119.62);
    expect(() => quotes.parseQuote('nf_IH0', '2663.000,2666.000')).toThrow(/not a market this plugin reads/);
  });
});

describe('indices', () => {
  it('reads index levels without an order book', () => {
    const quote = quoteOf('hq-indices.gbk', 'sh000001');
    expect(quote).toMatchObject({ name: '上证指数', price: 3864.3671, prev_close: 3796.2814, change: 68.0857, change_percent: 1.79 });
    expect(quote.bids).toBeUndefined();
    expect(quote.asks).toBeUndefined();
  });

  it('reports volume in shares: Shanghai indices count lots of 100, Shenzhen indices shares', () => {
    expect(quoteOf('hq-indices.gbk', 'sh000001').volume).toBe(73_502_192_500);
    expect(quoteOf('hq-indices.gbk', 'sh000688').volume).toBe(1_951_274_500);
    expect(quoteOf('hq-indices.gbk', 'sz399001').volume).toBe(83_591_133_533);
    expect(quoteOf('hq-indices.gbk', 'sz399001').amount).toBe(1_560_575_057_534.151);
  });

  it('reads the names of every index in one answer', () => {
    const names = [...parseFixture('hq-indices.gbk').values()].map((q) => q?.name);
    expect(names).toEqual(['上证指数', '深证成指', '创业板指', '科创50', '沪深300']);
  });

  it('reads lines from before the open as not trading, whether the price is zero or the previous close', () => {
    expect(quoteOf('hq-preopen.gbk', 'sz399006')).toMatchObject({ trading: false, price: null, prev_close: 3948.86 });
    expect(quoteOf('hq-preopen.gbk', 'sh000688')).toMatchObject({ trading: false, price: null, prev_close: 1996.1029, open: null });
  });
});

describe('Hong Kong', () => {
  it('reads the Hong Kong layout: Chinese and English names, slashed date, minutes-only time', () => {
    expect(quoteOf('hq-hk.gbk', 'hk00700')).toEqual({
      code: 'hk00700',
      name: '腾讯控股',
      name_en: 'TENCENT',
      exchange: 'HKEX',
      currency: 'HKD',
      price: 372.6,
      change: -9.4,
      change_percent: -2.46,
      prev_close: 382,
      open: 369,
      high: 374.4,
      low: 369,
      volume: 8951038,
      amount: 3321936652,
      high_52w: 431.6,
      low_52w: 251.4,
      date: '2019-05-14',
      time: '10:04:00',
      datetime: '2019-05-14T10:04:00+08:00',
      trading: true,
    });
  });

  it('leaves out an English name Sina gives as NULL and keeps full-width characters', () => {
    const quote = quoteOf('hq-hk.gbk', 'hk03690');
    expect(quote.name).toBe('美团点评－Ｗ');
    expect(quote.name_en).toBeUndefined();
  });
});

describe('US', () => {
  it('reads the US layout, its Beijing timestamp and the time in New York', () => {
    expect(quoteOf('hq-us.gbk', 'gb_aapl')).toEqual({
      code: 'gb_aapl',
      name: '苹果',
      exchange: 'US',
      currency: 'USD',
      price: 276.08,
      change: 2.4,
      change_percent: 0.88,
      prev_close: 273.68,
      open: 274.695,
      high: 280.18,
      low: 274.45,
      volume: 37329226,
      amount: null,
      high_52w: 288.62,
      low_52w: 168.43,
      market_cap: 4053169131200,
      datetime: '2026-02-12T04:17:52+08:00',
      market_time: 'Feb 11 03:17PM EST',
      trading: true,
    });
  });
});

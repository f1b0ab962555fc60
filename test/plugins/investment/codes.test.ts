import { beforeAll, describe, expect, it } from 'vitest';
import { loadPluginModule, type CodesModule } from './plugin-modules.js';

let codes: CodesModule;
beforeAll(async () => {
  codes = await loadPluginModule<CodesModule>('codes.js');
});

const symbol = (input: string, kind?: 'stock' | 'index') => codes.readQuoteCode(input, kind).symbol;

describe('reading codes', () => {
  it('keeps exchange-prefixed A-share codes, in lower case', () => {
    expect(symbol('sh600519')).toBe('sh600519');
    expect(symbol('SZ000001')).toBe('sz000001');
    expect(symbol(' bj430047 ')).toBe('bj430047');
    expect(codes.readQuoteCode('sh600519').assumed).toBeUndefined();
  });

  it('reads exchange suffixes, Yahoo-style .SS included', () => {
    expect(symbol('600519.SH')).toBe('sh600519');
    expect(symbol('600519.ss')).toBe('sh600519');
    expect(symbol('000001.SZ')).toBe('sz000001');
    expect(symbol('430047.BJ')).toBe('bj430047');
  });

  it('places a bare six-digit stock code on its exchange by its leading digits', () => {
    expect(symbol('600519')).toBe('sh600519'); // Shanghai main board
    expect(symbol('688047')).toBe('sh688047'); // STAR market
    expect(symbol('900901')).toBe('sh900901'); // Shanghai B share
    expect(symbol('510300')).toBe('sh510300'); // Shanghai ETF
    expect(symbol('113050')).toBe('sh113050'); // Shanghai convertible bond
    expect(symbol('000001')).toBe('sz000001'); // Shenzhen main board
    expect(symbol('002594')).toBe('sz002594');
    expect(symbol('300750')).toBe('sz300750'); // ChiNext
    expect(symbol('159915')).toBe('sz159915'); // Shenzhen ETF
    expect(symbol('430047')).toBe('bj430047'); // Beijing
    expect(symbol('830799')).toBe('bj830799');
    expect(symbol('920002')).toBe('bj920002'); // Beijing codes issued from 2024
  });

  it('reads 000001 as the stock 平安银行 by default, and says how to get the index', () => {
    const code = codes.readQuoteCode('000001');
    expect(code.symbol).toBe('sz000001');
    expect(code.assumed).toContain('read 000001 as sz000001 (Shenzhen)');
    expect(code.assumed).toContain('sh000001');
  });

  it('reads 000001 as the index 上证指数 when an index is asked for, and says how to get the stock', () => {
    const code = codes.readQuoteCode('000001', 'index');
    expect(code.symbol).toBe('sh000001');
    expect(code.assumed).toContain('sz000001');
    expect(symbol('000300', 'index')).toBe('sh000300');
    expect(symbol('399006', 'index')).toBe('sz399006');
    expect(symbol('899050', 'index')).toBe('bj899050');
    expect(symbol('600519', 'index')).toBe('sh600519');
  });

  it('reads Hong Kong codes in their usual forms, padded to five digits', () => {
    for (const input of ['00700.HK', '0700.hk', '700.HK', 'hk00700', 'rt_hk00700', '00700', '700']) {
      expect(codes.readQuoteCode(input)).toMatchObject({ symbol: 'hk00700', market: 'hk' });
    }
  });

  it('reads US tickers as Sina gb_ symbols', () => {
    expect(codes.readQuoteCode('AAPL')).toMatchObject({ symbol: 'gb_aapl', market: 'us' });
    expect(symbol('aapl.US')).toBe('gb_aapl');
    expect(symbol('gb_MSFT')).toBe('gb_msft');
    expect(symbol('BRK.B')).toBe('gb_brk.b');
  });

  it('refuses what is not a code, pointing to search_stock', () => {
    expect(() => codes.readQuoteCode('贵州茅台')).toThrow(/looks like a name.*search_stock/);
    expect(() => codes.readQuoteCode('sh60051')).toThrow(/cannot read "sh60051" as a code: write sh600519/);
    expect(() => codes.readQuoteCode('1234567')).toThrow(codes.CodeError);
    expect(() => codes.readQuoteCode('   ')).toThrow(/an empty code/);
    expect(() => codes.readQuoteCode('$(rm -rf ~)')).toThrow(codes.CodeError);
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { fixtureBytes, fixtureText, loadPluginModule, type SuggestModule } from './plugin-modules.js';

let suggest: SuggestModule;
beforeAll(async () => {
  suggest = await loadPluginModule<SuggestModule>('suggest.js');
});

describe('search suggestions', () => {
  it('are recorded as GBK bytes', () => {
    // 贵州茅台 in GBK: b9f3 d6dd c3a9 cca8.
    expect(fixtureBytes('suggest-gzmt.gbk').includes(Buffer.from('b9f3d6ddc3a9cca8', 'hex'))).toBe(true);
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(fixtureBytes('suggest-gzmt.gbk'))).toThrow();
  });

  it('take the name from field 4, not the pinyin the query matched', () => {
    expect(suggest.parseSuggestResponse(fixtureText('suggest-gzmt.gbk'))).toEqual([
      { name: '贵州茅台', code: '600519', quote_code: 'sh600519', type: 'A-share stock' },
    ]);
  });

  it('give A-share, Hong Kong and US entries a code stock_quote takes', () => {
    expect(suggest.parseSuggestResponse(fixtureText('suggest-lx.gbk'))).toEqual([
      { name: '龙芯中科', code: '688047', quote_code: 'sh688047', type: 'A-share stock' },
      { name: '绿叶制药', code: '02186', quote_code: 'hk02186', type: 'Hong Kong stock' },
    ]);
    const tencent = suggest.parseSuggestResponse(fixtureText('suggest-tencent.gbk'));
    expect(tencent.map((r) => [r.name, r.quote_code, r.type])).toEqual([
      ['腾讯控股', 'hk00700', 'Hong Kong stock'],
      ['腾讯音乐', 'gb_tme', 'US stock'],
      ['恒生指数', null, 'Hong Kong index'],
    ]);
  });

  it('list a security once when Sina gives it under two types', () => {
    const text = 'var suggestvalue="贵州茅台,11,600519,sh600519,贵州茅台,,贵州茅台,99,1,ESG,,;贵州茅台,111,600519,sh600519,贵州茅台,,贵州茅台,99,1,,";';
    expect(suggest.parseSuggestResponse(text)).toHaveLength(1);
  });

  it('mark delisted entries and name unknown types by number', () => {
    const text = 'var suggestvalue="某债,999,123456,123456,某债,,某债,99,0,,";';
    expect(suggest.parseSuggestResponse(text)).toEqual([{ name: '某债', code: '123456', quote_code: null, type: 'Sina type 999', listed: false }]);
  });

  it('answer nothing for an empty suggestion, skip unreadable entries, and refuse an answer without the line', () => {
    expect(suggest.parseSuggestResponse(fixtureText('suggest-empty.gbk'))).toEqual([]);
    expect(suggest.parseSuggestResponse('var suggestvalue="a,b;;贵州茅台,11,600519,sh600519,贵州茅台";')).toHaveLength(1);
    expect(() => suggest.parseSuggestResponse('<html>502 Bad Gateway</html>')).toThrow(suggest.SuggestFormatError);
  });
});

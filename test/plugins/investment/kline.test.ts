import { beforeAll, describe, expect, it } from 'vitest';
import { fixtureText, loadPluginModule, type KlineModule } from './plugin-modules.js';

let kline: KlineModule;
beforeAll(async () => {
  kline = await loadPluginModule<KlineModule>('kline.js');
});

describe('k-line answers', () => {
  it('read strict JSON bars as numbers, oldest first', () => {
    expect(kline.parseKlineResponse(fixtureText('kline-sh600036-daily.json'))).toEqual([
      { date: '2019-12-26', open: 37.78, high: 38.1, low: 37.69, close: 38.1, volume: 19223976 },
      { date: '2019-12-27', open: 38.1, high: 38.5, low: 37.8, close: 37.86, volume: 35953534 },
    ]);
  });

  it('read the older form with bare keys the same way', () => {
    expect(kline.parseKlineResponse(fixtureText('kline-sh600103-daily-bare-keys.txt'))).toEqual([
      { date: '2019-05-31', open: 3.02, high: 3.06, low: 3.01, close: 3.04, volume: 6923750 },
      { date: '2019-06-03', open: 2.35, high: 2.57, low: 2.34, close: 2.45, volume: 16269606 },
    ]);
  });

  it('keep the time of minute bars', () => {
    expect(kline.parseKlineResponse(fixtureText('kline-sh600036-60min.json')).map((b) => b.date)).toEqual(['2019-12-27 14:00:00', '2019-12-27 15:00:00']);
  });

  it('answer no bars for a symbol Sina has none for', () => {
    expect(kline.parseKlineResponse(fixtureText('kline-unknown.txt'))).toEqual([]);
    expect(kline.parseKlineResponse('[]')).toEqual([]);
    expect(kline.parseKlineResponse('')).toEqual([]);
  });

  it("raise Sina's own error object as an upstream error", () => {
    expect(() => kline.parseKlineResponse(fixtureText('kline-error.json'))).toThrow(kline.KlineUpstreamError);
    expect(() => kline.parseKlineResponse(fixtureText('kline-error.json'))).toThrow('error 3: Service not valid');
  });

  it('refuse answers that are not bars, naming what is wrong', () => {
    expect(() => kline.parseKlineResponse('<html>')).toThrow(kline.KlineFormatError);
    expect(() => kline.parseKlineResponse('{"a":1}')).toThrow(/not an array of bars/);
    expect(() => kline.parseKlineResponse('[{"day":"2019-12-27","open":"x","high":"1","low":"1","close":"1","volume":"1"}]')).toThrow(/bar 0 \(2019-12-27\): "open" is "x"/);
    expect(() => kline.parseKlineResponse('[{"day":"yesterday"}]')).toThrow(/"day" is "yesterday"/);
  });

  it('map every offered period to the scale Sina takes', () => {
    expect(kline.PERIODS).toEqual({ daily: 240, weekly: 1200, monthly: 7200, '5min': 5, '15min': 15, '30min': 30, '60min': 60 });
  });
});

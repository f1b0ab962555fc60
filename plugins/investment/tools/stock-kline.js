// @ts-check
import { defineTool, PluginToolError } from 'pincer/plugin';
import { CodeError, readQuoteCode } from '../codes.js';
import { KlineFormatError, KlineUpstreamError, parseKlineResponse, PERIODS } from '../kline.js';
import { noQuote } from '../quote-lookup.js';
import { endpoints, getText, klineUrl } from '../upstream.js';
import { CATEGORY, READS_PUBLIC_DATA } from './shared.js';

/** @typedef {{ code: string, period?: keyof typeof PERIODS, count?: number }} StockKlineArgs */

export const stockKline = defineTool(
  /** @type {import('pincer/plugin').PluginTool<StockKlineArgs>} */ ({
    name: 'stock_kline',
    description:
      'Price history (k-line, candlesticks) from Sina Finance for a Shanghai, Shenzhen or Beijing stock, fund or index: ' +
      'date, open, high, low, close and volume (shares) per bar, oldest first, prices not adjusted for dividends or ' +
      'splits. period: daily (default), weekly, monthly, or 5min, 15min, 30min, 60min bars of recent trading days ' +
      '(times in Beijing time). count: how many of the latest bars (default 30). The summary gives the range, its ' +
      'high and low and the change from the first close to the last. Codes as for stock_quote: a bare 6-digit number ' +
      'is read as a stock, so write sh000001 for 上证指数. Hong Kong and US codes are not available here.',
    parameters: {
      type: 'object',
      properties: {
        code: { type: 'string', description: 'e.g. "sh600519", "600519", "sh000001".', minLength: 1, maxLength: 20 },
        period: { type: 'string', enum: Object.keys(PERIODS), default: 'daily', description: 'Length of one bar.' },
        count: { type: 'integer', minimum: 1, maximum: 500, default: 30, description: 'How many of the latest bars.' },
      },
      required: ['code'],
      additionalProperties: false,
    },
    risk: 'safe',
    category: CATEGORY,
    annotations: { title: 'Stock k-line', ...READS_PUBLIC_DATA },
    cache: { ttl_s: 60 },
    handler: async ({ code: input, period = 'daily', count = 30 }, ctx) => {
      const scale = PERIODS[period];
      if (scale === undefined) throw new PluginToolError(`unknown period "${period}": use one of ${Object.keys(PERIODS).join(', ')}`);
      let code;
      try {
        code = readQuoteCode(input, 'stock');
      } catch (error) {
        if (error instanceof CodeError) throw new PluginToolError(error.message);
        throw error;
      }
      if (code.market !== 'cn') {
        throw new PluginToolError(`k-lines are available for Shanghai, Shenzhen and Beijing codes only, not ${code.symbol}; stock_quote gives its live quote`);
      }
      const settings = endpoints(ctx.config);
      const text = await getText(ctx, klineUrl(settings.kline, code.symbol, scale, count), { service: 'k-line', encoding: 'utf-8', timeoutMs: settings.timeoutMs });
      let bars;
      try {
        bars = parseKlineResponse(text);
      } catch (error) {
        if (error instanceof KlineUpstreamError) throw new PluginToolError(`Sina's k-line service refused the request for ${code.symbol} (${error.message})`);
        if (error instanceof KlineFormatError) throw new PluginToolError(`Sina's k-line answer for ${code.symbol} could not be read (${error.message}); try again`);
        throw error;
      }
      if (bars.length === 0) throw new PluginToolError(noQuote(code).replace('no quote', 'no k-line data'));
      const latest = bars.slice(-count);
      const first = /** @type {import('../kline.js').Bar} */ (latest[0]);
      const last = /** @type {import('../kline.js').Bar} */ (latest[latest.length - 1]);
      const change = last.close - first.close;
      return {
        code: code.symbol,
        ...(code.assumed ? { assumed: code.assumed } : {}),
        period,
        bars: latest,
        summary: {
          from: first.date,
          to: last.date,
          bars: latest.length,
          high: Math.max(...latest.map((b) => b.high)),
          low: Math.min(...latest.map((b) => b.low)),
          first_close: first.close,
          last_close: last.close,
          change: Math.round(change * 1e4) / 1e4,
          change_percent: first.close > 0 ? Math.round((change / first.close) * 1e4) / 1e2 : null,
        },
      };
    },
  }),
);

// @ts-check
import { defineTool } from 'pincer/plugin';
import { lookUpQuotes } from '../quote-lookup.js';
import { CATEGORY, READS_PUBLIC_DATA } from './shared.js';

/** @typedef {{ codes: string[] }} StockQuoteArgs */

export const stockQuote = defineTool(
  /** @type {import('pincer/plugin').PluginTool<StockQuoteArgs>} */ ({
    name: 'stock_quote',
    description:
      'Live quotes from Sina Finance for one or more stocks, funds or ETFs: price, change and change_percent against ' +
      'the previous close, open, high, low, volume (shares), amount (turnover in the currency), for A shares the five ' +
      'best bids and asks, and the time of the quote (Beijing time, +08:00). Codes: Shanghai, Shenzhen and Beijing as ' +
      'sh600519, sz000001, bj430047 or 600519.SH; a bare 6-digit number is read as a stock (000001 is 平安银行, ' +
      'sz000001 — use index_quote for indices such as 上证指数); Hong Kong as 00700.HK or hk00700; US tickers as AAPL. ' +
      'If you only know a name, call search_stock first. A quote with "trading": false had no trade today (suspended, ' +
      'or before the first trade) and carries only prev_close. Unknown codes are listed under "errors". Answers may be ' +
      'up to 60 seconds old.',
    parameters: {
      type: 'object',
      properties: {
        codes: {
          type: 'array',
          description: 'Codes to quote, e.g. ["sh600519", "000001", "00700.HK", "AAPL"].',
          items: { type: 'string', minLength: 1, maxLength: 20 },
          minItems: 1,
          maxItems: 30,
        },
      },
      required: ['codes'],
      additionalProperties: false,
    },
    risk: 'safe',
    category: CATEGORY,
    annotations: { title: 'Stock quote', ...READS_PUBLIC_DATA },
    cache: { ttl_s: 60 },
    handler: ({ codes }, ctx) => lookUpQuotes(ctx, codes, 'stock'),
  }),
);

// @ts-check
import { defineTool } from 'pincer/plugin';
import { lookUpQuotes } from '../quote-lookup.js';
import { CATEGORY, READS_PUBLIC_DATA } from './shared.js';

/** 上证指数, 深证成指, 创业板指, 沪深300, 科创50. */
export const MAIN_INDICES = Object.freeze(['sh000001', 'sz399001', 'sz399006', 'sh000300', 'sh000688']);

/** @typedef {{ codes?: string[] }} IndexQuoteArgs */

export const indexQuote = defineTool(
  /** @type {import('pincer/plugin').PluginTool<IndexQuoteArgs>} */ ({
    name: 'index_quote',
    description:
      'Live levels of Chinese stock market indices from Sina Finance: points (price), change and change_percent ' +
      'against the previous close, open, high, low, volume (shares) and amount (yuan), with the time of the quote ' +
      '(Beijing time, +08:00). Without codes it answers the main indices: 上证指数 sh000001, 深证成指 sz399001, ' +
      '创业板指 sz399006, 沪深300 sh000300 and 科创50 sh000688. A bare 6-digit number is read as an index here ' +
      '(000001 is 上证指数, 399006 创业板指); write sz000001 for the stock 平安银行. Answers may be up to 60 seconds old.',
    parameters: {
      type: 'object',
      properties: {
        codes: {
          type: 'array',
          description: 'Index codes, e.g. ["sh000001", "399006", "000905"]; leave out for the main indices.',
          items: { type: 'string', minLength: 1, maxLength: 20 },
          minItems: 1,
          maxItems: 20,
        },
      },
      additionalProperties: false,
    },
    risk: 'safe',
    category: CATEGORY,
    annotations: { title: 'Index quote', ...READS_PUBLIC_DATA },
    cache: { ttl_s: 60 },
    handler: ({ codes }, ctx) => lookUpQuotes(ctx, codes ?? MAIN_INDICES, 'index'),
  }),
);

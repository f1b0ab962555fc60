// @ts-check
import { defineTool, PluginToolError } from 'pincer/plugin';
import { parseSuggestResponse, SuggestFormatError } from '../suggest.js';
import { endpoints, getText, searchUrl } from '../upstream.js';
import { CATEGORY, READS_PUBLIC_DATA } from './shared.js';

/** @typedef {{ query: string, limit?: number }} SearchStockArgs */

export const searchStock = defineTool(
  /** @type {import('pincer/plugin').PluginTool<SearchStockArgs>} */ ({
    name: 'search_stock',
    description:
      "Finds securities by Chinese name, pinyin initials or code with Sina Finance's search (e.g. 茅台, gzmt, 600519, " +
      '腾讯, apple): A and B shares, funds and ETFs, Hong Kong and US stocks, bonds and more, best match first. Each ' +
      'result has the name, the exchange code, the type, and quote_code: pass it to stock_quote or stock_kline (null ' +
      'when those tools cannot quote it).',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'A name, pinyin initials or code, e.g. "贵州茅台", "gzmt", "600519".', minLength: 1, maxLength: 40 },
        limit: { type: 'integer', description: 'Most results to return (default 10).', minimum: 1, maximum: 20, default: 10 },
      },
      required: ['query'],
      additionalProperties: false,
    },
    risk: 'safe',
    category: CATEGORY,
    annotations: { title: 'Search stocks', ...READS_PUBLIC_DATA },
    cache: { ttl_s: 300 },
    handler: async ({ query, limit = 10 }, ctx) => {
      const key = query.trim();
      if (key === '') throw new PluginToolError('the query is empty: give a name, pinyin initials or a code');
      const settings = endpoints(ctx.config);
      const text = await getText(ctx, searchUrl(settings.search, key), { service: 'search', encoding: 'gbk', timeoutMs: settings.timeoutMs });
      let results;
      try {
        results = parseSuggestResponse(text);
      } catch (error) {
        if (!(error instanceof SuggestFormatError)) throw error;
        throw new PluginToolError(`Sina's search answer could not be read (${error.message}); try again`);
      }
      if (results.length === 0) {
        return { query: key, results: [], note: `nothing matched "${key}": try the Chinese name, its pinyin initials (贵州茅台 → gzmt) or the code` };
      }
      return { query: key, results: results.slice(0, limit) };
    },
  }),
);

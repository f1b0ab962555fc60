// @ts-check
/**
 * Market data from Sina Finance: quotes, index levels, search and k-lines. Each tool is a file under tools/; the parsing of Sina's formats lives in quotes.js, suggest.js and
 * kline.js, the reading of codes in codes.js, and the requests in upstream.js.
 */
import { definePlugin } from 'pincer/plugin';
import { indexQuote } from './tools/index-quote.js';
import { searchStock } from './tools/search-stock.js';
import { stockKline } from './tools/stock-kline.js';
import { stockQuote } from './tools/stock-quote.js';

export default definePlugin({ tools: [stockQuote, indexQuote, searchStock, stockKline] });

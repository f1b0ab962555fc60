// @ts-check
/**
 * Parses the answers of Sina's search suggestions (`suggest3.sinajs.cn/suggest/type=&key=…`), GBK-encoded:
 * `var suggestvalue="贵州茅台,11,600519,sh600519,贵州茅台,,贵州茅台,99,1,ESG,,;…";`. Entries are separated by `;`;
 * in each, 0 is the text the query matched, 1 the type (see TYPES), 2 the exchange's code, 3 Sina's symbol
 * (sh600519; the bare code for Hong Kong and US entries: 00700, aapl), 4 the name, 8 "1" while listed.
 * Pure functions, no I/O.
 */

/** An answer without the `var …="…"` line. */
export class SuggestFormatError extends Error {
  name = 'SuggestFormatError';
}

/** Sina's type numbers, as its own suggest script names them, in English. @type {Record<string, string>} */
const TYPES = {
  11: 'A-share stock',
  12: 'B-share stock',
  13: 'warrant',
  14: 'futures',
  15: 'bond',
  21: 'open-end fund',
  22: 'ETF',
  23: 'LOF',
  24: 'money-market fund',
  25: 'QDII fund',
  26: 'closed-end fund',
  31: 'Hong Kong stock',
  32: 'Hong Kong warrant',
  33: 'Hong Kong index',
  41: 'US stock',
  42: 'overseas futures',
  71: 'forex',
  72: 'exchange-traded fund',
  73: 'NEEQ stock',
  81: 'bond',
  82: 'bond',
  100: 'index',
  111: 'A-share stock',
  120: 'bond',
};

/**
 * @typedef {object} Suggestion
 * @property {string} name
 * @property {string} code The exchange's own code: 600519, 00700, aapl.
 * @property {string | null} quote_code What stock_quote and stock_kline take for it; null when this plugin cannot quote it.
 * @property {string} type What it is, e.g. "A-share stock", "ETF", "Hong Kong stock".
 * @property {boolean} [listed] False for an entry Sina marks as no longer listed.
 */

/**
 * The entries of a suggest answer, in Sina's order, each security once. Entries too short to read are left out.
 * @param {string} text
 * @returns {Suggestion[]}
 */
export function parseSuggestResponse(text) {
  const line = /var\s+\w+\s*=\s*"([^"]*)"/.exec(text);
  if (!line) throw new SuggestFormatError('the answer holds no `var suggestvalue="…"` line');
  /** @type {Suggestion[]} */
  const results = [];
  const seen = new Set();
  for (const entry of (line[1] ?? '').split(';')) {
    const f = entry.split(',').map((field) => field.trim());
    const [matched = '', typeNumber = '', code = '', symbol = '', name = ''] = f;
    if (f.length < 5 || code === '' || (name === '' && matched === '')) continue;
    const quote = quoteCode(typeNumber, symbol);
    // One security can be listed under two types (11 and 111 are both A shares): keep its first entry.
    if (quote !== null && seen.has(quote)) continue;
    if (quote !== null) seen.add(quote);
    /** @type {Suggestion} */
    const suggestion = { name: name || matched, code, quote_code: quote, type: TYPES[typeNumber] ?? `Sina type ${typeNumber}` };
    if (f[8] === '0') suggestion.listed = false;
    results.push(suggestion);
  }
  return results;
}

/**
 * @param {string} type
 * @param {string} symbol
 */
function quoteCode(type, symbol) {
  if (/^(?:sh|sz|bj)\d{6}$/.test(symbol)) return symbol;
  if (type === '31' && /^\d{5}$/.test(symbol)) return `hk${symbol}`;
  if (type === '41' && /^[a-z][a-z0-9]*(?:\.[a-z]+)?$/i.test(symbol)) return `gb_${symbol.toLowerCase()}`;
  return null;
}

// @ts-check
/**
 * Reads the codes people and models write (600519, sh600519, 600519.SH, 00700.HK, AAPL) as the symbols Sina's
 * quote service answers to (sh600519, hk00700, gb_aapl). Pure functions, no I/O.
 */

/** @typedef {'cn' | 'hk' | 'us'} Market */

/**
 * @typedef {object} QuoteCode
 * @property {string} symbol Sina's symbol: sh600519, sz399001, bj430047, hk00700, gb_aapl.
 * @property {Market} market
 * @property {string} input The code as the caller wrote it.
 * @property {string} [assumed] Set when the exchange was inferred from a bare number: says how it was read.
 */

/** A code that cannot be read: the message says what to write instead. */
export class CodeError extends Error {
  name = 'CodeError';
}

/** @type {Record<'sh' | 'sz' | 'bj', string>} */
const EXCHANGES = { sh: 'Shanghai', sz: 'Shenzhen', bj: 'Beijing' };

const EXAMPLES =
  'write sh600519 or 600519 (Shanghai), sz000001 (Shenzhen), bj430047 (Beijing), 00700.HK (Hong Kong) or AAPL (US)';

/**
 * The exchange of a bare six-digit A-share code read as a stock, fund or bond: Beijing for 4xxxxx, 8xxxxx and
 * 92xxxx; Shanghai for 6xxxxx (main board and STAR), 9xxxxx (B shares), 5xxxxx (funds) and 11xxxx (bonds);
 * Shenzhen for the rest (00/30 stocks, 20 B shares, 1x funds and bonds).
 * @param {string} digits
 * @returns {'sh' | 'sz' | 'bj'}
 */
export function exchangeOfStockCode(digits) {
  if (/^(?:92|4|8)/.test(digits)) return 'bj';
  if (/^(?:6|9|5|11)/.test(digits)) return 'sh';
  return 'sz';
}

/**
 * The exchange of a bare six-digit code read as an index: 000xxx are Shanghai's (000001 上证指数, 000300 沪深300,
 * 000688 科创50), 399xxx Shenzhen's, 899xxx Beijing's; anything else is read as a stock code.
 * @param {string} digits
 * @returns {'sh' | 'sz' | 'bj'}
 */
export function exchangeOfIndexCode(digits) {
  if (digits.startsWith('000')) return 'sh';
  if (digits.startsWith('399')) return 'sz';
  if (digits.startsWith('899')) return 'bj';
  return exchangeOfStockCode(digits);
}

/**
 * Reads one code. A bare six-digit number is ambiguous — 000001 is both 平安银行 (sz000001) and 上证指数
 * (sh000001) — so `kind` decides: `stock` (stock_quote, stock_kline) reads it as a stock, `index` (index_quote)
 * as an index, and the answer says which it chose in `assumed`.
 * @param {unknown} input
 * @param {'stock' | 'index'} [kind]
 * @returns {QuoteCode}
 */
export function readQuoteCode(input, kind = 'stock') {
  const raw = String(input ?? '').trim();
  const text = raw.replace(/\s+/g, '');
  if (text === '') throw new CodeError(`an empty code: ${EXAMPLES}`);
  let m;
  if ((m = /^(sh|sz|bj)(\d{6})$/i.exec(text))) return china(/** @type {'sh'|'sz'|'bj'} */ (m[1]?.toLowerCase()), m[2] ?? '', raw);
  if ((m = /^(\d{6})\.(sh|ss|sz|bj)$/i.exec(text))) {
    const suffix = m[2]?.toLowerCase();
    return china(suffix === 'ss' ? 'sh' : /** @type {'sh'|'sz'|'bj'} */ (suffix), m[1] ?? '', raw);
  }
  if ((m = /^(\d{6})$/.exec(text))) {
    const digits = m[1] ?? '';
    const exchange = kind === 'index' ? exchangeOfIndexCode(digits) : exchangeOfStockCode(digits);
    const code = china(exchange, digits, raw);
    return { ...code, assumed: assumption(digits, code.symbol, kind) };
  }
  if ((m = /^(?:rt_)?hk(\d{1,5})$/i.exec(text) ?? /^(\d{1,5})\.hk$/i.exec(text) ?? /^(\d{1,5})$/.exec(text))) {
    return { symbol: `hk${(m[1] ?? '').padStart(5, '0')}`, market: 'hk', input: raw };
  }
  if ((m = /^gb_([a-z][a-z0-9]*(?:\.[a-z]+)?)$/i.exec(text) ?? /^([a-z]{1,5}(?:\.[a-z])?)(?:\.us)?$/i.exec(text))) {
    return { symbol: `gb_${(m[1] ?? '').toLowerCase()}`, market: 'us', input: raw };
  }
  if (/[\u3400-\u9fff]/.test(text)) throw new CodeError(`"${raw}" looks like a name, not a code: find its code with search_stock`);
  throw new CodeError(`cannot read "${raw}" as a code: ${EXAMPLES}, or find the code with search_stock`);
}

/**
 * @param {'sh' | 'sz' | 'bj'} exchange
 * @param {string} digits
 * @param {string} input
 * @returns {QuoteCode}
 */
function china(exchange, digits, input) {
  return { symbol: `${exchange}${digits}`, market: 'cn', input };
}

/**
 * @param {string} digits
 * @param {string} symbol
 * @param {'stock' | 'index'} kind
 */
function assumption(digits, symbol, kind) {
  const exchange = EXCHANGES[/** @type {'sh'|'sz'|'bj'} */ (symbol.slice(0, 2))];
  const read = `read ${digits} as ${symbol} (${exchange})`;
  if (kind === 'stock' && digits.startsWith('000')) return `${read}; for the Shanghai index of that number write sh${digits} or use index_quote`;
  if (kind === 'index' && digits.startsWith('000')) return `${read}, an index; for the Shenzhen stock of that number write sz${digits} or use stock_quote`;
  return read;
}

// @ts-check
/**
 * Parses the answers of Sina's quote service (`hq.sinajs.cn/list=…`): one JavaScript line per symbol,
 * `var hq_str_sh600519="贵州茅台,1700.000,…";`, GBK-encoded (the caller decodes). An empty string means Sina knows
 * no such symbol. Field layouts, by market:
 *
 * - Shanghai, Shenzhen and Beijing (sh/sz/bj, stocks, funds and indices), at least 32 fields: 0 name, 1 open,
 *   2 previous close, 3 price, 4 high, 5 low, 6 bid, 7 ask, 8 volume, 9 amount (yuan), 10–19 five bid levels as
 *   volume,price pairs, 20–29 five ask levels, 30 date (YYYY-MM-DD), 31 time (HH:MM:SS), then a status and, lately,
 *   a trailing comma.
 * - Hong Kong (hk/rt_hk), at least 19 fields: 0 English name, 1 Chinese name, 2 open, 3 previous close, 4 high,
 *   5 low, 6 price, 7 change, 8 change %, 9 bid, 10 ask, 11 amount (HKD), 12 volume, 13–14 ratios, 15 52-week
 *   high, 16 52-week low, 17 date (YYYY/MM/DD), 18 time (HH:MM or HH:MM:SS).
 * - US (gb_), at least 27 fields: 0 name, 1 price, 2 change %, 3 date and time in Beijing time, 4 change, 5 open,
 *   6 high, 7 low, 8 52-week high, 9 52-week low, 10 volume, 12 market capitalisation, 25 the time in New York
 *   as text ("Feb 11 03:17PM EST"), 26 previous close.
 *
 * Pure functions, no I/O.
 */

/** A line whose fields are not what its market's layout says: the message names the symbol and the field. */
export class QuoteFormatError extends Error {
  name = 'QuoteFormatError';
}

/**
 * @typedef {object} BookLevel
 * @property {number} price
 * @property {number} volume
 */

/**
 * @typedef {object} Quote
 * @property {string} code Sina's symbol, e.g. sh600519.
 * @property {string} name
 * @property {string} [name_en]
 * @property {'SSE' | 'SZSE' | 'BSE' | 'HKEX' | 'US'} exchange
 * @property {'CNY' | 'HKD' | 'USD'} currency
 * @property {number | null} price Null when nothing traded today.
 * @property {number | null} change
 * @property {number | null} change_percent
 * @property {number | null} open
 * @property {number | null} prev_close
 * @property {number | null} high
 * @property {number | null} low
 * @property {number} volume Shares traded today.
 * @property {number | null} amount Turnover in the quote's currency.
 * @property {BookLevel[]} [bids] Best bid first (A shares).
 * @property {BookLevel[]} [asks] Best ask first (A shares).
 * @property {number | null} [high_52w]
 * @property {number | null} [low_52w]
 * @property {number | null} [market_cap]
 * @property {string} [date]
 * @property {string} [time]
 * @property {string | null} datetime ISO 8601 with offset.
 * @property {string} [market_time] The quote's time where it trades, as Sina writes it (US).
 * @property {boolean} trading False when nothing traded today: suspended, or before the first trade.
 * @property {string} [note]
 */

const LINE = /var\s+hq_str_([\w$.]+)\s*=\s*"([^"\r\n]*)"/g;

/**
 * Every `var hq_str_X="…"` line of an answer, keyed by symbol (lower case, as requested). Other text is ignored.
 * @param {string} text
 * @returns {Map<string, string>}
 */
export function splitQuoteResponse(text) {
  /** @type {Map<string, string>} */
  const lines = new Map();
  for (const match of text.matchAll(LINE)) lines.set((match[1] ?? '').toLowerCase(), match[2] ?? '');
  return lines;
}

/**
 * One symbol's line as a quote; null when the line is empty (Sina knows no such symbol).
 * @param {string} symbol Sina's symbol, as in the line.
 * @param {string} payload What stands between the quotes.
 * @returns {Quote | null}
 */
export function parseQuote(symbol, payload) {
  if (payload.trim() === '') return null;
  const fields = payload.split(',');
  if (/^(?:sh|sz|bj)\d{6}$/.test(symbol)) return chinaQuote(symbol, fields);
  if (/^(?:rt_)?hk\w+$/.test(symbol)) return hongKongQuote(symbol, fields);
  if (/^gb_[\w$.]+$/.test(symbol)) return usQuote(symbol, fields);
  throw new QuoteFormatError(`${symbol}: not a market this plugin reads (sh, sz, bj, hk or gb_ symbols)`);
}

/**
 * @param {string} symbol
 * @param {string[]} f
 * @returns {Quote}
 */
function chinaQuote(symbol, f) {
  const read = reader(symbol, f, 32);
  const prevClose = read.number(2, 'previous close');
  const price = read.number(3, 'price');
  const isIndex = isChinaIndex(symbol);
  let volume = read.number(8, 'volume');
  // Shanghai's indices count volume in lots of 100 shares (their amount divided by volume is ~100× a share
  // price); everything else, Shenzhen's indices included, counts shares. Report shares throughout.
  if (isIndex && symbol.startsWith('sh')) volume *= 100;
  const open = read.number(1, 'open');
  const date = read.text(30, 'date', /^\d{4}-\d{2}-\d{2}$/);
  const time = read.text(31, 'time', /^\d{2}:\d{2}:\d{2}$/);
  // Before the first trade (and all day for a suspended security) Sina writes 0.000 for the open and the price;
  // Shanghai's indices write the previous close as the price until they open.
  const trading = price > 0 && open > 0;
  /** @type {Quote} */
  const quote = {
    code: symbol,
    name: read.name(0),
    exchange: symbol.startsWith('sh') ? 'SSE' : symbol.startsWith('sz') ? 'SZSE' : 'BSE',
    currency: 'CNY',
    ...movement(trading ? price : null, prevClose > 0 ? prevClose : null),
    open: positive(open),
    high: positive(read.number(4, 'high')),
    low: positive(read.number(5, 'low')),
    volume,
    amount: read.number(9, 'amount'),
    date,
    time,
    datetime: `${date}T${time}+08:00`,
    trading,
  };
  if (!isIndex) {
    quote.bids = book(read, 10);
    quote.asks = book(read, 20);
  }
  if (!trading) quote.note = 'no trade today: the security is suspended or has not traded yet; prev_close is its last close';
  return quote;
}

/**
 * @param {string} symbol
 * @param {string[]} f
 * @returns {Quote}
 */
function hongKongQuote(symbol, f) {
  const read = reader(symbol, f, 19);
  const price = read.number(6, 'price');
  const prevClose = read.number(3, 'previous close');
  const date = read.text(17, 'date', /^\d{4}\/\d{2}\/\d{2}$/).replaceAll('/', '-');
  const rawTime = read.text(18, 'time', /^\d{2}:\d{2}(?::\d{2})?$/);
  const time = rawTime.length === 5 ? `${rawTime}:00` : rawTime;
  const english = (f[0] ?? '').trim();
  const trading = price > 0;
  /** @type {Quote} */
  const quote = {
    code: symbol,
    name: (f[1] ?? '').trim() || read.name(0),
    ...(english && english !== 'NULL' ? { name_en: english } : {}),
    exchange: 'HKEX',
    currency: 'HKD',
    ...movement(trading ? price : null, prevClose > 0 ? prevClose : null),
    open: positive(read.number(2, 'open')),
    high: positive(read.number(4, 'high')),
    low: positive(read.number(5, 'low')),
    volume: read.number(12, 'volume'),
    amount: read.number(11, 'amount'),
    high_52w: positive(read.number(15, '52-week high')),
    low_52w: positive(read.number(16, '52-week low')),
    date,
    time,
    datetime: `${date}T${time}+08:00`,
    trading,
  };
  if (!trading) quote.note = 'no trade today: the security is suspended or has not traded yet; prev_close is its last close';
  return quote;
}

/**
 * @param {string} symbol
 * @param {string[]} f
 * @returns {Quote}
 */
function usQuote(symbol, f) {
  const read = reader(symbol, f, 27);
  const price = read.number(1, 'price');
  const prevClose = read.number(26, 'previous close');
  // Field 3 is Beijing time (a 15:17 New York close reads 04:17 the next morning), hence the +08:00.
  const beijing = read.text(3, 'date and time', /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  const trading = price > 0;
  /** @type {Quote} */
  const quote = {
    code: symbol,
    name: read.name(0),
    exchange: 'US',
    currency: 'USD',
    ...movement(trading ? price : null, prevClose > 0 ? prevClose : null),
    open: positive(read.number(5, 'open')),
    high: positive(read.number(6, 'high')),
    low: positive(read.number(7, 'low')),
    volume: read.number(10, 'volume'),
    amount: null,
    high_52w: positive(read.number(8, '52-week high')),
    low_52w: positive(read.number(9, '52-week low')),
    market_cap: positive(read.number(12, 'market capitalisation')),
    datetime: `${beijing.replace(' ', 'T')}+08:00`,
    market_time: (f[25] ?? '').trim(),
    trading,
  };
  if (!trading) quote.note = 'no trade: prev_close is the last close';
  return quote;
}

/** Sina's A-share index symbols: sh000xxx, sz399xxx, bj899xxx. @param {string} symbol */
function isChinaIndex(symbol) {
  return /^(?:sh000|sz399|bj899)\d{3}$/.test(symbol);
}

/**
 * Price, previous close, and the change between them, rounded the way quotes are shown (change to 4 decimals,
 * percent to 2); unknown when either side is.
 * @param {number | null} price
 * @param {number | null} prevClose
 */
function movement(price, prevClose) {
  if (price === null || prevClose === null) return { price, change: null, change_percent: null, prev_close: prevClose };
  const change = round(price - prevClose, 4);
  return { price, change, change_percent: round(((price - prevClose) / prevClose) * 100, 2), prev_close: prevClose };
}

/**
 * @param {ReturnType<typeof reader>} read
 * @param {number} from First field of five volume,price pairs.
 * @returns {BookLevel[]}
 */
function book(read, from) {
  /** @type {BookLevel[]} */
  const levels = [];
  for (let i = 0; i < 5; i++) {
    const volume = read.number(from + 2 * i, 'order book volume');
    const price = read.number(from + 2 * i + 1, 'order book price');
    if (price > 0) levels.push({ price, volume });
  }
  return levels;
}

/**
 * Field access that names what is wrong: too few fields, or a field that is not a number where one belongs.
 * @param {string} symbol
 * @param {string[]} fields
 * @param {number} minimum
 */
function reader(symbol, fields, minimum) {
  if (fields.length < minimum) {
    throw new QuoteFormatError(`${symbol}: the line has ${fields.length} fields, the layout needs at least ${minimum}`);
  }
  return {
    /** @param {number} i @param {string} what */
    number(i, what) {
      const value = (fields[i] ?? '').trim();
      if (!/^[-+]?(?:\d+\.?\d*|\.\d+)$/.test(value)) throw new QuoteFormatError(`${symbol}: field ${i} (${what}) is "${value}", not a number`);
      return Number(value);
    },
    /** @param {number} i @param {string} what @param {RegExp} shape */
    text(i, what, shape) {
      const value = (fields[i] ?? '').trim();
      if (!shape.test(value)) throw new QuoteFormatError(`${symbol}: field ${i} (${what}) is "${value}"`);
      return value;
    },
    /** @param {number} i */
    name(i) {
      const value = (fields[i] ?? '').trim();
      if (value === '') throw new QuoteFormatError(`${symbol}: the name (field ${i}) is empty`);
      return value;
    },
  };
}

/** Sina writes 0.000 for a price that does not exist yet (no trade today). @param {number} n */
function positive(n) {
  return n > 0 ? n : null;
}

/** @param {number} n @param {number} digits */
function round(n, digits) {
  const factor = 10 ** digits;
  return Math.round(n * factor) / factor;
}

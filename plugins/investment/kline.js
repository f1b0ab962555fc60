// @ts-check
/**
 * Parses the answers of Sina's k-line service (`CN_MarketData.getKLineData?symbol=…&scale=…&ma=no&datalen=…`):
 * an array of bars, `[{"day":"2019-12-27","open":"38.100","high":"38.500","low":"37.800","close":"37.860",
 * "volume":"35953534"}]`, oldest first, numbers as strings; minute bars carry a time in `day`. For years the
 * keys came unquoted (`[{day:"2019-12-27",open:"38.100",…}]`, JavaScript rather than JSON); both are read. A
 * symbol Sina has no bars for answers `null` or `[]`. Pure functions, no I/O.
 */

/** Sina's `scale` (minutes per bar; 240 is a trading day) for each period the tool offers. */
export const PERIODS = Object.freeze({
  daily: 240,
  weekly: 1200,
  monthly: 7200,
  '5min': 5,
  '15min': 15,
  '30min': 30,
  '60min': 60,
});

/** An answer that is not the array of bars it should be. */
export class KlineFormatError extends Error {
  name = 'KlineFormatError';
}

/** Sina's own error object, e.g. `{"__ERROR":3,"__ERRORMSG":"Service not valid"}`. */
export class KlineUpstreamError extends Error {
  name = 'KlineUpstreamError';
}

/**
 * @typedef {object} Bar
 * @property {string} date YYYY-MM-DD, or YYYY-MM-DD HH:MM:SS for minute bars (Beijing time).
 * @property {number} open
 * @property {number} high
 * @property {number} low
 * @property {number} close
 * @property {number} volume Shares.
 */

/**
 * The bars of an answer, oldest first; empty when Sina has none for the symbol.
 * @param {string} text
 * @returns {Bar[]}
 */
export function parseKlineResponse(text) {
  const body = text.trim();
  if (body === '' || body === 'null') return [];
  const data = parseLenient(body);
  if (data && typeof data === 'object' && !Array.isArray(data) && '__ERROR' in data) {
    const error = /** @type {{ __ERROR: unknown, __ERRORMSG?: unknown }} */ (data);
    throw new KlineUpstreamError(`error ${String(error.__ERROR)}${error.__ERRORMSG ? `: ${String(error.__ERRORMSG)}` : ''}`);
  }
  if (!Array.isArray(data)) throw new KlineFormatError(`the answer is not an array of bars: ${excerpt(body)}`);
  return data.map(bar);
}

/**
 * JSON, or the older JavaScript object literal with bare keys.
 * @param {string} body
 * @returns {unknown}
 */
function parseLenient(body) {
  try {
    return JSON.parse(body);
  } catch {
    // Quote bare keys: `{day:` and `,open:` become `{"day":` and `,"open":`. Values are quoted strings whose
    // contents (dates, times, numbers) never hold a `{` or `,` followed by a key and a colon.
    const quoted = body.replace(/([{,]\s*)([A-Za-z_$][\w$]*)\s*:/g, '$1"$2":');
    try {
      return JSON.parse(quoted);
    } catch {
      throw new KlineFormatError(`the answer is neither JSON nor the older bare-key form: ${excerpt(body)}`);
    }
  }
}

/**
 * @param {unknown} row
 * @param {number} index
 * @returns {Bar}
 */
function bar(row, index) {
  if (!row || typeof row !== 'object') throw new KlineFormatError(`bar ${index} is not an object`);
  const r = /** @type {Record<string, unknown>} */ (row);
  const date = typeof r.day === 'string' ? r.day.trim() : '';
  if (!/^\d{4}-\d{2}-\d{2}(?: \d{2}:\d{2}(?::\d{2})?)?$/.test(date)) throw new KlineFormatError(`bar ${index}: "day" is ${JSON.stringify(r.day)}`);
  /** @param {string} key */
  const number = (key) => {
    const value = r[key];
    const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
    if (!Number.isFinite(n)) throw new KlineFormatError(`bar ${index} (${date}): "${key}" is ${JSON.stringify(value)}`);
    return n;
  };
  return { date, open: number('open'), high: number('high'), low: number('low'), close: number('close'), volume: number('volume') };
}

/** @param {string} text */
function excerpt(text) {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

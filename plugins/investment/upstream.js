// @ts-check
/**
 * Where Sina's three services live and how to ask them. The base URLs come from the plugin's settings
 * (`plugins.investment` in config.json) so a mirror, or a test's local stub, can stand in; every request carries
 * the Referer header Sina's quote service requires, a timeout, and fails with a message the model can act on.
 */
import { PluginToolError } from 'pincer/plugin';

/** The settings this plugin reads, with the values used when config.json leaves them out. */
export const DEFAULTS = Object.freeze({
  quote_base_url: 'https://hq.sinajs.cn',
  search_base_url: 'https://suggest3.sinajs.cn',
  kline_base_url: 'https://money.finance.sina.com.cn',
  timeout_ms: 10_000,
});

/** Sina's quote service answers 403 to requests that do not come from its own pages. */
export const REFERER = 'https://finance.sina.com.cn';

/**
 * @typedef {object} Endpoints
 * @property {string} quote Base URL of the quote service, without a trailing slash.
 * @property {string} search
 * @property {string} kline
 * @property {number} timeoutMs
 */

/**
 * The plugin's settings, checked: a bad value is the owner's to fix, so the message names the key.
 * @param {Readonly<Record<string, unknown>>} config
 * @returns {Endpoints}
 */
export function endpoints(config) {
  return {
    quote: baseUrl(config, 'quote_base_url'),
    search: baseUrl(config, 'search_base_url'),
    kline: baseUrl(config, 'kline_base_url'),
    timeoutMs: timeout(config),
  };
}

/**
 * Security: symbols come from readQuoteCode (letters, digits, `_` and `.` only), so nothing a caller writes reaches
 * the URL unchecked; the search query is percent-encoded.
 * @param {string} base
 * @param {string[]} symbols
 */
export function quoteUrl(base, symbols) {
  return `${base}/list=${symbols.join(',')}`;
}

/** @param {string} base @param {string} query */
export function searchUrl(base, query) {
  return `${base}/suggest/type=&key=${encodeURIComponent(query)}`;
}

/** @param {string} base @param {string} symbol @param {number} scale @param {number} count */
export function klineUrl(base, symbol, scale, count) {
  return `${base}/quotes_service/api/json_v2.php/CN_MarketData.getKLineData?symbol=${symbol}&scale=${scale}&ma=no&datalen=${count}`;
}

/**
 * GETs one of Sina's services and decodes the body (`gbk` for the quote and search services).
 * @param {import('pincer/plugin').PluginContext} ctx
 * @param {string} url
 * @param {{ service: string, encoding: string, timeoutMs: number }} how `service` names it in messages ("quote").
 * @returns {Promise<string>}
 */
export async function getText(ctx, url, { service, encoding, timeoutMs }) {
  const where = `Sina's ${service} service (${new URL(url).host})`;
  let response;
  try {
    response = await ctx.http.fetch(url, { headers: { Referer: REFERER }, timeoutMs });
  } catch (error) {
    // A cancelled call is the gateway's to report, not an upstream failure.
    if (ctx.signal.aborted) throw error;
    throw new PluginToolError(`could not reach ${where}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (response.status !== 200) {
    const later = response.status === 429 || response.status >= 500 ? ': it is unavailable for now, try again in a minute' : '';
    throw new PluginToolError(`${where} answered HTTP ${response.status}${later}`);
  }
  return response.text(encoding);
}

/**
 * @param {Readonly<Record<string, unknown>>} config
 * @param {'quote_base_url' | 'search_base_url' | 'kline_base_url'} key
 */
function baseUrl(config, key) {
  const value = config[key] ?? DEFAULTS[key];
  let url;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.search || url.hash || url.username || url.password) {
    throw new PluginToolError(
      `the setting plugins.investment.${key} must be an http(s) URL without query or credentials, such as ${DEFAULTS[key]}; it is ${JSON.stringify(value)}`,
    );
  }
  return url.href.replace(/\/+$/, '');
}

/** @param {Readonly<Record<string, unknown>>} config */
function timeout(config) {
  const value = config.timeout_ms ?? DEFAULTS.timeout_ms;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1000 || value > 60_000) {
    throw new PluginToolError(`the setting plugins.investment.timeout_ms must be a whole number of milliseconds from 1000 to 60000; it is ${JSON.stringify(value)}`);
  }
  return value;
}

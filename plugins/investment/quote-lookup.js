// @ts-check
/**
 * Quotes for a list of codes, in one request to Sina's quote service. Each code is read, then its line parsed; a code
 * that cannot be read, that Sina does not know, or whose line cannot be parsed is reported on its own, so one bad
 * code does not cost the others their quotes. Only when nothing at all could be quoted is the call an error.
 */
import { PluginToolError } from 'pincer/plugin';
import { CodeError, readQuoteCode } from './codes.js';
import { parseQuote, QuoteFormatError, splitQuoteResponse } from './quotes.js';
import { endpoints, getText, quoteUrl } from './upstream.js';

/**
 * @typedef {import('./quotes.js').Quote & { input?: string, assumed?: string }} AnsweredQuote
 * @typedef {{ code: string, message: string }} CodeProblem
 */

/**
 * @param {import('pincer/plugin').PluginContext} ctx
 * @param {readonly unknown[]} inputs Codes as the caller wrote them.
 * @param {'stock' | 'index'} kind How a bare six-digit number is read (see codes.js).
 * @returns {Promise<{ quotes: AnsweredQuote[], errors?: CodeProblem[] }>}
 */
export async function lookUpQuotes(ctx, inputs, kind) {
  const settings = endpoints(ctx.config);
  /** @type {CodeProblem[]} */
  const errors = [];
  /** @type {Map<string, import('./codes.js').QuoteCode>} */
  const codes = new Map();
  for (const input of inputs) {
    try {
      const code = readQuoteCode(input, kind);
      if (!codes.has(code.symbol)) codes.set(code.symbol, code);
    } catch (error) {
      if (!(error instanceof CodeError)) throw error;
      errors.push({ code: String(input), message: error.message });
    }
  }
  if (codes.size === 0) throw new PluginToolError(errors.map((e) => e.message).join('; ') || 'no codes given');

  const text = await getText(ctx, quoteUrl(settings.quote, [...codes.keys()]), { service: 'quote', encoding: 'gbk', timeoutMs: settings.timeoutMs });
  const lines = splitQuoteResponse(text);
  /** @type {AnsweredQuote[]} */
  const quotes = [];
  for (const code of codes.values()) {
    const payload = lines.get(code.symbol);
    if (payload === undefined) {
      errors.push({ code: code.input, message: `Sina's answer held no line for ${code.symbol}; try again` });
      continue;
    }
    try {
      const quote = parseQuote(code.symbol, payload);
      if (quote) quotes.push(answered(quote, code));
      else errors.push({ code: code.input, message: noQuote(code) });
    } catch (error) {
      if (!(error instanceof QuoteFormatError)) throw error;
      errors.push({ code: code.input, message: `Sina's line could not be read (${error.message})` });
    }
  }
  if (quotes.length === 0) throw new PluginToolError(errors.map((e) => e.message).join('; '));
  return errors.length > 0 ? { quotes, errors } : { quotes };
}

/**
 * The message for a code Sina answers with an empty line.
 * @param {import('./codes.js').QuoteCode} code
 */
export function noQuote(code) {
  const examples = { cn: 'e.g. sh600519 or sz000001', hk: 'e.g. 00700.HK', us: 'e.g. AAPL' }[code.market];
  return `no quote for ${code.symbol}: check the code, ${examples}, or use search_stock`;
}

/**
 * The quote with how the caller's code was read, when that is not plain from the code itself.
 * @param {import('./quotes.js').Quote} quote
 * @param {import('./codes.js').QuoteCode} code
 * @returns {AnsweredQuote}
 */
function answered(quote, code) {
  const written = code.input.toLowerCase() === code.symbol ? {} : { input: code.input };
  return { ...written, ...quote, ...(code.assumed ? { assumed: code.assumed } : {}) };
}

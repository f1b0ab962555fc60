import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { PluginDefinition, PluginTool } from '../../../server/plugin-api.js';

/**
 * The investment plugin is JavaScript that runs as is in its own process, and the repository's tsconfig does not
 * read JavaScript: the tests load its modules by URL and name here the shapes they rely on. Its `pincer/plugin` resolves
 * as in the plugin's own process, through plugins/node_modules/pincer to the built API (npm test builds first).
 */

export const PLUGIN_DIR = fileURLToPath(new URL('../../../plugins/investment/', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

export async function loadPluginModule<T>(file: string): Promise<T> {
  return (await import(pathToFileURL(join(PLUGIN_DIR, file)).href)) as T;
}

/** A recorded response, as the bytes Sina sent. */
export function fixtureBytes(name: string): Buffer {
  return readFileSync(join(FIXTURES, name));
}

/** A recorded response decoded the way the plugin decodes it (GBK for quote and search answers). */
export function fixtureText(name: string): string {
  return new TextDecoder(name.endsWith('.gbk') ? 'gbk' : 'utf-8').decode(fixtureBytes(name));
}

type ErrorClass = new (message: string) => Error;

export interface BookLevel {
  price: number;
  volume: number;
}

export interface Quote {
  code: string;
  name: string;
  name_en?: string;
  exchange: string;
  currency: string;
  price: number | null;
  change: number | null;
  change_percent: number | null;
  open: number | null;
  prev_close: number | null;
  high: number | null;
  low: number | null;
  volume: number;
  amount: number | null;
  bids?: BookLevel[];
  asks?: BookLevel[];
  high_52w?: number | null;
  low_52w?: number | null;
  market_cap?: number | null;
  date?: string;
  time?: string;
  datetime: string | null;
  market_time?: string;
  trading: boolean;
  note?: string;
  input?: string;
  assumed?: string;
}

export interface QuoteCode {
  symbol: string;
  market: 'cn' | 'hk' | 'us';
  input: string;
  assumed?: string;
}

export interface CodesModule {
  readQuoteCode(input: unknown, kind?: 'stock' | 'index'): QuoteCode;
  CodeError: ErrorClass;
}

export interface QuotesModule {
  splitQuoteResponse(text: string): Map<string, string>;
  parseQuote(symbol: string, payload: string): Quote | null;
  QuoteFormatError: ErrorClass;
}

export interface Suggestion {
  name: string;
  code: string;
  quote_code: string | null;
  type: string;
  listed?: boolean;
}

export interface SuggestModule {
  parseSuggestResponse(text: string): Suggestion[];
  SuggestFormatError: ErrorClass;
}

export interface Bar {
  date: string;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

export interface KlineModule {
  parseKlineResponse(text: string): Bar[];
  PERIODS: Readonly<Record<string, number>>;
  KlineFormatError: ErrorClass;
  KlineUpstreamError: ErrorClass;
}

export interface UpstreamModule {
  DEFAULTS: Readonly<Record<string, string | number>>;
  REFERER: string;
}

export interface QuoteAnswer {
  quotes: Quote[];
  errors?: { code: string; message: string }[];
}

export interface SearchAnswer {
  query: string;
  results: Suggestion[];
  note?: string;
}

export interface KlineAnswer {
  code: string;
  assumed?: string;
  period: string;
  bars: Bar[];
  summary: {
    from: string;
    to: string;
    bars: number;
    high: number;
    low: number;
    first_close: number;
    last_close: number;
    change: number;
    change_percent: number | null;
  };
}

export interface EntryModule {
  default: PluginDefinition;
}

export type Tool = PluginTool<Record<string, unknown>, unknown>;

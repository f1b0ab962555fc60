import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PluginContext, PluginFetchInit, PluginResponse } from '../../../server/plugin-api.js';
import { fixtureBytes } from './plugin-modules.js';

/**
 * A stand-in for Sina's three services on 127.0.0.1, replaying recorded responses byte for byte. Each service
 * sits under its own path prefix (/hq, /suggest3, /money), so a test proves each configured base URL is the one
 * used. Like Sina's quote service, it answers 403 to a request without its Referer, and an empty line for a
 * symbol it holds no recording of.
 */

export type Service = 'hq' | 'suggest3' | 'money';

export interface RecordedRequest {
  service: Service | 'unknown';
  url: string;
  headers: IncomingHttpHeaders;
}

export interface SinaStubOptions {
  /** Files of recorded `var hq_str_…` lines; each line is served for its symbol. */
  quotes?: string[];
  /** Search key → recorded answer. */
  suggest?: Record<string, string>;
  /** `symbol:scale` → recorded answer. */
  kline?: Record<string, string>;
}

export interface SinaStub {
  origin: string;
  /** The plugin settings that point every service at this stub. */
  config: { quote_base_url: string; search_base_url: string; kline_base_url: string };
  requests: RecordedRequest[];
  /** Makes a service answer this HTTP status (with an empty body) until cleared with undefined. */
  failWith(service: Service, status: number | undefined): void;
  close(): Promise<void>;
}

const SINA_REFERER = 'https://finance.sina.com.cn';

export const DEFAULT_STUB: Required<SinaStubOptions> = {
  quotes: ['hq-a-shares.gbk', 'hq-indices.gbk', 'hq-hk.gbk', 'hq-us.gbk'],
  suggest: { gzmt: 'suggest-gzmt.gbk', lx: 'suggest-lx.gbk', 腾讯: 'suggest-tencent.gbk' },
  kline: {
    'sh600036:240': 'kline-sh600036-daily.json',
    'sh600036:60': 'kline-sh600036-60min.json',
    'sh600103:240': 'kline-sh600103-daily-bare-keys.txt',
    'sh600000:240': 'kline-error.json',
  },
};

export async function startSinaStub(options: SinaStubOptions = {}): Promise<SinaStub> {
  const lines = new Map<string, Buffer>();
  for (const file of options.quotes ?? DEFAULT_STUB.quotes) {
    for (const line of splitLines(fixtureBytes(file))) {
      // The symbol is ASCII; the GBK name after it stays as recorded.
      const symbol = /^var hq_str_([\w$.]+)=/.exec(line.toString('latin1'))?.[1];
      if (symbol) lines.set(symbol, line);
    }
  }
  const suggest = options.suggest ?? DEFAULT_STUB.suggest;
  const kline = options.kline ?? DEFAULT_STUB.kline;
  const failing = new Map<Service, number>();
  const requests: RecordedRequest[] = [];

  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const service = (['hq', 'suggest3', 'money'] as const).find((s) => url.startsWith(`/${s}/`)) ?? 'unknown';
    requests.push({ service, url, headers: req.headers });
    const send = (status: number, body: Buffer | string, type = 'text/plain') => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    if (service === 'unknown') return send(404, 'not found');
    if (failing.has(service)) return send(failing.get(service)!, '');
    if (service === 'hq') {
      if (!req.headers.referer?.startsWith(SINA_REFERER)) return send(403, 'Forbidden');
      const list = /^\/hq\/list=([^?]*)/.exec(url)?.[1];
      if (list === undefined) return send(404, 'not found');
      const body = list
        .split(',')
        .filter(Boolean)
        .map((symbol) => lines.get(symbol) ?? Buffer.from(`var hq_str_${symbol}="";\n`, 'latin1'));
      return send(200, Buffer.concat(body), 'application/javascript; charset=GBK');
    }
    if (service === 'suggest3') {
      const key = /^\/suggest3\/suggest\/type=[^&]*&key=([^&]*)/.exec(url)?.[1];
      if (key === undefined) return send(404, 'not found');
      return send(200, fixtureBytes(suggest[decodeURIComponent(key)] ?? 'suggest-empty.gbk'), 'application/javascript; charset=GBK');
    }
    const query = new URL(url, 'http://stub').searchParams;
    if (!url.startsWith('/money/quotes_service/api/json_v2.php/CN_MarketData.getKLineData?')) return send(404, 'not found');
    const file = kline[`${query.get('symbol')}:${query.get('scale')}`] ?? 'kline-unknown.txt';
    return send(200, fixtureBytes(file), 'application/json; charset=utf-8');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    config: { quote_base_url: `${origin}/hq`, search_base_url: `${origin}/suggest3`, kline_base_url: `${origin}/money` },
    requests,
    failWith: (service, status) => (status === undefined ? failing.delete(service) : failing.set(service, status)),
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

function splitLines(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  // 0x0A never occurs inside a GBK character (its trail bytes are 0x40 and up), so this split is safe.
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, start)) {
    out.push(bytes.subarray(start, i + 1));
    start = i + 1;
  }
  if (start < bytes.length) out.push(bytes.subarray(start));
  return out;
}

export interface FakeContext {
  ctx: PluginContext;
  /** Every URL the plugin asked for, including the ones refused. */
  attempted: string[];
}

/**
 * What a handler gets from the plugin host, with an HTTP client that only reaches 127.0.0.1: a request anywhere else
 * is recorded and refused, so no test can reach Sina itself.
 */
export function fakeContext(config: Record<string, unknown>): FakeContext {
  const attempted: string[] = [];
  const controller = new AbortController();
  const ctx: PluginContext = {
    signal: controller.signal,
    callId: 'c_test',
    client: 'test',
    config,
    logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    http: {
      fetch: async (url: string, init: PluginFetchInit = {}): Promise<PluginResponse> => {
        attempted.push(url);
        if (new URL(url).hostname !== '127.0.0.1') throw new Error(`the test refused ${new URL(url).host}: only the local stub may be reached`);
        const response = await fetch(url, { method: init.method ?? 'GET', headers: init.headers, signal: AbortSignal.timeout(init.timeoutMs ?? 5000) });
        const body = new Uint8Array(await response.arrayBuffer());
        return {
          status: response.status,
          url: response.url,
          headers: Object.fromEntries(response.headers),
          body,
          text: (encoding = 'utf-8') => new TextDecoder(encoding).decode(body),
          json: <T>() => JSON.parse(new TextDecoder().decode(body)) as T,
        };
      },
    },
  };
  return { ctx, attempted };
}

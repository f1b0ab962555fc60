import type { LookupAddress, LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';

/**
 * The transport under NetGuard (net.ts): a request that can only connect to the addresses the guard checked, the
 * time and cancellation limits around each step, and network errors told in words.
 */

/** The port a URL connects to, its scheme's default when none is written. */
export function portOf(url: URL): number {
  return url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
}

/** The host name or address, an IPv6 address without its brackets. */
export function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** A lookup that can only answer the addresses already checked: DNS rebinding cannot switch the connection. */
function pinnedLookup(addresses: string[]) {
  const entries: LookupAddress[] = addresses.map((address) => ({ address, family: isIP(address) }));
  return (
    _hostname: string,
    options: LookupOptions,
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const usable = family === 4 || family === 6 ? entries.filter((e) => e.family === family) : entries;
    const first = usable[0];
    if (!first) {
      callback(Object.assign(new Error(`no IPv${String(family)} address was checked`), { code: 'ENOTFOUND' }), '', 0);
      return;
    }
    if (options.all) callback(null, usable);
    else callback(null, first.address, first.family);
  };
}

/** One HTTP(S) request connected only to `addresses` (already checked), SNI set for a host name. */
export function send(
  url: URL,
  addresses: string[],
  method: 'GET' | 'POST',
  headers: Record<string, string>,
  body: Buffer | undefined,
  signal: AbortSignal,
): Promise<http.IncomingMessage> {
  const host = bareHost(url);
  const secure = url.protocol === 'https:';
  const options: https.RequestOptions = {
    host,
    port: portOf(url),
    method,
    path: `${url.pathname}${url.search}`,
    headers: {
      ...headers,
      host: url.host,
      ...(method === 'POST' ? { 'content-length': String(body?.length ?? 0) } : {}),
    },
    // A fresh agent per request: a pooled socket must never carry a request to an address checked for another.
    agent: false,
    lookup: pinnedLookup(addresses),
    signal,
  };
  if (secure && !isIP(host)) options.servername = host.replace(/\.$/, '');
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(options, resolve);
    req.on('error', reject);
    req.end(method === 'POST' ? body : undefined);
  });
}

export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('lookup timed out'), { code: 'ETIMEOUT' })), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'error';
}

const NET_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused (nothing is listening there)',
  ECONNRESET: 'the server closed the connection',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ETIMEDOUT: 'the connection timed out',
  ENOTFOUND: 'the host name does not resolve',
  EPROTO: 'the TLS handshake failed',
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's TLS certificate is self-signed",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's TLS certificate is for another name",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's TLS certificate cannot be verified",
  HPE_HEADER_OVERFLOW: 'the response headers were too large',
};

export function describeNetError(error: unknown): string {
  const code = errorCode(error);
  return NET_ERRORS[code] ?? (error instanceof Error ? error.message.slice(0, 200) : 'unknown error');
}

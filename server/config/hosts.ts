import { isIPv6 } from 'node:net';

/** Host names as the gateway binds to, is reached on, and reaches Ollama on. */

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

/**
 * OLLAMA_HOST as Ollama itself reads it: "host", "host:port", ":port", "[::1]:port" or a URL. A bare host gets port
 * 11434; a URL without a port gets its scheme's (http 80, https 443). 0.0.0.0 (a bind address) means this machine.
 * Anything unparsable is returned as given so that parseHttpUrl reports it, naming OLLAMA_HOST.
 */
export function ollamaHostUrl(value: string): string {
  const raw = value.trim().replace(/^["']+|["']+$/g, '').trim();
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw);
  const hostPort = isIPv6(raw) ? `[${raw}]` : raw.startsWith(':') ? `127.0.0.1${raw}` : raw;
  let url: URL;
  try {
    url = new URL(hasScheme ? raw : `http://${hostPort}`);
  } catch {
    return raw;
  }
  const authority = hostPort.split('/')[0] ?? '';
  if (!hasScheme && !/:\d+$/.test(authority)) url.port = '11434';
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  else if (url.hostname === '[::]') url.hostname = '[::1]';
  return url.href;
}

/** The host part of a URL that reaches a gateway bound to `host` (a wildcard bind is reached on loopback). */
export function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

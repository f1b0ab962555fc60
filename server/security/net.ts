import { lookup as dnsLookup } from 'node:dns/promises';
import type http from 'node:http';
import { isIP } from 'node:net';
import { ToolError } from '../errors.js';
import { allow, deny, type PolicyDecision } from '../decision.js';
import { VERSION } from '../version.js';
import { classifyAddress, HostAllowlist, judgeHostName, normalizeHostName, parseIp } from './address.js';
import { abortable, bareHost, describeNetError, errorCode, portOf, send, withTimeout } from './pinned-request.js';
import { readBody } from './read-body.js';

/**
 * The HTTP tools' guard against server-side request forgery (docs/security.md, "The policy": URLs): http/https only,
 * every address a host resolves to classified, the connection pinned to the addresses that were checked, every redirect
 * checked again. The owner's http_allow list opens exceptions.
 */

export type Resolver = (host: string) => Promise<{ address: string; family: 4 | 6 }[]>;

export interface NetGuardOptions {
  /** http_allow from config.json: host names, IP addresses and CIDR ranges the tools may reach although inside. */
  allow: string[];
  /** Tests inject one; the default asks the operating system (dns.lookup, every address, in its order). */
  resolve?: Resolver;
  resolveTimeoutMs?: number;
  /**
   * The gateway's own port (or a function giving it once it listens). Security: even when loopback or the LAN is
   * opened by http_allow, a tool call must never drive the gateway's own API (approvals, call log, settings).
   */
  selfPort?: number | (() => number | undefined);
}

export interface UrlVerdict {
  decision: PolicyDecision;
  /** The parsed URL, when it was one the guard could judge. */
  url?: URL;
  /**
   * The addresses that were checked and the only ones a connection may use. Empty when the host did not resolve
   * now: the policy lets such a URL through (rule url:unresolved) and `fetch` resolves and checks it again.
   */
  addresses?: string[];
}

/**
 * A caller's own limit on where its request may go, asked about every hop (the URL it gave and each redirect) before
 * the URL policy, which still applies. Security: a caller held to some hosts (a plugin to its manifest's) must be held
 * to them on every redirect too, or one redirect from a host it may reach takes it to any host the URL policy lets
 * through. Returns null to let the hop through.
 */
export type HopCheck = (url: URL) => { rule: string; reason: string } | null;

export interface FetchInit {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
  signal: AbortSignal;
  maxBytes: number;
  timeoutMs: number;
  maxRedirects?: number;
  checkHop?: HopCheck;
}

export interface FetchResult {
  status: number;
  statusText: string;
  headers: http.IncomingHttpHeaders;
  finalUrl: string;
  body: Buffer;
  truncated: boolean;
  /** Set when the server used a Content-Encoding the guard cannot decode: `body` is still encoded with it. */
  encoding?: string;
  /** Every URL a redirect led to, in order. */
  redirects: string[];
}

const MAX_URL_LENGTH = 8192;
const MAX_ADDRESSES = 32;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Security: credentials meant for one origin must not follow a redirect to another. */
const ORIGIN_BOUND_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
const ALLOW_HINT = 'add it to "http_allow" in config.json';

const defaultResolver: Resolver = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((r) => ({ address: r.address, family: r.family === 6 ? 6 : 4 }));

export class NetGuard {
  readonly #allow: HostAllowlist;
  readonly #resolve: Resolver;
  readonly #resolveTimeoutMs: number;
  readonly #selfPort: () => number | undefined;

  /** Throws when an http_allow entry is not a host name, IP address or CIDR range. */
  constructor(options: NetGuardOptions) {
    this.#allow = new HostAllowlist(options.allow);
    this.#resolve = options.resolve ?? defaultResolver;
    this.#resolveTimeoutMs = options.resolveTimeoutMs ?? 5000;
    const self = options.selfPort;
    this.#selfPort = typeof self === 'function' ? self : () => self;
  }

  /** Judges a URL without connecting: may it be fetched, by which rule, and which addresses may be used. */
  async checkUrl(raw: unknown): Promise<UrlVerdict> {
    const text = raw instanceof URL ? raw.href : raw;
    if (typeof text !== 'string' || text.trim() === '') {
      return { decision: deny('url:invalid', 'The url must be a string starting with https:// or http://, such as "https://example.com/page".') };
    }
    if (text.length > MAX_URL_LENGTH) {
      return { decision: deny('url:invalid', `The url is ${text.length} characters long; at most ${MAX_URL_LENGTH} are accepted.`) };
    }
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      // The text is not echoed: it may hold a secret.
      return { decision: deny('url:invalid', 'The url is not a valid absolute URL; give the full address, starting with https:// or http://.') };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return {
        decision: deny(
          'url:scheme',
          `Only http:// and https:// URLs can be fetched, not ${url.protocol.slice(0, 24)}. For a file on this machine use file_read instead.`,
        ),
      };
    }
    if (url.username || url.password) {
      // Security: userinfo would be sent to the server and kept in the call log; the reason never repeats it.
      return {
        decision: deny(
          'url:credentials',
          `The URL for ${url.hostname} carries a user name or password, which would be sent along and kept in the call log. ` +
            'Remove them from the URL and pass credentials in the headers argument (Authorization) instead.',
        ),
      };
    }
    const host = bareHost(url);
    if (isIP(host)) return this.#judgeAddresses(url, undefined, [host]);

    const name = normalizeHostName(host);
    const nameAllowed = this.#allow.allowsName(name);
    if (!nameAllowed) {
      const byName = judgeHostName(name, (ip) => this.#allow.matchAddress(ip) !== undefined);
      if (byName) return { decision: deny(byName.rule, blockedReason(`${name} is ${byName.what}`, byName.rule, name)) };
    }
    let records: { address: string }[];
    try {
      records = await withTimeout(this.#resolve(host), this.#resolveTimeoutMs);
    } catch (error) {
      // Nothing is connected to without a lookup, and fetch looks up and checks again; refusing here would only
      // block public sites whenever DNS is down.
      return {
        decision: allow(
          'url:unresolved',
          `${name} could not be resolved now (${errorCode(error)}); it will be resolved and checked again when the request is made, and refused if it leads inside this machine or network.`,
        ),
        url,
        addresses: [],
      };
    }
    if (records.length === 0) {
      return { decision: allow('url:unresolved', `${name} has no address now; it will be checked again when the request is made.`), url, addresses: [] };
    }
    return this.#judgeAddresses(url, name, records.slice(0, MAX_ADDRESSES).map((r) => r.address), nameAllowed);
  }

  #judgeAddresses(url: URL, name: string | undefined, addresses: string[], nameAllowed = false): UrlVerdict {
    const subject = name ?? bareHost(url);
    let opened = nameAllowed;
    for (const address of addresses) {
      const ip = parseIp(address);
      if (!ip) {
        return {
          decision: deny(
            'url:unresolvable',
            `The lookup of ${subject} returned something that is not an IP address, so it cannot be checked; check the name and this machine's DNS settings.`,
          ),
        };
      }
      const cls = classifyAddress(ip);
      if (cls.rule === 'url:public') continue;
      const match = this.#allow.matchAddress(ip);
      // Security: a broad entry (a CIDR, a trusted name) never opens a metadata endpoint; only its exact address.
      const open = cls.rule === 'url:metadata' ? match === 'exact' : match !== undefined || nameAllowed;
      if (!open) {
        const head = name ? `${name} resolves to ${ip.toString()}, ${cls.what}` : `${subject} is ${cls.what}`;
        return { decision: deny(cls.rule, blockedReason(head, cls.rule, name ?? subject)) };
      }
      if (portOf(url) === this.#selfPort()) {
        return {
          decision: deny(
            'url:self',
            `${subject} port ${portOf(url)} is this Pincer gateway itself. Tools may not call the gateway's own API; use the dashboard or the CLI instead.`,
          ),
        };
      }
      opened = true;
    }
    if (opened) {
      return { decision: allow('url:allowlisted', `${subject} is opened by http_allow in config.json.`), url, addresses };
    }
    const where = name ? `${name} resolves only to public internet addresses (${addresses.join(', ')})` : `${subject} is a public internet address`;
    return { decision: allow('url:public', `${where}.`), url, addresses };
  }

  /**
   * Makes one request: URL checked, connection pinned to the checked addresses, redirects followed by hand (each
   * hop checked again, by the caller's checkHop too), body size and total time capped. Upstream HTTP errors are
   * results; refusals and network failures are ToolErrors (URL_BLOCKED, TOO_MANY_REDIRECTS, RESPONSE_TIMEOUT, REQUEST_FAILED).
   */
  async fetch(target: string | URL, init: FetchInit): Promise<FetchResult> {
    const timeout = AbortSignal.timeout(init.timeoutMs);
    const signal = AbortSignal.any([init.signal, timeout]);
    const maxRedirects = init.maxRedirects ?? 5;
    const redirects: string[] = [];
    let method = init.method;
    let body = init.body === undefined ? undefined : Buffer.from(init.body);
    const headers: Record<string, string> = {
      'user-agent': `Pincer/${VERSION}`,
      accept: '*/*',
      'accept-encoding': 'gzip, deflate, br',
    };
    for (const [key, value] of Object.entries(init.headers ?? {})) headers[key.toLowerCase()] = value;
    let current = typeof target === 'string' ? target : target.href;
    let from: URL | undefined;
    let host = '';
    try {
      for (;;) {
        // Before checkUrl: a host the caller may not reach is not even looked up. An unparsable URL is checkUrl's.
        if (init.checkHop && URL.canParse(current)) {
          const refusal = init.checkHop(new URL(current));
          if (refusal) throw hopRefused(refusal, current, redirects.length, from);
        }
        const verdict = await abortable(this.checkUrl(current), signal);
        if (verdict.decision.decision !== 'allow' || !verdict.url) throw blocked(verdict.decision, current, redirects.length, from);
        const url = verdict.url;
        host = url.host;
        if (!verdict.addresses || verdict.addresses.length === 0) {
          throw new ToolError('REQUEST_FAILED', `Could not resolve ${bareHost(url)}: check the spelling, or this machine's network and DNS.`, {
            url: displayUrl(url),
          });
        }
        const res = await send(url, verdict.addresses, method, headers, body, signal);
        const status = res.statusCode ?? 0;
        const location = res.headers.location;
        if (!REDIRECT_STATUSES.has(status) || location === undefined) {
          const read = await readBody(res, { maxBytes: init.maxBytes, rest: 'close', decode: true, signal });
          return {
            status,
            statusText: res.statusMessage ?? '',
            headers: res.headers,
            finalUrl: displayUrl(url),
            body: read.body,
            truncated: read.truncated,
            ...(read.encoding ? { encoding: read.encoding } : {}),
            redirects,
          };
        }
        res.destroy();
        if (redirects.length >= maxRedirects) {
          throw new ToolError(
            'TOO_MANY_REDIRECTS',
            `${shortUrl(url)} redirected again after ${maxRedirects} redirects; stopped there. Fetch the last URL directly if you trust it.`,
            { redirects, limit: maxRedirects },
          );
        }
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new ToolError('REQUEST_FAILED', `${shortUrl(url)} answered ${status} with a Location header that is not a valid URL.`);
        }
        // 303, and 301/302 after a POST (what every browser does): the next hop is a GET without the body.
        if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
          delete headers['content-type'];
        }
        if (next.origin !== url.origin) for (const name of ORIGIN_BOUND_HEADERS) delete headers[name];
        redirects.push(displayUrl(next));
        from = url;
        current = next.href;
      }
    } catch (error) {
      if (error instanceof ToolError) throw error;
      if (timeout.aborted && !init.signal.aborted) {
        throw new ToolError('RESPONSE_TIMEOUT', `No complete answer from ${host || 'the server'} within ${init.timeoutMs} ms; try again later or allow more time.`, {
          timeout_ms: init.timeoutMs,
        });
      }
      if (init.signal.aborted) throw init.signal.reason;
      throw new ToolError('REQUEST_FAILED', `The request to ${host || 'the server'} failed: ${describeNetError(error)}.`, {
        code: errorCode(error),
      });
    }
  }
}

/** A URL as it may be shown: without user name, password or fragment. */
function displayUrl(url: URL): string {
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  copy.hash = '';
  return copy.href;
}

/** A URL as a refusal names it: origin and path only (a query string may carry a secret). */
function shortUrl(raw: string | URL): string {
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return `a ${url.protocol.slice(0, 24)} URL`;
    const text = `${url.protocol}//${url.host}${url.pathname}`;
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    return 'an invalid URL';
  }
}

/** Why a destination is refused, and what the owner can do about it. `head` is one sentence without the period. */
function blockedReason(head: string, rule: string, suggestion: string): string {
  if (rule === 'url:metadata') {
    return `${head}. It is always refused: it would hand this machine's cloud credentials to whoever asked. Only exact http_allow entries for it (its name and its address, never a range) open it, which is rarely wise.`;
  }
  if (rule === 'url:rebinding') {
    return `${head}. Use the service's real address or name instead; a local service you trust can be added to "http_allow" in config.json.`;
  }
  if (rule === 'url:multicast' || rule === 'url:reserved') {
    return `${head}. It is not a destination on the internet; if you really need it, ${ALLOW_HINT} ("${suggestion}").`;
  }
  return `${head}. A request there could reach services that trust this machine or its network; if you trust this service, ${ALLOW_HINT} ("${suggestion}").`;
}

function blocked(decision: PolicyDecision, target: string, hop: number, from: URL | undefined): ToolError {
  const shown = shortUrl(target);
  const message =
    hop === 0 || !from
      ? `Refused ${shown} (rule ${decision.rule}): ${decision.reason}`
      : `${shortUrl(from)} redirected (redirect ${hop + 1}) to ${shown}, which is refused (rule ${decision.rule}): ${decision.reason}`;
  return new ToolError('URL_BLOCKED', message, { rule: decision.rule, url: shown, redirect: hop });
}

/** A hop the caller's own check refused; `hop` is the number of redirects followed to reach it. */
function hopRefused(refusal: { rule: string; reason: string }, target: string, hop: number, from: URL | undefined): ToolError {
  const shown = shortUrl(target);
  const message =
    hop === 0 || !from
      ? `Refused ${shown} (rule ${refusal.rule}): ${refusal.reason}`
      : `${shortUrl(from)} redirected (redirect ${hop}) to ${shown}, which is refused (rule ${refusal.rule}): ${refusal.reason}`;
  return new ToolError('URL_BLOCKED', message, { rule: refusal.rule, url: shown, redirect: hop });
}

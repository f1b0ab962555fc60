import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RouteStub, redirect } from '../../helpers/route-stub.js';
import { ToolError } from '../../../server/errors.js';
import { NetGuard, type FetchInit, type HopCheck, type Resolver } from '../../../server/security/net.js';

/**
 * NetGuard.fetch's per-hop check (checkHop): a caller's own limit on hosts, asked about every hop on top
 * of the URL policy. Real requests to stubs on 127.0.0.2 and 127.0.0.3 (both opened by http_allow); names resolve
 * through an injected table. Nothing here sends a packet anywhere but 127.0.0.x.
 */

const home: RouteStub = new RouteStub('127.0.0.2', {
  '/to-other': redirect(() => `${other.origin}/secret`),
  '/to-other-name': redirect(() => `http://other.test:${other.port}/secret`),
  '/to-loopback': redirect(() => `http://127.0.0.1:${home.port}/`),
  '/to-path': redirect(() => '/landed'),
  '/landed': (res) => res.end('landed'),
});
const other: RouteStub = new RouteStub('127.0.0.3', { '/secret': (res) => res.end('OTHER-SECRET') });

const lookups: string[] = [];
const resolver: Resolver = async (host) => {
  lookups.push(host);
  if (host !== 'other.test') throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return [{ address: '127.0.0.3', family: 4 }];
};
const net = new NetGuard({ allow: ['127.0.0.2', '127.0.0.3'], resolve: resolver });
const init = (extra: Partial<FetchInit> = {}): FetchInit => ({ method: 'GET', signal: new AbortController().signal, maxBytes: 1 << 20, timeoutMs: 5000, ...extra });

/** Lets only 127.0.0.2 through, and records every hop it was asked about. */
function onlyHome(asked: string[] = []): HopCheck {
  return (url) => {
    asked.push(url.href);
    return url.hostname === '127.0.0.2' ? null : { rule: 'test:hosts', reason: `${url.hostname} is not this caller's` };
  };
}

async function failure(run: Promise<unknown>): Promise<ToolError> {
  try {
    await run;
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return error as ToolError;
  }
  throw new Error('expected a ToolError');
}

beforeAll(async () => {
  await home.listen();
  await other.listen();
});
afterAll(async () => {
  await Promise.all([home, other].map((s) => s.server && s.close()));
});
beforeEach(() => {
  for (const list of [home.seen, other.seen, lookups]) list.length = 0;
});

describe('NetGuard.fetch: checkHop', () => {
  it('is asked about every hop, and a redirect it allows is followed', async () => {
    const asked: string[] = [];
    const result = await net.fetch(`${home.origin}/to-path`, init({ checkHop: onlyHome(asked) }));
    expect(result).toMatchObject({ status: 200, finalUrl: `${home.origin}/landed`, redirects: [`${home.origin}/landed`] });
    expect(result.body.toString()).toBe('landed');
    expect(asked).toEqual([`${home.origin}/to-path`, `${home.origin}/landed`]);
  });

  it('refuses a redirect it does not allow, naming where it came from, and the target gets nothing', async () => {
    const error = await failure(net.fetch(`${home.origin}/to-other`, init({ checkHop: onlyHome() })));
    expect(error.errorName).toBe('URL_BLOCKED');
    expect(error.details).toMatchObject({ rule: 'test:hosts', redirect: 1, url: `${other.origin}/secret` });
    expect(error.message).toBe(
      `${home.origin}/to-other redirected (redirect 1) to ${other.origin}/secret, which is refused (rule test:hosts): 127.0.0.3 is not this caller's`,
    );
    expect(home.seen).toEqual(['/to-other']);
    expect(other.seen).toEqual([]);
  });

  it('refuses the first URL too, before connecting', async () => {
    const error = await failure(net.fetch(`${other.origin}/secret`, init({ checkHop: onlyHome() })));
    expect(error.details).toMatchObject({ rule: 'test:hosts', redirect: 0 });
    expect(error.message).toMatch(/^Refused http:\/\/127\.0\.0\.3:\d+\/secret \(rule test:hosts\)/);
    expect(other.seen).toEqual([]);
  });

  it('refuses a host before looking it up', async () => {
    const error = await failure(net.fetch(`${home.origin}/to-other-name`, init({ checkHop: onlyHome() })));
    expect(error.details).toMatchObject({ rule: 'test:hosts', redirect: 1 });
    expect(lookups).toEqual([]);
    expect(other.seen).toEqual([]);
  });

  it('keeps the URL policy on a hop it allows', async () => {
    const error = await failure(net.fetch(`${home.origin}/to-loopback`, init({ checkHop: () => null })));
    expect(error.details).toMatchObject({ rule: 'url:loopback', redirect: 1 });
    expect(home.seen).toEqual(['/to-loopback']);
  });

  it('without one, the redirect to another opened host is followed as before', async () => {
    const result = await net.fetch(`${home.origin}/to-other`, init());
    expect(result.body.toString()).toBe('OTHER-SECRET');
  });
});

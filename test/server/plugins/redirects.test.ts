import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RouteStub, redirect } from '../../helpers/route-stub.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { pluginSteps, toolPlugin } from './helpers.js';

/**
 * A plugin's HTTP client follows redirects only to hosts its manifest declares: a declared host that redirects must
 * not take the plugin to a host the URL policy would let through (here 127.0.0.3, opened by http_allow as an
 * internal service would be). A real gateway, a real plugin process and real stubs, on 127.0.0.x only.
 */

// 127.0.0.2 and 127.0.0.4 are declared by the plugin; 127.0.0.3 is not, though http_allow opens it.
const declared: RouteStub = new RouteStub('127.0.0.2', {
  '/to-undeclared': redirect(() => `${undeclared.origin}/secret`),
  '/to-path': redirect(() => '/landed'),
  '/landed': (res) => res.end('landed on another path'),
  '/chain': redirect(() => `${second.origin}/hop`),
  '/end': (res) => res.end('chain ended on a declared host'),
  '/chain-out': redirect(() => `${second.origin}/out`),
});
const second: RouteStub = new RouteStub('127.0.0.4', {
  '/hop': redirect(() => `${declared.origin}/end`),
  '/out': redirect(() => `${undeclared.origin}/secret`),
});
const undeclared: RouteStub = new RouteStub('127.0.0.3', { '/secret': (res) => res.end('UNDECLARED-SECRET') });

let tg: TestGateway;
let steps: ReturnType<typeof pluginSteps>;

beforeAll(async () => {
  for (const stub of [declared, second, undeclared]) await stub.listen();
  tg = await startGateway({ httpAllow: ['127.0.0.2', '127.0.0.3', '127.0.0.4'] }, { bundledPluginsDir: null });
  steps = pluginSteps(tg);
  // The URL comes as an argument, not from its settings: a URL in its settings would add that host to those it may reach.
  const body = `try { const r = await ctx.http.fetch(args.text, { timeoutMs: 5000 }); return { status: r.status, url: r.url, body: r.text() }; }
    catch (e) { return { error: e.message }; }`;
  await steps.installed('hopper', toolPlugin({ hopper_get: { body } }, { permissions: { hosts: ['127.0.0.2', '127.0.0.4'] } }));
}, 60_000);
afterAll(async () => {
  await tg?.close();
  await Promise.all([declared, second, undeclared].map((s) => s.server && s.close()));
});
beforeEach(() => {
  for (const stub of [declared, second, undeclared]) stub.seen.length = 0;
});

const get = async (url: string) => {
  const answer = await steps.call('hopper_get', { text: url });
  expect(answer.status).toBe(200);
  return answer.body.result as { status?: number; url?: string; body?: string; error?: string };
};

describe('a plugin fetch that is redirected', () => {
  it('is refused when a declared host redirects to an undeclared one, naming both, and the undeclared host gets nothing', async () => {
    const result = await get(`${declared.origin}/to-undeclared`);
    expect(result.body).toBeUndefined();
    expect(result.error).toContain(`${declared.origin}/to-undeclared redirected`);
    expect(result.error).toContain(`${undeclared.origin}/secret`);
    expect(result.error).toContain('the plugin may not reach 127.0.0.3: its manifest lists 127.0.0.2, 127.0.0.4 (permissions.hosts)');
    expect(declared.seen).toEqual(['/to-undeclared']);
    expect(undeclared.seen).toEqual([]);
  });

  it('is refused when a chain leaves the declared hosts at its second redirect', async () => {
    const result = await get(`${declared.origin}/chain-out`);
    expect(result.error).toContain(`${second.origin}/out redirected (redirect 2) to ${undeclared.origin}/secret`);
    expect(result.error).toContain('may not reach 127.0.0.3');
    expect(second.seen).toEqual(['/out']);
    expect(undeclared.seen).toEqual([]);
  });

  it('is still refused at once when it names the undeclared host itself', async () => {
    const result = await get(`${undeclared.origin}/secret`);
    expect(result.error).toBe('the plugin may not reach 127.0.0.3: its manifest lists 127.0.0.2, 127.0.0.4 (permissions.hosts)');
    expect(undeclared.seen).toEqual([]);
  });

  it('follows a chain that stays within the declared hosts', async () => {
    const result = await get(`${declared.origin}/chain`);
    expect(result).toMatchObject({ status: 200, url: `${declared.origin}/end`, body: 'chain ended on a declared host' });
    expect(second.seen).toEqual(['/hop']);
    expect(declared.seen).toEqual(['/chain', '/end']);
  });

  it('follows a redirect to another path of the declared host', async () => {
    const result = await get(`${declared.origin}/to-path`);
    expect(result).toMatchObject({ status: 200, url: `${declared.origin}/landed`, body: 'landed on another path' });
    expect(undeclared.seen).toEqual([]);
  });
});

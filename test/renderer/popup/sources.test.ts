import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DesktopApi } from '../../../electron/ipc-contract.js';
import { approvalIdFrom, browserSource } from '../../../renderer/src/popup/browser-source.js';
import { desktopSource } from '../../../renderer/src/popup/desktop-source.js';
import { pendingApproval } from './fixtures.js';

interface Sent {
  method: string;
  path: string;
  body: unknown;
  credentials: RequestCredentials | undefined;
}

/** A stand-in for the gateway behind fetch: each route answers a status and a JSON body, or fails to connect. */
function fakeGateway(routes: Record<string, [number, unknown] | 'unreachable'>): Sent[] {
  const sent: Sent[] = [];
  vi.stubGlobal('fetch', async (path: string, init: RequestInit = {}) => {
    const method = init.method ?? 'GET';
    sent.push({ method, path, body: init.body === undefined ? undefined : JSON.parse(String(init.body)), credentials: init.credentials });
    const route = routes[`${method} ${path}`];
    if (route === 'unreachable') throw new TypeError('fetch failed');
    const [status, body] = route ?? [404, { error: { name: 'NOT_FOUND', code: 404, message: `No route ${method} ${path}` } }];
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  });
  return sent;
}

const owner: [number, unknown] = [200, { owner: true, version: '0.1.0' }];
const notFound: [number, unknown] = [404, { error: { name: 'NOT_FOUND', code: 404, message: 'A pending approval "a_1" was not found.' } }];

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('browserSource: loading', () => {
  it('with the owner session it loads the approval named in the address, sending the session cookie', async () => {
    const sent = fakeGateway({ 'GET /session': owner, 'GET /approvals/a_1': [200, pendingApproval()] });
    expect(await browserSource('a_1').load()).toEqual({ kind: 'pending', approval: pendingApproval() });
    expect(sent.map((s) => `${s.method} ${s.path}`)).toEqual(['GET /session', 'GET /approvals/a_1']);
    expect(sent.every((s) => s.credentials === 'same-origin')).toBe(true);
  });

  it('asks for the session once, not on every recheck', async () => {
    const sent = fakeGateway({ 'GET /session': owner, 'GET /approvals/a_1': [200, pendingApproval()] });
    const source = browserSource('a_1');
    await source.load();
    await source.load();
    expect(sent.filter((s) => s.path === '/session')).toHaveLength(1);
  });

  it('without an owner session it says so, and never asks for the approval', async () => {
    const sent = fakeGateway({ 'GET /session': [200, { owner: false, version: '0.1.0' }] });
    expect(await browserSource('a_1').load()).toEqual({ kind: 'signed-out' });
    expect(sent.map((s) => s.path)).toEqual(['/session']);
  });

  it('a session that ends while the popup is open reads as signed out, and is asked for again next time', async () => {
    const sent = fakeGateway({ 'GET /session': owner, 'GET /approvals/a_1': [401, { error: { name: 'UNAUTHORIZED', code: 401, message: 'Log in.' } }] });
    const source = browserSource('a_1');
    expect(await source.load()).toEqual({ kind: 'signed-out' });
    await source.load();
    expect(sent.filter((s) => s.path === '/session')).toHaveLength(2);
  });

  it('an approval that is no longer pending (404) is gone, not an error', async () => {
    fakeGateway({ 'GET /session': owner, 'GET /approvals/a_1': notFound });
    expect(await browserSource('a_1').load()).toEqual({ kind: 'gone' });
  });

  it('an approval that answers with a status other than pending is gone too', async () => {
    fakeGateway({ 'GET /session': owner, 'GET /approvals/a_1': [200, pendingApproval({ status: 'expired' })] });
    expect(await browserSource('a_1').load()).toEqual({ kind: 'gone' });
  });

  it('a gateway that does not answer is a failure with a message a person can act on', async () => {
    fakeGateway({ 'GET /session': 'unreachable' });
    const found = await browserSource('a_1').load();
    expect(found).toMatchObject({ kind: 'failed' });
    expect((found as { message: string }).message).toMatch(/not answering/);
  });

  it('an address without an id says so', async () => {
    fakeGateway({ 'GET /session': owner });
    expect(await browserSource(null).load()).toMatchObject({ kind: 'failed', message: expect.stringMatching(/names no approval/) });
  });

  it('the id is sent encoded, so it cannot reach another route', async () => {
    const sent = fakeGateway({ 'GET /session': owner });
    await browserSource('../tools/x?y=1').load();
    expect(sent[1]!.path).toBe('/approvals/..%2Ftools%2Fx%3Fy%3D1');
  });
});

describe('browserSource: deciding', () => {
  it('posts the answer as the dashboard does and reports the status the gateway gave', async () => {
    const sent = fakeGateway({ 'POST /approvals/a_1': [200, pendingApproval({ status: 'denied', decision: 'deny' })] });
    expect(await browserSource('a_1').decide({ decision: 'deny', message: 'not now' })).toEqual({ kind: 'decided', status: 'denied' });
    expect(sent).toEqual([{ method: 'POST', path: '/approvals/a_1', body: { decision: 'deny', message: 'not now' }, credentials: 'same-origin' }]);
  });

  it('an answer to an approval no longer waiting is gone', async () => {
    fakeGateway({ 'POST /approvals/a_1': notFound });
    expect(await browserSource('a_1').decide({ decision: 'allow_once' })).toMatchObject({ kind: 'gone' });
  });

  it('a refused answer keeps the gateway’s reason', async () => {
    fakeGateway({ 'POST /approvals/a_1': [400, { error: { name: 'INVALID_ARGUMENTS', code: 400, message: '"host" is not a scope for this call.' } }] });
    expect(await browserSource('a_1').decide({ decision: 'allow_always', scope: 'host' })).toEqual({
      kind: 'refused',
      message: '"host" is not a scope for this call.',
    });
  });

  it('an answer without the owner session reads as signed out', async () => {
    fakeGateway({ 'POST /approvals/a_1': [403, { error: { name: 'FORBIDDEN', code: 403, message: 'Owner only.' } }] });
    expect(await browserSource('a_1').decide({ decision: 'allow_once' })).toEqual({ kind: 'signed-out' });
  });

  it('a browser popup cannot close its window', () => {
    expect(browserSource('a_1').close).toBeUndefined();
  });
});

describe('approvalIdFrom', () => {
  it('reads /popup/<id> as the gateway serves it', () => {
    expect(approvalIdFrom({ pathname: '/popup/a_12ab-34', search: '' })).toBe('a_12ab-34');
    expect(approvalIdFrom({ pathname: '/popup/a_1/', search: '' })).toBe('a_1');
  });

  it('decodes the id', () => {
    expect(approvalIdFrom({ pathname: '/popup/a%201', search: '' })).toBe('a 1');
  });

  it('reads ?id= (the dev server’s /popup.html)', () => {
    expect(approvalIdFrom({ pathname: '/popup.html', search: '?id=a_9' })).toBe('a_9');
  });

  it('null when there is none, or it cannot be decoded', () => {
    expect(approvalIdFrom({ pathname: '/popup.html', search: '' })).toBeNull();
    expect(approvalIdFrom({ pathname: '/popup/%E0%A4%A', search: '' })).toBeNull();
    expect(approvalIdFrom({ pathname: '/popup/a/b', search: '' })).toBeNull();
  });
});

/** A fake preload bridge recording what the page sent through it. */
function fakeBridge(overrides: Partial<DesktopApi> = {}): DesktopApi & { closed: number } {
  const bridge = {
    closed: 0,
    approval: async () => pendingApproval(),
    decide: async () => ({ ok: true as const, status: 'allowed' as const }),
    close: () => {
      bridge.closed++;
    },
    ...overrides,
  };
  return bridge;
}

describe('desktopSource', () => {
  it('loads the window’s approval from the bridge and makes no HTTP request', async () => {
    const sent = fakeGateway({});
    expect(await desktopSource(fakeBridge()).load()).toEqual({ kind: 'pending', approval: pendingApproval() });
    expect(sent).toEqual([]);
  });

  it('null from the bridge (answered, expired or withdrawn) is gone', async () => {
    expect(await desktopSource(fakeBridge({ approval: async () => null })).load()).toEqual({ kind: 'gone' });
  });

  it('a bridge that throws is a failure, not an exception', async () => {
    const source = desktopSource(fakeBridge({ approval: () => Promise.reject(new Error('no handler')) }));
    expect(await source.load()).toEqual({ kind: 'failed', message: 'The desktop app could not give this approval: no handler' });
  });

  it('sends the answer through the bridge as it is', async () => {
    const answers: unknown[] = [];
    const source = desktopSource(
      fakeBridge({
        decide: async (answer) => {
          answers.push(answer);
          return { ok: true, status: 'denied' };
        },
      }),
    );
    expect(await source.decide({ decision: 'deny', message: 'no' })).toEqual({ kind: 'decided', status: 'denied' });
    expect(answers).toEqual([{ decision: 'deny', message: 'no' }]);
  });

  it('a refusal keeps its reason', async () => {
    const source = desktopSource(fakeBridge({ decide: async () => ({ ok: false, error: 'Already answered.' }) }));
    expect(await source.decide({ decision: 'allow_once' })).toEqual({ kind: 'refused', message: 'Already answered.' });
  });

  it('close goes to the bridge', () => {
    const bridge = fakeBridge();
    desktopSource(bridge).close!();
    expect(bridge.closed).toBe(1);
  });
});

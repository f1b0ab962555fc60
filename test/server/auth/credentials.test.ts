import { createHmac } from 'node:crypto';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClientNameError, Credentials, DEFAULT_CLIENT } from '../../../server/auth/credentials.js';
import { ensurePrivateDir } from '../../../server/auth/secrets.js';
import { openStore, type Store } from '../../../server/store/index.js';
import { tempDir } from '../../helpers/gateway.js';

/**
 * Client tokens, login links and owner sessions on a real data folder and SQLite store: what lets a caller in, and
 * every forged, expired, replayed or foreign credential that must not.
 */

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const T0 = Date.parse('2026-12-01T12:00:00Z');

let dir: string;
let dataDir: string;
const stores: Store[] = [];

beforeEach(() => {
  dir = tempDir('pincer-credentials-');
  dataDir = join(dir, 'data');
});

afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Credentials over a data folder, as the gateway makes them at start (each start opens the store anew). */
function credentials(folder = dataDir, token?: string): Credentials {
  // The store's file lives in the data folder: it must exist before the store opens.
  ensurePrivateDir(folder);
  const store = openStore(join(folder, 'pincer.db'));
  stores.push(store);
  return new Credentials({ dataDir: folder, store, token });
}

const mode = (path: string) => statSync(path).mode & 0o777;

describe('the default token', () => {
  it('is generated once into a private file and read back on the next start', () => {
    // A data folder that does not exist yet: the credentials make it, private (the store lives beside it here).
    const store = openStore(join(dir, 'pincer.db'));
    stores.push(store);
    const first = new Credentials({ dataDir, store });
    expect(first.defaultToken).toMatch(/^pk_[A-Za-z0-9_-]{43}$/);
    expect(first.defaultTokenSource).toEqual({ kind: 'file', file: join(dataDir, 'token') });
    expect(readFileSync(join(dataDir, 'token'), 'utf8')).toBe(`${first.defaultToken}\n`);
    if (process.platform !== 'win32') {
      expect(mode(dataDir)).toBe(0o700);
      expect(mode(join(dataDir, 'token'))).toBe(0o600);
      expect(mode(join(dataDir, 'owner-secret'))).toBe(0o600);
    }
    expect(credentials().defaultToken).toBe(first.defaultToken);
  });

  it('is replaced by PINCER_TOKEN when given, and the file token then lets nobody in', () => {
    const fromFile = credentials().defaultToken;
    const fromEnv = credentials(dataDir, 'my-own-token');
    expect(fromEnv.defaultTokenSource).toEqual({ kind: 'env' });
    expect(fromEnv.clientForToken('my-own-token')).toBe(DEFAULT_CLIENT);
    expect(fromEnv.clientForToken(fromFile)).toBeUndefined();
  });

  it('lets in only the exact token: not one differing in its last character, a prefix, or the empty string', () => {
    const c = credentials();
    const token = c.defaultToken;
    const last = token.at(-1) === 'A' ? 'B' : 'A';
    expect(c.clientForToken(token)).toBe(DEFAULT_CLIENT);
    for (const wrong of [`${token.slice(0, -1)}${last}`, token.slice(0, -1), `${token} `, '', token.toUpperCase()]) {
      expect(c.clientForToken(wrong), wrong).toBeUndefined();
    }
  });

  it('names the default token and the owner secret as the secrets to redact by value', () => {
    const c = credentials();
    const ownerSecret = readFileSync(join(dataDir, 'owner-secret'), 'utf8').trim();
    expect(ownerSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(c.knownSecrets()).toEqual([c.defaultToken, ownerSecret]);
  });
});

describe('named client tokens', () => {
  it('issues a token that names its client, and keeps only its hash', () => {
    const c = credentials();
    const issued = c.issueClient('cursor');
    expect(issued.token).toMatch(/^pk_[A-Za-z0-9_-]{43}$/);
    expect(c.clientForToken(issued.token)).toBe('cursor');
    expect(c.clientForToken(c.defaultToken)).toBe(DEFAULT_CLIENT);
    // The database never holds a usable token.
    expect(readFileSync(join(dataDir, 'pincer.db')).includes(issued.token)).toBe(false);
  });

  it('refuses a revoked token at once, and a new token for the same name does not revive the old one', () => {
    const c = credentials();
    const old = c.createClient('cursor');
    expect(c.revokeClient('cursor')).toBe(true);
    expect(c.clientForToken(old)).toBeUndefined();
    expect(c.clientIssue('cursor')).toBeUndefined();
    expect(c.revokeClient('cursor')).toBe(false);
    const renewed = c.createClient('cursor');
    expect(c.clientForToken(renewed)).toBe('cursor');
    expect(c.clientForToken(old)).toBeUndefined();
    expect(c.clientIssue('cursor')).toBeDefined();
  });

  it('refuses a token revoked elsewhere (the CLI) at its next use, though it was let in just before', () => {
    const c = credentials();
    const token = c.createClient('cursor');
    expect(c.clientForToken(token)).toBe('cursor');
    expect(c.clientForToken(token)).toBe('cursor');
    // `pincer token revoke` writes the store from another process; this gateway's credentials are not told.
    const cli = openStore(join(dataDir, 'pincer.db'));
    stores.push(cli);
    expect(cli.clients.revoke('cursor')).toBe(true);
    expect(c.clientForToken(token)).toBeUndefined();
    expect(c.clientForToken(c.defaultToken)).toBe(DEFAULT_CLIENT);
  });

  it('still names every client after many tokens, good and bad, were presented', () => {
    const c = credentials();
    const issued = Array.from({ length: 300 }, (_, i) => ({ name: `client-${i}`, token: c.createClient(`client-${i}`) }));
    for (let i = 0; i < 1000; i++) expect(c.clientForToken(`pk_${String(i).padStart(43, 'x')}`)).toBeUndefined();
    for (let round = 0; round < 2; round++) {
      for (const { name, token } of issued) expect(c.clientForToken(token)).toBe(name);
      expect(c.clientForToken(c.defaultToken)).toBe(DEFAULT_CLIENT);
    }
    const first = issued[0]!.token;
    expect(c.clientForToken(`${first.slice(0, -1)}${first.endsWith('a') ? 'b' : 'a'}`)).toBeUndefined();
  });

  it('says which issue of a token is active, so a stream opened with a revoked one can end', () => {
    const c = credentials();
    expect(c.clientIssue(DEFAULT_CLIENT)).toBe(DEFAULT_CLIENT);
    expect(c.clientIssue('never-issued')).toBeUndefined();
    const issued = c.issueClient('cursor');
    expect(c.clientIssue('cursor')).toBe(issued.created_at);
  });

  it.each([
    ['invalid', ''],
    ['invalid', '-leading-dash'],
    ['invalid', 'has space'],
    ['invalid', 'slash/name'],
    ['invalid', 'x'.repeat(65)],
    ['reserved', DEFAULT_CLIENT],
    ['reserved', 'owner'],
  ])('refuses a name that is %s: %j', (reason, name) => {
    const c = credentials();
    let error: unknown;
    try {
      c.issueClient(name);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ClientNameError);
    expect((error as ClientNameError).reason).toBe(reason);
  });

  it('refuses a name an active client holds, and the holder keeps its token', () => {
    const c = credentials();
    const first = c.createClient('cursor');
    expect(() => c.issueClient('cursor')).toThrow(expect.objectContaining({ reason: 'taken' }));
    expect(c.clientForToken(first)).toBe('cursor');
  });

  it('accepts a name of 64 characters', () => {
    const name = `a${'b'.repeat(63)}`;
    expect(credentials().issueClient(name).name).toBe(name);
  });
});

describe('login links and owner sessions', () => {
  it('turns a fresh login code into an owner session of 30 days', () => {
    const c = credentials();
    const redeemed = c.redeemLoginCode(c.createLoginCode(T0), T0 + MINUTE);
    if (!('session' in redeemed)) throw new Error(redeemed.problem);
    expect(redeemed.maxAgeS).toBe(30 * 24 * 3600);
    expect(c.isOwnerSession(redeemed.session, T0 + MINUTE)).toBe(true);
    expect(c.isOwnerSession(redeemed.session, T0 + MINUTE + 30 * DAY - 1)).toBe(true);
    expect(c.isOwnerSession(redeemed.session, T0 + MINUTE + 30 * DAY)).toBe(false);
  });

  it('refuses a replayed link: a code opens one session only', () => {
    const c = credentials();
    const code = c.createLoginCode(T0);
    expect('session' in c.redeemLoginCode(code, T0)).toBe(true);
    expect(c.redeemLoginCode(code, T0 + 1)).toEqual({ problem: 'This login link has already been used.' });
  });

  it('refuses a replay after a restart too (spent codes are kept in the store)', () => {
    const code = credentials().createLoginCode(T0);
    expect('session' in credentials().redeemLoginCode(code, T0)).toBe(true);
    expect(credentials().redeemLoginCode(code, T0 + 1)).toEqual({ problem: 'This login link has already been used.' });
  });

  it('refuses an expired link: good for 15 minutes, not a millisecond more', () => {
    const c = credentials();
    expect('session' in c.redeemLoginCode(c.createLoginCode(T0), T0 + 15 * MINUTE - 1)).toBe(true);
    expect(c.redeemLoginCode(c.createLoginCode(T0), T0 + 15 * MINUTE)).toEqual({ problem: 'This login link has expired.' });
  });

  it('refuses a link whose expiry was pushed back: the expiry is signed', () => {
    const c = credentials();
    const [nonce, , signature] = c.createLoginCode(T0).split('.');
    const later = (T0 + 365 * DAY).toString(36);
    expect(c.redeemLoginCode(`${nonce}.${later}.${signature}`, T0 + DAY)).toEqual({ problem: 'This login link is not valid for this gateway.' });
  });

  it("refuses a link another gateway signed: each data folder has its own owner secret", () => {
    const here = credentials();
    const elsewhere = credentials(join(dir, 'other'));
    expect(here.redeemLoginCode(elsewhere.createLoginCode(T0), T0)).toEqual({ problem: 'This login link is not valid for this gateway.' });
  });

  it('refuses a signature made with a client token: holding a token never leads to an owner session', () => {
    const c = credentials();
    const [nonce, expires] = c.createLoginCode(T0).split('.');
    for (const key of [c.defaultToken, c.createClient('cursor')]) {
      const forged = createHmac('sha256', key).update(`login:${nonce}:${expires}`).digest('base64url');
      expect(c.redeemLoginCode(`${nonce}.${expires}.${forged}`, T0)).toEqual({ problem: 'This login link is not valid for this gateway.' });
    }
  });

  it('does not spend a nonce on a forged attempt: the real link still works after it', () => {
    const c = credentials();
    const code = c.createLoginCode(T0);
    const [nonce, expires, signature] = code.split('.');
    const flipped = signature!.startsWith('A') ? `B${signature!.slice(1)}` : `A${signature!.slice(1)}`;
    expect(c.redeemLoginCode(`${nonce}.${expires}.${flipped}`, T0)).toEqual({ problem: 'This login link is not valid for this gateway.' });
    expect('session' in c.redeemLoginCode(code, T0)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['one part', 'abc'],
    ['two parts', 'abc.def'],
    ['an empty signature', 'abc.def.'],
    ['a fourth part', 'abc.def.ghi.jkl'],
  ])('refuses a malformed link: %s', (_what, code) => {
    expect(credentials().redeemLoginCode(code, T0)).toEqual({ problem: 'This login link is malformed.' });
  });

  it('refuses a signature of the wrong length without comparing it', () => {
    const c = credentials();
    const [nonce, expires, signature] = c.createLoginCode(T0).split('.');
    expect(c.redeemLoginCode(`${nonce}.${expires}.${signature}AA`, T0)).toEqual({ problem: 'This login link is not valid for this gateway.' });
    expect(c.redeemLoginCode(`${nonce}.${expires}.${signature!.slice(1)}`, T0)).toEqual({ problem: 'This login link is not valid for this gateway.' });
  });

  it('does not take a client token, a login code or a made-up value as an owner session', () => {
    const c = credentials();
    const code = c.createLoginCode(T0);
    for (const value of [c.defaultToken, c.createClient('cursor'), code, '', 'x'.repeat(43)]) {
      expect(c.isOwnerSession(value, T0)).toBe(false);
    }
  });

  it('ends a session on logout; other sessions stay', () => {
    const c = credentials();
    const one = c.redeemLoginCode(c.createLoginCode(T0), T0) as { session: string };
    const two = c.redeemLoginCode(c.createLoginCode(T0), T0) as { session: string };
    expect(one.session).not.toBe(two.session);
    c.endOwnerSession(one.session);
    expect(c.isOwnerSession(one.session, T0)).toBe(false);
    expect(c.isOwnerSession(two.session, T0)).toBe(true);
  });

  it('keeps an owner session across a restart', () => {
    const { session } = credentials().redeemLoginCode(credentials().createLoginCode(T0), T0) as { session: string };
    expect(credentials().isOwnerSession(session, T0 + DAY)).toBe(true);
  });

  it('issues distinct codes, each with a random nonce', () => {
    const c = credentials();
    const codes = new Set(Array.from({ length: 50 }, () => c.createLoginCode(T0).split('.')[0]));
    expect(codes.size).toBe(50);
  });

  it('refuses a login code whose owner secret file was replaced', () => {
    const c = credentials();
    const code = c.createLoginCode(T0);
    writeFileSync(join(dataDir, 'owner-secret'), `${'0'.repeat(64)}\n`, { mode: 0o600 });
    expect(credentials().redeemLoginCode(code, T0)).toEqual({ problem: 'This login link is not valid for this gateway.' });
  });
});

import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../../server/auth/secrets.js';
import { ClientExistsError } from '../../../server/store/index.js';
import { file, newStore, T0, useTempStore } from './temp-store.js';

useTempStore();

describe('clients', () => {
  const token = 'pk_the-secret-token-for-alice-0123456789abcdef';

  it('finds a client by the hash of its token, never by the token itself', () => {
    const store = newStore();
    store.clients.add('alice', sha256(token), token.slice(-4), T0);
    expect(store.clients.findByTokenHash(sha256(token))).toBe('alice');
    expect(store.clients.findByTokenHash(token)).toBeUndefined();
    expect(store.clients.findByTokenHash(sha256('pk_someone-else'))).toBeUndefined();
  });

  it('lists clients with a hint of the token but neither the token nor its hash', () => {
    const store = newStore();
    store.clients.add('bob', sha256('pk_bob-token-0123456789abcdefgh'), 'efgh', T0);
    store.clients.add('alice', sha256(token), token.slice(-4), T0 + 1);
    const list = store.clients.list();
    expect(list).toEqual([
      { name: 'alice', token_hint: 'cdef', created_at: new Date(T0 + 1).toISOString(), revoked_at: null, last_used_at: null, memories: 'own', history: 'own' },
      { name: 'bob', token_hint: 'efgh', created_at: new Date(T0).toISOString(), revoked_at: null, last_used_at: null, memories: 'own', history: 'own' },
    ]);
    expect(JSON.stringify(list)).not.toContain(sha256(token));
  });

  it('keeps only the hash on disk', () => {
    const store = newStore();
    store.clients.add('alice', sha256(token), token.slice(-4), T0);
    store.close();
    const bytes = [file, `${file}-wal`].filter(existsSync).map((f) => readFileSync(f).toString('latin1')).join('');
    expect(bytes).toContain(sha256(token));
    expect(bytes).not.toContain(token);
  });

  it('refuses a second client with a name in use', () => {
    const store = newStore();
    store.clients.add('alice', sha256(token), 'cdef', T0);
    expect(() => store.clients.add('alice', sha256('pk_another-token-0123456789'), '6789', T0)).toThrow(/already exists/);
    expect(() => store.clients.add('alice', sha256('pk_another-token-0123456789'), '6789', T0)).toThrow(ClientExistsError);
    expect(store.clients.findByTokenHash(sha256(token))).toBe('alice');
  });

  it('revokes a client: its token stops working, and revoking twice reports false', () => {
    const store = newStore();
    store.clients.add('alice', sha256(token), 'cdef', T0);
    expect(store.clients.revoke('alice', T0 + 5)).toBe(true);
    expect(store.clients.findByTokenHash(sha256(token))).toBeUndefined();
    expect(store.clients.list()[0]?.revoked_at).toBe(new Date(T0 + 5).toISOString());
    expect(store.clients.revoke('alice', T0 + 6)).toBe(false);
    expect(store.clients.revoke('nobody')).toBe(false);
  });

  it('re-adds a revoked name with a new token; the old token stays dead', () => {
    const store = newStore();
    const fresh = 'pk_alice-second-token-9876543210zyxwv';
    store.clients.add('alice', sha256(token), 'cdef', T0);
    store.clients.touch('alice', T0 + 1);
    // What the owner gave the old client, the new one under the same name does not inherit.
    store.clients.setHistoryScope('alice', 'all');
    store.clients.setMemoryScope('alice', 'all');
    store.clients.revoke('alice', T0 + 2);
    const added = store.clients.add('alice', sha256(fresh), 'zyxwv'.slice(-4), T0 + 3);
    expect(added).toEqual(store.clients.get('alice'));
    expect(store.clients.findByTokenHash(sha256(fresh))).toBe('alice');
    expect(store.clients.findByTokenHash(sha256(token))).toBeUndefined();
    expect(store.clients.list()).toEqual([
      { name: 'alice', token_hint: 'yxwv', created_at: new Date(T0 + 3).toISOString(), revoked_at: null, last_used_at: null, memories: 'own', history: 'own' },
    ]);
  });

  it('gives a named client its own history and memories until the owner widens them, and narrows a revoked one back', () => {
    const store = newStore();
    store.clients.add('alice', sha256(token), 'cdef', T0);
    expect(store.clients.scopes('alice')).toEqual({ memories: 'own', history: 'own' });
    expect(store.clients.setHistoryScope('alice', 'all')).toBe(true);
    expect(store.clients.scopes('alice')).toEqual({ memories: 'own', history: 'all' });
    expect(store.clients.get('alice')?.history).toBe('all');
    // A stream or request under way when the token is revoked reads no more than its own from then on.
    store.clients.revoke('alice', T0 + 1);
    expect(store.clients.scopes('alice')).toEqual({ memories: 'own', history: 'own' });
    expect(store.clients.setHistoryScope('alice', 'all')).toBe(false);
    expect(store.clients.setHistoryScope('nobody', 'all')).toBe(false);
    // Names without a row are the default client and the owner: they read everything.
    expect(store.clients.scopes('default')).toEqual({ memories: 'all', history: 'all' });
  });

  it('records when a client was last used', () => {
    const store = newStore();
    store.clients.add('alice', sha256(token), 'cdef', T0);
    store.clients.touch('alice', T0 + 42);
    expect(store.clients.list()[0]?.last_used_at).toBe(new Date(T0 + 42).toISOString());
  });
});

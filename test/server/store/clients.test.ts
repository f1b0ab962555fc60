import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../../server/auth/secrets.js';
import { archivedName } from '../../../server/store/clients.js';
import { ClientExistsError } from '../../../server/store/index.js';
import { finishedCall } from '../../helpers/calls.js';
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
    expect(added).toEqual({ ...store.clients.get('alice'), archived_as: archivedName('alice', T0 + 2) });
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

describe('a name issued again after its revocation', () => {
  const iso = (ms: number) => new Date(ms).toISOString();

  it("moves everything the earlier holder left to its archived name, in every table, and leaves other clients' alone", () => {
    const store = newStore();
    store.clients.add('alice', sha256('pk_alice-first-token-0123456789abcdef'), 'cdef', T0);
    for (const client of ['alice', 'bob']) {
      store.calls.save(finishedCall(`c_${client}`, iso(T0 + 1), { client }));
      store.memories.add({ content: `${client} note`, tags: [], category: null, client, call_id: null, terms: ['note'] });
      store.conversations.create({ id: `conv-${client}`, client, title: 't', model: 'm' }, T0 + 2);
      store.fileWrites.note([{ path: `/work/${client}.txt`, client, tool: 'file_write', call_id: `c_${client}`, at: T0 + 3 }], T0, 100);
      store.approvals.save({
        id: `a_${client}`, kind: 'call', call_id: `c_${client}`, tool: 'run_shell', client, arguments: {}, risk: 'dangerous', rule: 'risk:dangerous',
        reason: 'r', status: 'denied', decision: 'deny', message: null, granted_rule: null, created_at: iso(T0 + 4), expires_at: iso(T0 + 5),
        decided_at: iso(T0 + 5), decided_by: 'owner',
      });
    }
    const revokedAt = T0 + 10;
    expect(store.clients.revoke('alice', revokedAt)).toBe(true);
    // Revoking alone moves nothing: the owner still reads the revoked client's records under its name.
    expect(store.calls.get('c_alice')?.client).toBe('alice');

    store.clients.add('alice', sha256('pk_alice-second-token-0123456789abcdef'), 'cdef', T0 + 20);
    const archived = archivedName('alice', revokedAt);
    expect(archived).toBe(`alice~revoked-${iso(revokedAt)}`);
    expect(store.calls.get('c_alice')?.client).toBe(archived);
    expect(store.approvals.get('a_alice')?.client).toBe(archived);
    expect(store.conversations.get('conv-alice')?.client).toBe(archived);
    expect(store.memories.newest({ client: 'alice' }, 10)).toEqual([]);
    expect(store.memories.newest({ client: archived }, 10).map((m) => m.content)).toEqual(['alice note']);
    // The memory statistics of each writer follow the memories (the search scores a limited client over its own).
    expect(store.memories.ofWriter('alice').corpus().docs).toBe(0);
    expect(store.memories.ofWriter(archived).corpus().docs).toBe(1);
    expect(store.memories.ofWriter(archived).documentFrequencies(['note'])).toEqual(new Map([['note', 1]]));
    expect(store.fileWrites.at(['/work/alice.txt'], T0).map((w) => w.client)).toEqual([archived]);
    for (const id of ['c_bob']) expect(store.calls.get(id)?.client).toBe('bob');
    expect(store.approvals.get('a_bob')?.client).toBe('bob');
    expect(store.memories.newest({ client: 'bob' }, 10)).toHaveLength(1);
  });

  it('moves nothing when a name is issued for the first time, or when issuing fails because the name is taken', () => {
    const store = newStore();
    store.calls.save(finishedCall('c_carol', iso(T0), { client: 'carol' }));
    store.clients.add('carol', sha256('pk_carol-token-0123456789abcdefghij'), 'ghij', T0 + 1);
    expect(store.calls.get('c_carol')?.client).toBe('carol');
    expect(() => store.clients.add('carol', sha256('pk_carol-other-0123456789abcdefghij'), 'ghij', T0 + 2)).toThrow(ClientExistsError);
    expect(store.calls.get('c_carol')?.client).toBe('carol');
  });
});

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256 } from '../../server/auth/secrets.js';
import { migrate, openDatabase, type Db } from '../../server/store/db.js';
import { ClientExistsError, openStore, type CallRecord, type CallStatus, type Store } from '../../server/store/index.js';
import { MIGRATIONS, type Migration } from '../../server/store/migrations/index.js';
import { finishedCall } from '../helpers/calls.js';

const NEWEST = MIGRATIONS.at(-1)!.version;
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0); // a whole minute, so minute buckets start exactly here

let dir: string;
let file: string;
const open: { close(): void }[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pincer-store-'));
  file = join(dir, 'pincer.db');
});

afterEach(() => {
  for (const handle of open.splice(0)) {
    try {
      handle.close();
    } catch {
      // already closed by the test
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

function track<T extends { close(): void }>(handle: T): T {
  open.push(handle);
  return handle;
}

function newStore(): Store {
  return track(openStore(file));
}

function newDb(): Db {
  return track(openDatabase(file));
}

function userVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

function tableNames(db: Db): string[] {
  return db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY name")
    .all()
    .map((r) => r.name);
}

let seq = 0;
/** A finished call; override what a test is about. */
function call(overrides: Partial<CallRecord> = {}): CallRecord {
  seq += 1;
  return finishedCall(`c_${String(seq).padStart(6, '0')}`, overrides.started_at ?? new Date(T0 + seq * 1000).toISOString(), overrides);
}

describe('migrations', () => {
  it('run on a new file and set user_version to the newest migration', () => {
    const db = newDb();
    expect(userVersion(db)).toBe(NEWEST);
    expect(tableNames(db)).toEqual(expect.arrayContaining(['calls', 'clients', 'owner_sessions', 'tool_settings', 'used_login_codes']));
  });

  it('are a no-op when the database is reopened, and keep the data', () => {
    const first = openStore(file);
    first.calls.save(call({ id: 'c_kept' }));
    first.close();
    const second = newStore();
    expect(second.calls.get('c_kept')?.id).toBe('c_kept');
    expect(second.calls.count()).toBe(1);
    expect(userVersion(newDb())).toBe(NEWEST);
  });

  it('refuse a database from a newer Pincer with a message saying what to do', () => {
    const db = openDatabase(file);
    db.pragma(`user_version = ${NEWEST + 41}`);
    db.close();
    expect(() => openStore(file)).toThrow(
      new RegExp(`schema version ${NEWEST + 41}, newer than this Pincer knows \\(${NEWEST}\\); update Pincer or use another data directory`),
    );
  });

  it('roll a failing migration back completely and keep the migrations before it', () => {
    const db = newDb();
    const good: Migration = { version: NEWEST + 1, name: 'good', sql: 'CREATE TABLE good_one (id INTEGER PRIMARY KEY);' };
    const broken: Migration = {
      version: NEWEST + 2,
      name: 'broken',
      sql: `CREATE TABLE broken_one (id INTEGER PRIMARY KEY);
            CREATE INDEX broken_index ON broken_one (id);
            INSERT INTO good_one (id) VALUES (1);
            INSERT INTO no_such_table VALUES (1);`,
    };
    expect(() => migrate(db, [...MIGRATIONS, good, broken])).toThrow(/no_such_table/);
    const names = tableNames(db);
    expect(names).toContain('good_one');
    expect(names).not.toContain('broken_one');
    expect(names).not.toContain('broken_index');
    expect(db.prepare('SELECT count(*) AS n FROM good_one').get()).toEqual({ n: 0 });
    expect(userVersion(db)).toBe(NEWEST + 1);
  });

  it('skip a migration another connection applied between the version check and the transaction', () => {
    const next: Migration = { version: NEWEST + 1, name: 'next', sql: 'CREATE TABLE next_one (id INTEGER PRIMARY KEY);' };
    const list = [...MIGRATIONS, next];
    const mine = newDb();
    const theirs = newDb();
    // The other process (a CLI started at the same moment) wins the race right after this one reads the version.
    const pragma = mine.pragma.bind(mine);
    let raced = false;
    mine.pragma = ((source: string, options?: { simple?: boolean }) => {
      const result = pragma(source, options);
      if (!raced && source === 'user_version') {
        raced = true;
        migrate(theirs, list);
      }
      return result;
    }) as Db['pragma'];
    expect(() => migrate(mine, list)).not.toThrow();
    expect(raced).toBe(true);
    expect(userVersion(theirs)).toBe(NEWEST + 1);
  });

  it('turn on WAL mode', () => {
    expect(newDb().pragma('journal_mode', { simple: true })).toBe('wal');
  });
});

describe('calls: saving and reading', () => {
  it('round-trips a call: JSON arguments and result, null error, cache_hit, ISO dates', () => {
    const store = newStore();
    const saved = call({
      arguments: { list: [1, 'two', { three: null }], nested: { deep: true } },
      result: { rows: [{ a: 1 }], text: 'ünïcødé 中文' },
      cache_hit: true,
      started_at: '2026-03-04T05:06:07.089Z',
      finished_at: '2026-03-04T05:06:07.123Z',
      duration_ms: 34.25,
    });
    store.calls.save(saved);
    const loaded = store.calls.get(saved.id);
    expect(loaded).toEqual(saved);
    expect(loaded?.error).toBeNull();
    expect(loaded?.cache_hit).toBe(true);
  });

  it('round-trips a failed call with its error and a null result', () => {
    const store = newStore();
    const failed = call({
      status: 'failed',
      result: null,
      error: { name: 'TOOL_TIMEOUT', message: 'did not finish' },
      http_status: 200,
      cache_hit: false,
    });
    store.calls.save(failed);
    expect(store.calls.get(failed.id)).toEqual(failed);
  });

  it('round-trips a running call with no finish time or duration', () => {
    const store = newStore();
    const running = call({ status: 'running', result: null, finished_at: null, duration_ms: null, http_status: null });
    store.calls.save(running);
    expect(store.calls.get(running.id)).toEqual(running);
  });

  it('answers undefined for an unknown id', () => {
    expect(newStore().calls.get('c_nope')).toBeUndefined();
  });

  it('updates the outcome of an existing id instead of adding a row', () => {
    const store = newStore();
    const pending = call({ status: 'pending', result: null, finished_at: null, duration_ms: null, http_status: null });
    store.calls.save(pending);
    store.calls.save(call());
    const done: CallRecord = {
      ...pending,
      status: 'succeeded',
      result: { ok: 1 },
      http_status: 200,
      decision: 'allow',
      rule: 'grant:7',
      finished_at: new Date(T0 + 99_000).toISOString(),
      duration_ms: 12,
    };
    store.calls.save(done);
    expect(store.calls.count()).toBe(2);
    expect(store.calls.get(pending.id)).toEqual(done);
    // It keeps its place in the history: the later call is still listed first.
    expect(store.calls.list({ limit: 10 }).calls.map((c) => c.id)).toEqual([expect.not.stringMatching(pending.id), pending.id]);
  });
});

describe('calls: listing', () => {
  it('lists newest first', () => {
    const store = newStore();
    const ids = [1, 2, 3, 4].map(() => {
      const c = call();
      store.calls.save(c);
      return c.id;
    });
    expect(store.calls.list({ limit: 10 }).calls.map((c) => c.id)).toEqual(ids.reverse());
  });

  it('filters by tool, status, client and since, alone and together', () => {
    const store = newStore();
    const a = call({ tool: 'alpha', client: 'ann', status: 'succeeded', started_at: new Date(T0).toISOString() });
    const b = call({ tool: 'alpha', client: 'bob', status: 'failed', started_at: new Date(T0 + 1000).toISOString() });
    const c = call({ tool: 'beta', client: 'ann', status: 'failed', started_at: new Date(T0 + 2000).toISOString() });
    const d = call({ tool: 'beta', client: 'bob', status: 'denied', started_at: new Date(T0 + 3000).toISOString() });
    for (const x of [a, b, c, d]) store.calls.save(x);
    const ids = (filter: Parameters<typeof store.calls.list>[0]) => store.calls.list(filter).calls.map((x) => x.id);
    expect(ids({ limit: 10, tool: 'alpha' })).toEqual([b.id, a.id]);
    expect(ids({ limit: 10, status: 'failed' })).toEqual([c.id, b.id]);
    expect(ids({ limit: 10, client: 'ann' })).toEqual([c.id, a.id]);
    expect(ids({ limit: 10, since: T0 + 2000 })).toEqual([d.id, c.id]); // inclusive
    expect(ids({ limit: 10, tool: 'beta', client: 'bob' })).toEqual([d.id]);
    expect(ids({ limit: 10, tool: 'alpha', status: 'denied' })).toEqual([]);
    expect(ids({ limit: 10, tool: 'gamma' })).toEqual([]);
  });

  it('visits every one of 125 calls exactly once in pages of 50', () => {
    const store = newStore();
    const all: string[] = [];
    for (let i = 0; i < 125; i++) {
      const c = call();
      store.calls.save(c);
      all.push(c.id);
    }
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const result = store.calls.list({ limit: 50, ...(cursor && { cursor }) });
      seen.push(...result.calls.map((c) => c.id));
      sizes.push(result.calls.length);
      if (result.next_cursor === null) break;
      cursor = result.next_cursor;
    }
    expect(sizes).toEqual([50, 50, 25]);
    expect(seen).toEqual([...all].reverse());
    expect(new Set(seen).size).toBe(125);
  });

  it('gives no next cursor when a page ends exactly at the last call', () => {
    const store = newStore();
    for (let i = 0; i < 4; i++) store.calls.save(call());
    const first = store.calls.list({ limit: 2 });
    expect(first.next_cursor).not.toBeNull();
    const second = store.calls.list({ limit: 2, cursor: first.next_cursor! });
    expect(second.calls).toHaveLength(2);
    expect(second.next_cursor).toBeNull();
  });

  it('pages within a filter', () => {
    const store = newStore();
    const alphas: string[] = [];
    for (let i = 0; i < 7; i++) {
      const c = call({ tool: i % 2 === 0 ? 'alpha' : 'beta' });
      store.calls.save(c);
      if (c.tool === 'alpha') alphas.push(c.id);
    }
    const first = store.calls.list({ limit: 3, tool: 'alpha' });
    const second = store.calls.list({ limit: 3, tool: 'alpha', cursor: first.next_cursor! });
    expect([...first.calls, ...second.calls].map((c) => c.id)).toEqual(alphas.reverse());
    expect(second.next_cursor).toBeNull();
  });

  it.each([
    ['not base64 at all', '!!!'],
    ['a word', Buffer.from('abc').toString('base64url')],
    ['zero', Buffer.from('0').toString('base64url')],
    ['a negative number', Buffer.from('-5').toString('base64url')],
    ['a fraction', Buffer.from('2.5').toString('base64url')],
  ])('refuses an invalid cursor (%s) with a RangeError', (_what, cursor) => {
    const store = newStore();
    store.calls.save(call());
    expect(() => store.calls.list({ limit: 10, cursor })).toThrow(RangeError);
  });
});

describe('calls: after a crash', () => {
  it('marks running and pending calls cancelled and leaves finished ones alone', () => {
    const store = newStore();
    const running = call({ status: 'running', finished_at: null, duration_ms: null, result: null });
    const pending = call({ status: 'pending', finished_at: null, duration_ms: null, result: null });
    const done = call({ status: 'succeeded' });
    const failed = call({ status: 'failed', error: { name: 'X', message: 'x' } });
    for (const c of [running, pending, done, failed]) store.calls.save(c);
    const now = T0 + 3_600_000;
    expect(store.calls.cancelOpen(now)).toBe(2);
    for (const c of [running, pending]) {
      const after = store.calls.get(c.id)!;
      expect(after.status).toBe('cancelled');
      expect(after.error?.name).toBe('CALL_CANCELLED');
      expect(after.finished_at).toBe(new Date(now).toISOString());
    }
    expect(store.calls.get(done.id)).toEqual(done);
    expect(store.calls.get(failed.id)).toEqual(failed);
    expect(store.calls.cancelOpen(now)).toBe(0);
  });
});

describe('calls: statistics', () => {
  it('computes p50, p95, max and avg latency exactly for durations 1..100', () => {
    const store = newStore();
    // Inserted out of order, so the percentiles must come from sorting by duration.
    const durations = Array.from({ length: 100 }, (_, i) => ((i * 37) % 100) + 1);
    expect(new Set(durations).size).toBe(100);
    for (const d of durations) store.calls.save(call({ tool: 'timed', duration_ms: d }));
    store.calls.save(call({ tool: 'other', duration_ms: 10_000 }));
    const stats = store.calls.toolStats('timed');
    expect(stats.calls).toBe(100);
    expect(stats.latency_ms).toEqual({ avg: 50.5, p50: 50, p95: 95, p99: 99, max: 100 });
  });

  it('uses nearest-rank percentiles on small sets', () => {
    const store = newStore();
    for (const d of [10, 20]) store.calls.save(call({ tool: 'two', duration_ms: d }));
    store.calls.save(call({ tool: 'one', duration_ms: 7 }));
    expect(store.calls.toolStats('two').latency_ms).toEqual({ avg: 15, p50: 10, p95: 20, p99: 20, max: 20 });
    expect(store.calls.toolStats('one').latency_ms).toEqual({ avg: 7, p50: 7, p95: 7, p99: 7, max: 7 });
  });

  it('leaves calls without a duration (still running) out of the latency', () => {
    const store = newStore();
    store.calls.save(call({ tool: 't', duration_ms: 4 }));
    store.calls.save(call({ tool: 't', status: 'running', duration_ms: null, finished_at: null }));
    expect(store.calls.toolStats('t').latency_ms).toEqual({ avg: 4, p50: 4, p95: 4, p99: 4, max: 4 });
  });

  it('counts outcomes; the success rate is over finished calls (succeeded + failed) only', () => {
    const store = newStore();
    const err = (name: string) => ({ status: 'failed' as CallStatus, error: { name, message: name } });
    for (let i = 0; i < 6; i++) store.calls.save(call({ tool: 't', cache_hit: i < 2 }));
    store.calls.save(call({ tool: 't', ...err('FILE_NOT_FOUND') }));
    store.calls.save(call({ tool: 't', ...err('FILE_NOT_FOUND') }));
    for (let i = 0; i < 3; i++) {
      store.calls.save(call({ tool: 't', status: 'denied', error: { name: 'POLICY_DENIED', message: 'no' } }));
    }
    store.calls.save(call({ tool: 't', status: 'running', duration_ms: null, finished_at: null }));
    const stats = store.calls.toolStats('t');
    expect(stats).toMatchObject({ tool: 't', calls: 12, succeeded: 6, failed: 2, denied: 3, cache_hits: 2, success_rate: 0.75 });
  });

  it('keeps refusals (never ran) out of the success rate and the latency', () => {
    const store = newStore();
    store.calls.save(call({ tool: 't', duration_ms: 40 }));
    store.calls.save(call({ tool: 't', status: 'failed', http_status: 200, duration_ms: 60, error: { name: 'TOOL_TIMEOUT', message: 'slow' } }));
    for (let i = 0; i < 5; i++) {
      store.calls.save(call({ tool: 't', status: 'failed', http_status: 400, duration_ms: 0.1, error: { name: 'INVALID_ARGUMENTS', message: 'bad' } }));
    }
    const stats = store.calls.toolStats('t');
    expect(stats).toMatchObject({ calls: 7, succeeded: 1, failed: 1, refused: 5, success_rate: 0.5 });
    expect(stats.latency_ms).toEqual({ avg: 50, p50: 40, p95: 60, p99: 60, max: 60 });
  });

  it('orders top errors by count, then name, and keeps five', () => {
    const store = newStore();
    const counts: [string, number][] = [
      ['B_ERROR', 1],
      ['A_ERROR', 3],
      ['C_ERROR', 3],
      ['D_ERROR', 2],
      ['E_ERROR', 1],
      ['F_ERROR', 1],
    ];
    for (const [name, n] of counts) {
      for (let i = 0; i < n; i++) store.calls.save(call({ tool: 't', status: 'failed', error: { name, message: name } }));
    }
    store.calls.save(call({ tool: 'elsewhere', status: 'failed', error: { name: 'Z_ERROR', message: 'z' } }));
    expect(store.calls.toolStats('t').top_errors).toEqual([
      { name: 'A_ERROR', count: 3 },
      { name: 'C_ERROR', count: 3 },
      { name: 'D_ERROR', count: 2 },
      { name: 'B_ERROR', count: 1 },
      { name: 'E_ERROR', count: 1 },
    ]);
  });

  it('reports the last call', () => {
    const store = newStore();
    store.calls.save(call({ tool: 't' }));
    const last = call({ tool: 't', status: 'failed', error: { name: 'X', message: 'x' } });
    store.calls.save(last);
    store.calls.save(call({ tool: 'other' }));
    expect(store.calls.toolStats('t').last_call).toEqual({ id: last.id, status: 'failed', at: last.started_at });
  });

  it('answers empty statistics for a tool with no calls', () => {
    expect(newStore().calls.toolStats('never')).toEqual({
      tool: 'never',
      calls: 0,
      succeeded: 0,
      failed: 0,
      refused: 0,
      denied: 0,
      success_rate: null,
      cache_hits: 0,
      latency_ms: { avg: null, p50: null, p95: null, p99: null, max: null },
      top_errors: [],
      last_call: null,
    });
  });

  it('lists the tools that have history, sorted', () => {
    const store = newStore();
    for (const tool of ['zeta', 'alpha', 'zeta', 'mid']) store.calls.save(call({ tool }));
    expect(store.calls.toolNames()).toEqual(['alpha', 'mid', 'zeta']);
  });

  it('groups calls into time buckets, oldest first, counting failed and denied', () => {
    const store = newStore();
    const at = (ms: number) => new Date(T0 + ms).toISOString();
    store.calls.save(call({ started_at: at(-5_000) })); // before `since`: left out
    store.calls.save(call({ started_at: at(0) }));
    store.calls.save(call({ started_at: at(10_000), status: 'failed', error: { name: 'X', message: 'x' } }));
    store.calls.save(call({ started_at: at(59_999) }));
    store.calls.save(call({ started_at: at(60_000), status: 'denied', error: { name: 'POLICY_DENIED', message: 'no' } }));
    store.calls.save(call({ started_at: at(185_000) }));
    expect(store.calls.overTime(T0, 60_000)).toEqual([
      { at: at(0), calls: 3, failed: 1 },
      { at: at(60_000), calls: 1, failed: 1 },
      { at: at(180_000), calls: 1, failed: 0 },
    ]);
  });
});

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

describe('owner sessions and login codes', () => {
  it('keeps a session until it expires', () => {
    const store = newStore();
    store.owner.addSession('h1', T0 + 1000, T0);
    expect(store.owner.hasSession('h1', T0)).toBe(true);
    expect(store.owner.hasSession('h1', T0 + 999)).toBe(true);
    expect(store.owner.hasSession('h1', T0 + 1000)).toBe(false);
    expect(store.owner.hasSession('other', T0)).toBe(false);
  });

  it('removes a session on logout', () => {
    const store = newStore();
    store.owner.addSession('h1', T0 + 1000, T0);
    store.owner.removeSession('h1');
    expect(store.owner.hasSession('h1', T0)).toBe(false);
  });

  it('purges expired sessions and spent codes but keeps live ones', () => {
    const store = newStore();
    store.owner.addSession('old', T0 + 10, T0);
    store.owner.addSession('live', T0 + 1000, T0);
    store.owner.spendLoginCode('old-code', T0 + 10);
    store.owner.spendLoginCode('live-code', T0 + 1000);
    store.owner.purgeExpired(T0 + 500);
    expect(store.owner.hasSession('old', 0)).toBe(false);
    expect(store.owner.hasSession('live', T0)).toBe(true);
    expect(store.owner.spendLoginCode('live-code', T0 + 1000)).toBe(false);
  });

  it('spends a login code once; a replayed code is refused', () => {
    const store = newStore();
    expect(store.owner.spendLoginCode('n1', T0 + 60_000)).toBe(true);
    expect(store.owner.spendLoginCode('n1', T0 + 60_000)).toBe(false);
    expect(store.owner.spendLoginCode('n2', T0 + 60_000)).toBe(true);
  });

  it('remembers spent codes across a restart', () => {
    const first = openStore(file);
    first.owner.spendLoginCode('n1', T0 + 60_000);
    first.close();
    expect(newStore().owner.spendLoginCode('n1', T0 + 60_000)).toBe(false);
  });
});

describe('tool settings', () => {
  it('remembers disabled tools, and re-enabling removes them', () => {
    const store = newStore();
    store.toolSettings.setEnabled('a', false, T0);
    store.toolSettings.setEnabled('b', false, T0);
    store.toolSettings.setEnabled('b', true, T0 + 1);
    store.toolSettings.setEnabled('c', true, T0);
    expect(store.toolSettings.disabledTools()).toEqual(['a']);
  });

  it('persists across a restart', () => {
    const first = openStore(file);
    first.toolSettings.setEnabled('run_shell', false, T0);
    first.close();
    expect(newStore().toolSettings.disabledTools()).toEqual(['run_shell']);
  });
});

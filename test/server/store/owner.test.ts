import { describe, expect, it } from 'vitest';
import { openStore } from '../../../server/store/index.js';
import { file, newStore, T0, useTempStore } from './temp-store.js';

useTempStore();

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

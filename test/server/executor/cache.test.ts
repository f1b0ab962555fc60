import { describe, expect, it } from 'vitest';
import { ResultCache } from '../../../server/executor/cache.js';
import { callKey } from '../../../server/util/call-key.js';

describe('ResultCache', () => {
  it('evicts the least recently used entry first', () => {
    const cache = new ResultCache(3);
    cache.set('a', 1, 60_000, 0);
    cache.set('b', 2, 60_000, 0);
    cache.set('c', 3, 60_000, 0);
    expect(cache.get('a', 1)).toEqual({ value: 1 }); // a is now the most recently used
    cache.set('d', 4, 60_000, 2); // evicts b
    expect(cache.get('b', 3)).toBeUndefined();
    cache.set('e', 5, 60_000, 4); // evicts c
    expect(cache.get('c', 5)).toBeUndefined();
    expect(cache.get('a', 6)).toEqual({ value: 1 });
    expect(cache.get('d', 6)).toEqual({ value: 4 });
    expect(cache.get('e', 6)).toEqual({ value: 5 });
    expect(cache.stats()).toMatchObject({ size: 3, evictions: 2 });
  });

  it('overwriting a key refreshes it instead of adding an entry', () => {
    const cache = new ResultCache(2);
    cache.set('a', 1, 60_000, 0);
    cache.set('b', 2, 60_000, 0);
    cache.set('a', 10, 60_000, 1);
    cache.set('c', 3, 60_000, 2); // evicts b, the least recently set
    expect(cache.get('a', 3)).toEqual({ value: 10 });
    expect(cache.get('b', 3)).toBeUndefined();
    expect(cache.stats()).toMatchObject({ size: 2, evictions: 1 });
  });

  it('expires an entry at its TTL, using the injected clock', () => {
    const cache = new ResultCache();
    cache.set('k', 'v', 1000, 5000);
    expect(cache.get('k', 5999)).toEqual({ value: 'v' });
    expect(cache.get('k', 6000)).toBeUndefined();
    expect(cache.get('k', 6001)).toBeUndefined(); // gone, not expired twice
    expect(cache.stats()).toMatchObject({ size: 0, hits: 1, misses: 2, expirations: 1 });
  });

  it('counts hits, misses, evictions and expirations and derives the hit rate', () => {
    const cache = new ResultCache(1);
    expect(cache.stats()).toEqual({ size: 0, max_entries: 1, hits: 0, misses: 0, hit_rate: null, evictions: 0, expirations: 0 });
    cache.get('missing', 0);
    cache.set('a', 1, 100, 0);
    cache.get('a', 1);
    cache.get('a', 2);
    cache.set('b', 2, 100, 3); // evicts a
    cache.get('b', 500); // expired
    expect(cache.stats()).toEqual({ size: 0, max_entries: 1, hits: 2, misses: 2, hit_rate: 0.5, evictions: 1, expirations: 1 });
  });

  it('caches falsy results', () => {
    const cache = new ResultCache();
    cache.set('zero', 0, 1000, 0);
    cache.set('null', null, 1000, 0);
    expect(cache.get('zero', 1)).toEqual({ value: 0 });
    expect(cache.get('null', 1)).toEqual({ value: null });
  });

  it('clears one tool without touching tools whose names share its prefix', () => {
    const cache = new ResultCache();
    const keys = [callKey('calc', { x: 1 }), callKey('calc', { x: 2 }), callKey('calc2', { x: 1 }), callKey('other', {})];
    for (const key of keys) cache.set(key, key, 60_000, 0);
    cache.clear('calc');
    expect(keys.map((key) => cache.get(key, 1) !== undefined)).toEqual([false, false, true, true]);
    cache.clear();
    expect(cache.stats().size).toBe(0);
  });
});

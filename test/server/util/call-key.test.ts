import { describe, expect, it } from 'vitest';
import { callKey } from '../../../server/util/call-key.js';

describe('callKey', () => {
  it('derives the same key for the same arguments in any key order, at any depth', () => {
    const a = callKey('t', { b: 1, a: { y: [1, { q: 1, p: 2 }], x: null } });
    const b = callKey('t', { a: { x: null, y: [1, { p: 2, q: 1 }] }, b: 1 });
    expect(a).toBe(b);
  });

  it('derives different keys for different tools, values or array orders', () => {
    const base = callKey('t', { a: [1, 2] });
    expect(callKey('u', { a: [1, 2] })).not.toBe(base);
    expect(callKey('t', { a: [2, 1] })).not.toBe(base);
    expect(callKey('t', { a: [1, '2'] })).not.toBe(base);
    expect(callKey('t', { a: [1, 2], b: 0 })).not.toBe(base);
  });
});

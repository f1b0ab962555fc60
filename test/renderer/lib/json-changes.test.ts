import { describe, expect, it } from 'vitest';
import { compact, fieldInWords, jsonChanges } from '../../../renderer/src/lib/json-changes.js';

describe('jsonChanges', () => {
  const before = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', maximum: 7 } }, required: ['city'] };

  it('finds nothing in equal values', () => {
    expect(jsonChanges(before, structuredClone(before))).toEqual([]);
  });

  it('names an added, a removed and a changed property by its path', () => {
    const after = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', maximum: 14 }, units: { type: 'string' } }, required: ['city'] };
    expect(jsonChanges(before, after)).toEqual([
      { path: 'properties.days.maximum', kind: 'changed', before: 7, after: 14 },
      { path: 'properties.units', kind: 'added', after: { type: 'string' } },
    ]);
    expect(jsonChanges(after, before)).toContainEqual({ path: 'properties.units', kind: 'removed', before: { type: 'string' } });
  });

  it('lists of plain values change item by item (required, enum, hosts)', () => {
    expect(jsonChanges(['city'], ['units', 'city'], 'required')).toEqual([{ path: 'required', kind: 'added', after: 'units' }]);
    expect(jsonChanges({ enum: ['a', 'b'] }, { enum: ['b', 'c'] })).toEqual([
      { path: 'enum', kind: 'removed', before: 'a' },
      { path: 'enum', kind: 'added', after: 'c' },
    ]);
  });

  it('a list whose order alone changed shows both lists', () => {
    expect(jsonChanges(['a', 'b'], ['b', 'a'])).toEqual([{ path: '', kind: 'changed', before: ['a', 'b'], after: ['b', 'a'] }]);
  });

  it('lists of objects change position by position', () => {
    expect(jsonChanges({ anyOf: [{ type: 'string' }] }, { anyOf: [{ type: 'number' }, { type: 'null' }] })).toEqual([
      { path: 'anyOf[0].type', kind: 'changed', before: 'string', after: 'number' },
      { path: 'anyOf[1]', kind: 'added', after: { type: 'null' } },
    ]);
  });

  it('a value that appears, goes or changes kind is one change at the top', () => {
    expect(jsonChanges(null, { readOnlyHint: true })).toEqual([{ path: '', kind: 'added', after: { readOnlyHint: true } }]);
    expect(jsonChanges({ ttl_s: 60 }, null)).toEqual([{ path: '', kind: 'removed', before: { ttl_s: 60 } }]);
    expect(jsonChanges('Old text.', 'New text.')).toEqual([{ path: '', kind: 'changed', before: 'Old text.', after: 'New text.' }]);
    expect(jsonChanges({ a: [1] }, { a: { 0: 1 } })).toEqual([{ path: 'a', kind: 'changed', before: [1], after: { 0: 1 } }]);
  });
});

describe('compact', () => {
  it('shows strings as they are and the rest as one line of JSON', () => {
    expect(compact('plain "text"')).toBe('plain "text"');
    expect(compact({ type: 'string', enum: ['a'] })).toBe('{"type":"string","enum":["a"]}');
    expect(compact(null)).toBe('null');
  });

  it('cuts long values with an ellipsis', () => {
    expect(compact('x'.repeat(50), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(compact({ text: 'y'.repeat(500) })).toHaveLength(200);
  });
});

describe('fieldInWords', () => {
  it('names a plugin tool\'s parameters and an MCP tool\'s inputSchema alike', () => {
    expect(fieldInWords('parameters')).toBe('schema');
    expect(fieldInWords('inputSchema')).toBe('schema');
    expect(fieldInWords('timeoutMs')).toBe('timeout (ms)');
  });

  it('keeps a field it has no word for', () => {
    expect(fieldInWords('description')).toBe('description');
  });
});

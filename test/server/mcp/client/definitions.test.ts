import { describe, expect, it } from 'vitest';
import { parseServerEntry } from '../../../../server/mcp/client/entry.js';
import { importedNames } from '../../../../server/mcp/client/naming.js';
import { definitionHash } from '../../../../server/mcp/client/pins.js';

/** What decides whether an imported tool may run: its name, its entry and the pin's hash (the poisoning flags: test/server/tools/poisoning.test.ts). */

describe('imported tool names', () => {
  it('are <server>__<tool> when that fits', () => {
    expect(importedNames('serena', ['find_symbol', 'read_file'])).toEqual(new Map([['find_symbol', 'serena__find_symbol'], ['read_file', 'serena__read_file']]));
  });

  it('stay within 64 characters and stay distinct, the same whatever the order', () => {
    const long = 'x'.repeat(70);
    const names = importedNames('server', [long, `${long}y`, 'a.b', 'a_b']);
    for (const name of names.values()) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(new Set(names.values()).size).toBe(4);
    expect(names.get('a_b')).toBe('server__a_b');
    expect(importedNames('server', ['a_b', 'a.b', `${long}y`, long])).toEqual(names);
  });

  it('are the tools\' own names for a server imported without its prefix, made valid the same way', () => {
    const names = importedNames('serena', ['find_symbol', 'a.b', 'x'.repeat(70)], false);
    expect(names.get('find_symbol')).toBe('find_symbol');
    expect(names.get('a.b')).toMatch(/^a_b_[0-9a-f]{8}$/);
    for (const name of names.values()) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });
});

describe('mcp_servers entries', () => {
  it('accepts a stdio command and an HTTP URL', () => {
    expect(parseServerEntry('serena', { command: 'uvx', args: ['serena', 'start-mcp-server'], env: { A: 'b' } })).toMatchObject({ kind: 'stdio', command: 'uvx', args: ['serena', 'start-mcp-server'] });
    expect(parseServerEntry('remote', { url: 'http://127.0.0.1:9000/mcp', token: 't' })).toMatchObject({ kind: 'http', token: 't' });
  });

  it('prefixes the tools\' names unless "prefix" is false, and takes nothing else for it', () => {
    expect(parseServerEntry('a', { command: 'a' })).toMatchObject({ prefix: true });
    expect(parseServerEntry('a', { command: 'a', prefix: false })).toMatchObject({ prefix: false });
    expect(parseServerEntry('a', { url: 'http://127.0.0.1:9000/mcp', prefix: false })).toMatchObject({ kind: 'http', prefix: false });
    expect(parseServerEntry('a', { command: 'a', prefix: 'no' })).toHaveProperty('problem', expect.stringContaining('"prefix" must be true'));
  });

  it('explains what is wrong with a bad one', () => {
    expect(parseServerEntry('x', { command: 5 })).toHaveProperty('problem');
    expect(parseServerEntry('x', { url: 'file:///etc/passwd' })).toHaveProperty('problem', '"url" must be an http:// or https:// URL');
    expect(parseServerEntry('bad name', { command: 'a' })).toHaveProperty('problem');
    expect(parseServerEntry('x', { command: 'a', extra: 1 })).toHaveProperty('problem');
    expect(parseServerEntry('x', { command: 'a', env: { A: 1 } })).toHaveProperty('problem');
  });
});

describe('definition pins', () => {
  it('hash the same definition the same whatever the key order, and any change differently', () => {
    const a = definitionHash({ description: 'd', inputSchema: { type: 'object', properties: { a: {}, b: {} } } });
    const b = definitionHash({ inputSchema: { properties: { b: {}, a: {} }, type: 'object' }, description: 'd' });
    expect(a).toBe(b);
    expect(definitionHash({ description: 'd ', inputSchema: { type: 'object', properties: { a: {}, b: {} } } })).not.toBe(a);
  });
});

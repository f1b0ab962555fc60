import { describe, expect, it } from 'vitest';
import type { PluginPermissions, PluginStatus } from '../../../../renderer/src/lib/types.js';
import {
  compact,
  confined,
  jsonChanges,
  joinReasons,
  newPluginCommand,
  permissionLines,
  sourceInWords,
  STATUS_LOOK,
} from '../../../../renderer/src/views/plugins/describe.js';

const NONE: PluginPermissions = { hosts: [], read: [], write: [], childProcess: false, workers: false, addons: false };

describe('STATUS_LOOK', () => {
  it('gives every status its own icon and word, so colour is never the only signal', () => {
    const statuses: PluginStatus[] = ['loading', 'running', 'new', 'changed', 'disabled', 'failed', 'crashed'];
    expect(new Set(statuses.map((s) => STATUS_LOOK[s].icon)).size).toBe(statuses.length);
    for (const status of statuses) expect(STATUS_LOOK[status].label).toBe(status);
  });
});

describe('sourceInWords', () => {
  it('says nothing for built-in tools, or when the gateway does not say', () => {
    expect(sourceInWords('builtin')).toBeNull();
    expect(sourceInWords(undefined)).toBeNull();
  });

  it('names the plugin or the MCP server', () => {
    expect(sourceInWords('plugin:investment')).toEqual({ kind: 'plugin', name: 'investment' });
    expect(sourceInWords('mcp:github')).toEqual({ kind: 'MCP server', name: 'github' });
  });

  it('splits at the first colon only', () => {
    expect(sourceInWords('mcp:host:8080')).toEqual({ kind: 'MCP server', name: 'host:8080' });
  });
});

describe('joinReasons', () => {
  it('joins one, two and three reasons as a sentence', () => {
    expect(joinReasons(['a'])).toBe('a');
    expect(joinReasons(['a', 'b'])).toBe('a and b');
    expect(joinReasons(['a', 'b', 'c'])).toBe('a, b and c');
    expect(joinReasons([])).toBe('');
  });
});

describe('permissionLines', () => {
  it('a plugin that asks for nothing reads its own folder only', () => {
    expect(permissionLines(NONE)).toEqual([{ label: 'Reads files', values: [{ text: 'its own folder', literal: false }] }]);
    expect(confined(NONE)).toBe(true);
  });

  it('lists hosts, paths and what it may run, hosts and paths as literals', () => {
    const lines = permissionLines({ hosts: ['hq.sinajs.cn'], read: ['/srv/data'], write: ['/tmp/out'], childProcess: true, workers: false, addons: true });
    expect(lines.map((l) => l.label)).toEqual(['Reaches hosts', 'Reads files', 'Writes files', 'Runs code']);
    expect(lines[0]!.values).toEqual([{ text: 'hq.sinajs.cn', literal: true }]);
    expect(lines[1]!.values.map((v) => v.text)).toEqual(['its own folder', '/srv/data']);
    expect(lines[3]!.values.map((v) => v.text)).toEqual(['starts processes', 'loads native addons']);
  });

  it('any one permission is enough not to be confined', () => {
    expect(confined({ ...NONE, hosts: ['a.example'] })).toBe(false);
    expect(confined({ ...NONE, workers: true })).toBe(false);
  });
});

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

describe('newPluginCommand', () => {
  it('needs no data folder for the default one, nor before the folder is known', () => {
    expect(newPluginCommand('/home/me/.pincer/plugins')).toBe('pincer plugin new my-tools');
    expect(newPluginCommand('C:\\Users\\me\\.pincer\\plugins', 'notes')).toBe('pincer plugin new notes');
    expect(newPluginCommand(null)).toBe('pincer plugin new my-tools');
  });

  it('names any other data folder, quoted for the shell when it must be', () => {
    expect(newPluginCommand('/srv/pincer/plugins')).toBe('pincer plugin new my-tools --data-dir /srv/pincer');
    expect(newPluginCommand('/home/me/My Data/plugins/')).toBe("pincer plugin new my-tools --data-dir '/home/me/My Data'");
    expect(newPluginCommand("/tmp/it's/plugins")).toBe("pincer plugin new my-tools --data-dir '/tmp/it'\\''s'");
  });
});

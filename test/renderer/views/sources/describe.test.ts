import { describe, expect, it } from 'vitest';
import type { HeldBecause, SourceStatus, SourceToolStatus } from '../../../../server/contract/sources.js';
import {
  byAttention,
  countsByFilter,
  filterOf,
  inTrouble,
  joinReasons,
  needsOwner,
  shownBy,
  sourceInWords,
  sourceLook,
  summary,
  toneOf,
  toolLook,
} from '../../../../renderer/src/views/sources/describe.js';
import { held, plugin, server, tool } from './fixtures.js';

const SOURCE_STATUSES: SourceStatus[] = ['starting', 'running', 'held', 'restarting', 'failed', 'disabled', 'stopped'];
const TOOL_STATUSES: SourceToolStatus[] = ['active', 'held', 'disabled', 'invalid', 'inactive'];
const BECAUSE: HeldBecause[] = ['new', 'changed', 'flagged'];

describe('sourceLook and toolLook', () => {
  it('give every status, and every reason to hold one back, its own icon and word: colour is never the only signal', () => {
    for (const look of [sourceLook, toolLook] as const) {
      const statuses = [...(look === sourceLook ? SOURCE_STATUSES : TOOL_STATUSES).filter((s) => s !== 'held'), ...BECAUSE];
      const looks = statuses.map((s) => (BECAUSE.includes(s as HeldBecause) ? look('held', s as HeldBecause) : look(s as never, null)));
      expect(new Set(looks.map((l) => l.icon)).size).toBe(statuses.length);
      expect(new Set(looks.map((l) => l.label)).size).toBe(statuses.length);
    }
  });

  it('says a held source or tool is held, and why, in the same words for every kind', () => {
    expect(sourceLook('held', 'new').label).toBe('held · new');
    expect(sourceLook('held', 'changed').label).toBe('held · changed');
    expect(toolLook('held', 'flagged')).toMatchObject({ label: 'held · flagged', tone: 'fail' });
    expect(sourceLook('restarting', null).label).toBe('restarting');
    expect(toolLook('active', null).label).toBe('active');
  });
});

describe('what waits for the owner, and what is in trouble', () => {
  it('a held plugin waits; a running server waits only while a tool of it is held back', () => {
    expect(needsOwner(plugin('p', 'held', { held_because: 'new' }))).toBe(true);
    expect(needsOwner(server('s', 'running', { tools: [tool('a', 'active', { accepted: false })] }))).toBe(false);
    expect(needsOwner(server('s', 'running', { tools: [tool('a', 'active'), held('b', 'flagged')] }))).toBe(true);
  });

  it('is in trouble when failed, restarting, or a server running with an error', () => {
    expect(inTrouble(plugin('p', 'failed'))).toBe(true);
    expect(inTrouble(plugin('p', 'restarting'))).toBe(true);
    expect(inTrouble(server('s', 'running', { reason: 'could not list its tools: timeout' }))).toBe(true);
    expect(inTrouble(server('s', 'running'))).toBe(false);
    // The error that made it restart stays shown once it runs again; only a running server's own error counts.
    expect(inTrouble(server('s', 'disabled', { reason: 'the server process exited (SIGKILL)' }))).toBe(false);
  });

  it('colours a running server with held tools as waiting', () => {
    expect(toneOf(server('s', 'running', { tools: [held('b', 'flagged')] }))).toBe('wait');
    expect(toneOf(server('s', 'running'))).toBe('ok');
    expect(toneOf(plugin('p', 'failed'))).toBe('fail');
  });
});

describe('one list of both kinds', () => {
  const mixed = [
    server('b-running', 'running'),
    plugin('off', 'disabled'),
    plugin('a-running', 'running'),
    server('broken', 'failed'),
    server('waits', 'running', { tools: [held('x', 'flagged')] }),
    plugin('greeter', 'held', { held_because: 'new' }),
    plugin('booting', 'starting'),
  ];

  it('lists what waits for the owner, then trouble, then starting, running, off, whatever the kind; by name within each', () => {
    expect(byAttention(mixed).map((s) => s.name)).toEqual(['greeter', 'waits', 'broken', 'booting', 'a-running', 'b-running', 'off']);
  });

  it('a plugin and a server of the same name are both listed, plugin first', () => {
    expect(byAttention([server('memory', 'running'), plugin('memory', 'running')]).map((s) => s.key)).toEqual(['plugin:memory', 'mcp:memory']);
  });

  it('the filter shows every source, or one kind, and reads from the address', () => {
    expect(mixed.filter(shownBy('all'))).toHaveLength(7);
    expect(mixed.filter(shownBy('plugin')).map((s) => s.name)).toEqual(['off', 'a-running', 'greeter', 'booting']);
    expect(mixed.filter(shownBy('mcp')).map((s) => s.name)).toEqual(['b-running', 'broken', 'waits']);
    expect([filterOf(''), filterOf('plugins'), filterOf('mcp'), filterOf('nonsense')]).toEqual(['all', 'plugin', 'mcp', 'all']);
  });

  it('each filter counts what it shows and what of it waits for the owner', () => {
    expect(countsByFilter(mixed)).toEqual({ all: { all: 7, waiting: 2 }, plugin: { all: 4, waiting: 1 }, mcp: { all: 3, waiting: 1 } });
    expect(countsByFilter([])).toEqual({ all: { all: 0, waiting: 0 }, plugin: { all: 0, waiting: 0 }, mcp: { all: 0, waiting: 0 } });
  });

  it('the summary counts each kind and says only what is not zero', () => {
    expect(summary(mixed)).toBe('4 plugins, 3 MCP servers, 3 running, 2 waiting for you, 1 in trouble');
    expect(summary(mixed.filter(shownBy('mcp')))).toBe('3 MCP servers, 2 running, 1 waiting for you, 1 in trouble');
    expect(summary([plugin('a', 'running')])).toBe('1 plugin, 1 running');
    expect(summary([server('a', 'running')])).toBe('1 MCP server, 1 running');
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

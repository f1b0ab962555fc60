import { flushSync } from 'svelte';
import { describe, expect, it } from 'vitest';
import type { LiveCall } from '../../../renderer/src/lib/types';
import { CallFilter } from '../../../renderer/src/state/call-filter.svelte';
import { mount } from './dashboard.svelte';

/** A live row as `call` events carry it; each test changes what it is about. */
function row(fields: Partial<LiveCall> = {}): LiveCall {
  return {
    id: 'c_1',
    tool: 'file_read',
    client: 'cursor',
    via: 'mcp',
    status: 'succeeded',
    error: null,
    http_status: 200,
    decision: 'allow',
    rule: 'risk:safe',
    reason: 'file_read is a safe tool.',
    cache_hit: false,
    started_at: '2026-12-01T10:00:00.000Z',
    finished_at: '2026-12-01T10:00:00.010Z',
    duration_ms: 10,
    preview: '{"path":"notes/Plan.md"}',
    ...fields,
  };
}

const rows = [
  row({ id: 'c_1' }),
  row({ id: 'c_2', tool: 'run_shell', client: 'claude', status: 'failed', error: { name: 'TIMEOUT' }, preview: '{"command":"make test"}' }),
  row({ id: 'c_3', status: 'denied', decision: 'deny', rule: 'rule:r_9', reason: 'Denied by the owner', preview: '{"path":".env"}' }),
  row({ id: 'c_4', cache_hit: true, preview: '{"path":"README.md"}' }),
];

function shown(filter: CallFilter): string[] {
  return rows.filter(filter.predicate()).map((c) => c.id);
}

describe('CallFilter', () => {
  it('is inactive and matches every row until something is chosen; clear() empties every field', () => {
    const { state: filter, unmount } = mount(() => new CallFilter());
    expect(filter.active).toBe(false);
    expect(shown(filter)).toEqual(['c_1', 'c_2', 'c_3', 'c_4']);
    filter.text = '   ';
    expect(filter.active).toBe(false);
    filter.tool = 'run_shell';
    filter.client = 'claude';
    filter.status = 'failed';
    filter.text = 'make';
    expect(filter.active).toBe(true);
    filter.clear();
    expect([filter.tool, filter.client, filter.status, filter.text]).toEqual(['', '', '', '']);
    expect(filter.active).toBe(false);
    unmount();
  });

  it('matches tool, client and status exactly, together', () => {
    const { state: filter, unmount } = mount(() => new CallFilter());
    filter.tool = 'file_read';
    expect(shown(filter)).toEqual(['c_1', 'c_3', 'c_4']);
    filter.status = 'denied';
    expect(shown(filter)).toEqual(['c_3']);
    filter.client = 'claude';
    expect(shown(filter)).toEqual([]);
    filter.clear();
    filter.client = 'claude';
    expect(shown(filter)).toEqual(['c_2']);
    unmount();
  });

  it('takes "cached" as the answers served from the cache, whatever their status', () => {
    const { state: filter, unmount } = mount(() => new CallFilter());
    filter.status = 'cached';
    expect(shown(filter)).toEqual(['c_4']);
    unmount();
  });

  it('finds every word typed, in any case, among what the row shows: id, arguments, error name, rule and reason', () => {
    const { state: filter, unmount } = mount(() => new CallFilter());
    const search = (text: string) => {
      filter.text = text;
      return shown(filter);
    };
    expect(search('plan.md')).toEqual(['c_1']);
    expect(search('MAKE   test')).toEqual(['c_2']);
    expect(search('make readme')).toEqual([]);
    expect(search('timeout')).toEqual(['c_2']);
    expect(search('r_9')).toEqual(['c_3']);
    expect(search('owner')).toEqual(['c_3']);
    expect(search('c_4')).toEqual(['c_4']);
    expect(search('claude mcp')).toEqual(['c_2']);
    unmount();
  });

  it('gives a derivation that reads predicate() a new answer when the filter changes', () => {
    const counts: number[] = [];
    const { state: filter, unmount } = mount(
      () => new CallFilter(),
      (filter) => void counts.push(rows.filter(filter.predicate()).length),
    );
    filter.tool = 'run_shell';
    flushSync();
    filter.text = 'nothing like it';
    flushSync();
    expect(counts).toEqual([4, 1, 0]);
    unmount();
  });
});

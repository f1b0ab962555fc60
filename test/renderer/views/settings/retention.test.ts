import { describe, expect, it } from 'vitest';
import type { HistoryRetention } from '../../../../renderer/src/lib/types.js';
import { keptInWords, prunedInWords, pruneState } from '../../../../renderer/src/views/settings/retention.js';

const history = (change: Partial<HistoryRetention> = {}): HistoryRetention => ({
  retention_days: 90,
  max_rows: null,
  pruning_confirmed: true,
  prunable: 0,
  pruned: 0,
  last_pruned_at: null,
  ...change,
});

describe('keptInWords', () => {
  it('names the days, the rows, both, or neither', () => {
    expect(keptInWords(history())).toBe('the last 90 days');
    expect(keptInWords(history({ retention_days: 1 }))).toBe('the last 1 day');
    expect(keptInWords(history({ max_rows: 100_000 }))).toBe('the last 90 days and at most 100,000 calls');
    expect(keptInWords(history({ retention_days: 0, max_rows: 1 }))).toBe('at most 1 call');
    expect(keptInWords(history({ retention_days: 0 }))).toBe('everything (no limit set)');
  });
});

describe('pruneState', () => {
  it('has nothing to say when nothing is outside the limit, confirmed or not', () => {
    expect(pruneState(history())).toEqual({ kind: 'none' });
    expect(pruneState(history({ pruning_confirmed: false }))).toEqual({ kind: 'none' });
  });

  it('waits for the owner when an older history has calls outside the limit', () => {
    const state = pruneState(history({ pruning_confirmed: false, prunable: 1204 }));
    expect(state.kind).toBe('waiting');
    expect(state.kind !== 'none' && state.text).toMatch(/^1,204 calls are outside the limit\. .*until you confirm\.$/);
  });

  it('says how many the next pruning deletes once confirmed', () => {
    expect(pruneState(history({ prunable: 1 }))).toEqual({ kind: 'due', text: 'The next pruning deletes 1 call, in small batches.' });
  });
});

describe('prunedInWords', () => {
  it('counts what was deleted since the start', () => {
    expect(prunedInWords(history())).toBe('Nothing deleted since the gateway started.');
    expect(prunedInWords(history({ pruned: 2 }))).toBe('2 calls deleted since the gateway started.');
  });
});

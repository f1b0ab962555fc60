import { describe, expect, it } from 'vitest';
import type { HistoryRetention } from '../../../../renderer/src/lib/types.js';
import { keptInWords, previewInWords, prunedInWords, pruneState } from '../../../../renderer/src/views/settings/retention.js';

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
    expect(state.kind !== 'none' && state.text).toBe('1,204 calls are outside the limit. Nothing is deleted until you confirm.');
  });

  it('says how many the next pruning deletes once confirmed', () => {
    expect(pruneState(history({ prunable: 1 }))).toEqual({ kind: 'due', text: 'The next pruning deletes 1 call, in small batches.' });
  });
});

describe('previewInWords', () => {
  const preview = (prunable: number, newly_prunable: number, newly_prunable_conversations = 0) => ({ retention_days: 30, max_rows: null, prunable, newly_prunable, newly_prunable_conversations });

  it('says plainly when the limits leave every call', () => {
    expect(previewInWords(preview(0, 0), history())).toEqual({ text: 'Nothing is outside these limits.', warn: false });
  });

  it('warns, with the count, when saving would put calls outside the limits that the current ones keep', () => {
    expect(previewInWords(preview(1204, 1200), history({ prunable: 4 }))).toEqual({
      text: '1,204 calls are outside these limits. Saving deletes nothing yet: you then confirm, or export them first.',
      warn: true,
    });
    expect(previewInWords(preview(1, 1), history({ pruning_confirmed: false }))).toEqual({
      text: '1 call is outside these limits. Nothing is deleted until you confirm.',
      warn: true,
    });
  });

  it('warns about chat conversations the new limits would delete, with or without calls', () => {
    expect(previewInWords(preview(0, 0, 2), history())).toEqual({
      text: 'No calls, but 2 chat conversations are older than this. Saving deletes nothing yet: you then confirm.',
      warn: true,
    });
    expect(previewInWords(preview(3, 0, 1), history({ prunable: 5 }))).toEqual({
      text: '3 calls and 1 chat conversation are outside these limits. Saving deletes nothing yet: you then confirm, or export them first.',
      warn: true,
    });
  });

  it('does not warn about calls the current limits already delete', () => {
    expect(previewInWords(preview(3, 0), history({ prunable: 5 }))).toEqual({
      text: '3 calls are outside these limits. The next pruning deletes them, as it would under the current limits.',
      warn: false,
    });
  });
});

describe('prunedInWords', () => {
  it('counts what was deleted since the start', () => {
    expect(prunedInWords(history())).toBe('Nothing deleted since the gateway started.');
    expect(prunedInWords(history({ pruned: 2 }))).toBe('2 calls deleted since the gateway started.');
  });
});

import type { HistoryRetention } from '../../lib/types';

// The words of the History section, pure so they are tested without a page.

const count = new Intl.NumberFormat('en');

function calls(n: number): string {
  return `${count.format(n)} call${n === 1 ? '' : 's'}`;
}

/** "the last 90 days and at most 100,000 calls", "the last 30 days", "everything". */
export function keptInWords(history: HistoryRetention): string {
  const parts: string[] = [];
  if (history.retention_days > 0) parts.push(`the last ${history.retention_days} day${history.retention_days === 1 ? '' : 's'}`);
  if (history.max_rows !== null) parts.push(`at most ${calls(history.max_rows)}`);
  return parts.length === 0 ? 'everything (no limit set)' : parts.join(' and ');
}

export type PruneState =
  | { kind: 'none' }
  | { kind: 'waiting'; text: string }
  | { kind: 'due'; text: string };

/**
 * What the next pruning would do: nothing to delete; calls outside the retention waiting for the owner's
 * confirmation (a history that predates the setting); or calls that the next batch removes on its own.
 */
export function pruneState(history: HistoryRetention): PruneState {
  if (history.prunable <= 0) return { kind: 'none' };
  if (!history.pruning_confirmed) {
    return { kind: 'waiting', text: `${calls(history.prunable)} ${history.prunable === 1 ? 'is' : 'are'} outside the limit. This history predates the setting, so nothing is deleted until you confirm.` };
  }
  return { kind: 'due', text: `The next pruning deletes ${calls(history.prunable)}, in small batches.` };
}

/** "1,204 calls deleted since the gateway started", or nothing yet. */
export function prunedInWords(history: HistoryRetention): string {
  return history.pruned === 0 ? 'Nothing deleted since the gateway started.' : `${calls(history.pruned)} deleted since the gateway started.`;
}

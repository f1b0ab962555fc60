import type { HistoryPreview, HistoryRetention } from '../../lib/types';

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
 * confirmation (a history that predates the setting, or limits lowered since); or calls that the next batch removes
 * on its own.
 */
export function pruneState(history: HistoryRetention): PruneState {
  if (history.prunable <= 0) return { kind: 'none' };
  if (!history.pruning_confirmed) {
    return { kind: 'waiting', text: `${calls(history.prunable)} ${history.prunable === 1 ? 'is' : 'are'} outside the limit. Nothing is deleted until you confirm.` };
  }
  return { kind: 'due', text: `The next pruning deletes ${calls(history.prunable)}, in small batches.` };
}

/**
 * What saving limits would do, before they are saved: `warn` when it would put calls the current limits keep outside
 * them (saving then holds pruning back until the owner allows it, so it deletes nothing by itself).
 */
export function previewInWords(preview: HistoryPreview, history: HistoryRetention): { text: string; warn: boolean } {
  const n = preview.prunable;
  const chats = preview.newly_prunable_conversations;
  const chatsText = `${chats.toLocaleString('en')} chat conversation${chats === 1 ? '' : 's'}`;
  if (n <= 0) {
    if (chats > 0 && history.pruning_confirmed) {
      return { text: `No calls, but ${chatsText} ${chats === 1 ? 'is' : 'are'} older than this. Saving deletes nothing yet: you then confirm.`, warn: true };
    }
    return { text: 'Nothing is outside these limits.', warn: false };
  }
  const outside = `${calls(n)}${chats > 0 ? ` and ${chatsText}` : ''} ${n + chats === 1 ? 'is' : 'are'} outside these limits.`;
  if (!history.pruning_confirmed) return { text: `${outside} Nothing is deleted until you confirm.`, warn: true };
  if (preview.newly_prunable > 0 || chats > 0) {
    return { text: `${outside} Saving deletes nothing yet: you then confirm, or export them first.`, warn: true };
  }
  return { text: `${outside} The next pruning deletes ${n === 1 ? 'it' : 'them'}, as it would under the current limits.`, warn: false };
}

/** "1,204 calls deleted since the gateway started", or nothing yet. */
export function prunedInWords(history: HistoryRetention): string {
  return history.pruned === 0 ? 'Nothing deleted since the gateway started.' : `${calls(history.pruned)} deleted since the gateway started.`;
}

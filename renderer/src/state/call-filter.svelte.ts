import { wordMatcher } from '../lib/search';
import type { CallStatus, LiveCall } from '../lib/types';

export type StatusFilter = '' | CallStatus | 'cached';

/** What the Live view shows; lives with the log so it survives switching views. */
export class CallFilter {
  tool = $state('');
  client = $state('');
  status = $state<StatusFilter>('');
  text = $state('');

  get active(): boolean {
    return this.tool !== '' || this.client !== '' || this.status !== '' || this.text.trim() !== '';
  }

  clear(): void {
    this.tool = this.client = this.status = this.text = '';
  }

  /** A predicate for the current filter (read it inside a derivation so it follows the filter). */
  predicate(): (call: LiveCall) => boolean {
    const { tool, client, status } = this;
    const matches = wordMatcher(this.text);
    return (call) =>
      (tool === '' || call.tool === tool) &&
      (client === '' || call.client === client) &&
      (status === '' || (status === 'cached' ? call.cache_hit : call.status === status)) &&
      (matches === null || matches(haystack(call)));
  }
}

const haystacks = new WeakMap<LiveCall, string>();

/**
 * The text a search matches against: what the row shows (tool, client, arguments in one line, error, decision and
 * its reason); built once per row. Results and error messages are in the details, fetched when a row is opened.
 */
function haystack(call: LiveCall): string {
  let text = haystacks.get(call);
  if (text === undefined) {
    text = [call.id, call.tool, call.client, call.via, call.preview, call.error?.name, call.rule, call.reason]
      .filter(Boolean)
      .join('\n')
      .toLowerCase();
    haystacks.set(call, text);
  }
  return text;
}

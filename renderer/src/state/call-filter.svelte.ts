import { wordMatcher } from '../lib/search';
import type { CallRecord, CallStatus } from '../lib/types';

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
  predicate(): (call: CallRecord) => boolean {
    const { tool, client, status } = this;
    const matches = wordMatcher(this.text);
    return (call) =>
      (tool === '' || call.tool === tool) &&
      (client === '' || call.client === client) &&
      (status === '' || (status === 'cached' ? call.cache_hit : call.status === status)) &&
      (matches === null || matches(haystack(call)));
  }
}

/** How much of a big result free-text search looks at. */
const SEARCHED_CHARS = 20_000;
const haystacks = new WeakMap<CallRecord, string>();

/** The text a search matches against: tool, client, arguments, result, error, decision; built once per record. */
function haystack(call: CallRecord): string {
  let text = haystacks.get(call);
  if (text === undefined) {
    const result = call.result === null || call.result === undefined ? '' : JSON.stringify(call.result).slice(0, SEARCHED_CHARS);
    text = [call.id, call.tool, call.client, call.via, JSON.stringify(call.arguments ?? null), result, call.error?.name, call.error?.message, call.rule, call.reason]
      .filter(Boolean)
      .join('\n')
      .toLowerCase();
    haystacks.set(call, text);
  }
  return text;
}

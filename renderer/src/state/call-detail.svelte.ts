import { describeError } from '../lib/api';
import type { CallRecord, LiveCall } from '../lib/types';
import { fetchCall } from './call-history';

/**
 * The whole record of one call (arguments, result, the error's message), for an opened row: live events carry only
 * what the row shows. Fetched when the row opens and again whenever the call's status changes (it finished while
 * open); an answer overtaken by a newer fetch is dropped.
 */
export class CallDetail {
  record = $state.raw<CallRecord | null>(null);
  error = $state<string | null>(null);
  #wanted = '';

  async follow(call: Pick<LiveCall, 'id' | 'status'>): Promise<void> {
    const key = `${call.id}\n${call.status}`;
    if (key === this.#wanted) return;
    this.#wanted = key;
    try {
      const record = await fetchCall(call.id);
      if (this.#wanted !== key) return;
      this.record = record;
      this.error = record === null ? 'This call is no longer in the history.' : null;
    } catch (error) {
      if (this.#wanted === key) this.error = `Could not load this call: ${describeError(error)}`;
    }
  }
}

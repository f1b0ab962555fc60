import { api, describeError } from '../lib/api';
import type { CacheCleared, CacheReport, GatewayEvents } from '../lib/types';
import type { GatewayFeed } from './feed.svelte';

/** Finished calls change the counters; a busy assistant must not turn that into a request per call. */
const MIN_REFRESH_MS = 2_000;

/** The result cache (`GET /cache`) for the Stats view, and the owner's clear actions. */
export class CacheBoard {
  report = $state.raw<CacheReport | null>(null);
  error = $state<string | null>(null);
  /** What the last clear did, for the status line. */
  notice = $state('');

  async load(): Promise<void> {
    try {
      this.report = await api<CacheReport>('GET', '/cache');
      this.error = null;
    } catch (error) {
      this.error = `Could not read the cache: ${describeError(error, 'show its cache')}`;
    }
  }

  /** Empties the whole cache, or one tool's answers. */
  async clear(tool?: string): Promise<void> {
    try {
      const path = tool === undefined ? '/cache' : `/cache?tool=${encodeURIComponent(tool)}`;
      const answer = await api<CacheCleared>('DELETE', path);
      const what = `${answer.cleared} cached answer${answer.cleared === 1 ? '' : 's'}`;
      this.notice = tool === undefined ? `Cleared ${what}.` : `Cleared ${what} of ${tool}.`;
      this.error = null;
      await this.load();
    } catch (error) {
      this.error = `Could not clear the cache: ${describeError(error)}`;
    }
  }

  /** Keeps the counters current while the Stats view is shown. */
  listen(feed: GatewayFeed): () => void {
    const finished = ({ phase }: GatewayEvents['call']) => phase !== 'started' && phase !== 'pending';
    return feed.follow(() => void this.load(), { call: finished }, MIN_REFRESH_MS);
  }
}

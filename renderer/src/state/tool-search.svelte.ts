import { api, describeError } from '../lib/api';
import { toolSearchPath } from '../lib/tool-search';
import type { FoundTool, ToolSearchAnswer } from '../lib/types';
import { LatestSearch } from './latest-search';

/**
 * The Tools view's search box: the gateway's tool search (`GET /tools/search`, the index search_tools uses) as the
 * owner types, best first. Owned by the view; empty words show the normal list.
 */
export class ToolSearch {
  /** The box's text. */
  query = $state('');
  results = $state.raw<FoundTool[]>([]);
  /** The words the shown results (or error) answer; empty before the first answer. */
  answered = $state('');
  /** A search waits for typing to pause or for its answer. */
  busy = $state(false);
  error = $state<string | null>(null);

  readonly #requests = new LatestSearch<FoundTool[]>(
    async (q, signal) => (await api<ToolSearchAnswer>('GET', toolSearchPath(q), undefined, { signal })).results,
    {
      answer: (q, results) => {
        this.results = results;
        this.answered = q;
        this.error = null;
      },
      fail: (q, error) => {
        this.results = [];
        this.answered = q;
        this.error = `Could not search the tools: ${describeError(error, 'search tools')}`;
      },
      busy: (busy) => (this.busy = busy),
      clear: () => {
        this.results = [];
        this.answered = '';
        this.error = null;
      },
    },
  );

  /** Whether the box holds words (the view then shows the results above the list). */
  get active(): boolean {
    return this.query.trim() !== '';
  }

  /** The box's text as typed: searched once typing pauses. */
  type(text: string): void {
    this.query = text;
    this.#requests.type(text);
  }

  /** Enter: searches at once, again if the words are the same. */
  submit(): void {
    this.#requests.now(this.query);
  }

  clear(): void {
    this.type('');
  }

  dispose(): void {
    this.#requests.dispose();
  }
}

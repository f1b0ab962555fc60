/** Typing pauses this long before a search goes out, so every keystroke does not become a request. */
export const TYPING_MS = 200;

/** What a search box's state hears from its requests; only the newest search is ever answered. */
export interface SearchListener<T> {
  /** The gateway's answer to `query`. */
  answer(query: string, result: T): void;
  /** Why the search for `query` failed. */
  fail(query: string, error: unknown): void;
  /** True while a search waits for typing to pause or for its answer. */
  busy(busy: boolean): void;
  /** The box was emptied: no search, nothing to show. */
  clear(): void;
}

/**
 * A search as you type: waits for typing to pause, then asks; a newer query calls off the request still on its way
 * (its signal aborts) and an answer that comes anyway is dropped. Plain, so the view's state (a `.svelte.ts` class)
 * holds the results in its runes and the tests drive this with fake timers.
 */
export class LatestSearch<T> {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #abort: AbortController | undefined;
  #seq = 0;
  /** The query waiting or on its way, or last answered; a repeat of it (a trailing space typed) asks nothing. */
  #asked = '';

  constructor(
    private readonly request: (query: string, signal: AbortSignal) => Promise<T>,
    private readonly listener: SearchListener<T>,
    private readonly delayMs = TYPING_MS,
  ) {}

  /** The box's text as typed: searched once typing pauses; emptied, the results clear at once. */
  type(text: string): void {
    const query = text.trim();
    if (query === this.#asked) return;
    this.#cancel();
    this.#asked = query;
    if (query === '') {
      this.listener.busy(false);
      this.listener.clear();
      return;
    }
    this.listener.busy(true);
    this.#timer = setTimeout(() => void this.#send(query), this.delayMs);
  }

  /** Searches at once, skipping the pause (Enter), and again even if the words did not change. */
  now(text: string): void {
    this.#asked = '\0';
    this.type(text);
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    void this.#send(this.#asked);
  }

  /** Calls off whatever is waiting or on its way (the view closes). */
  dispose(): void {
    this.#cancel();
    this.#asked = '';
  }

  async #send(query: string): Promise<void> {
    this.#timer = undefined;
    const seq = ++this.#seq;
    const abort = new AbortController();
    this.#abort = abort;
    try {
      const result = await this.request(query, abort.signal);
      if (seq === this.#seq) this.listener.answer(query, result);
    } catch (error) {
      if (seq === this.#seq) this.listener.fail(query, error);
    } finally {
      if (seq === this.#seq) {
        this.#abort = undefined;
        this.listener.busy(false);
      }
    }
  }

  #cancel(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#seq++;
    this.#abort?.abort();
    this.#abort = undefined;
  }
}

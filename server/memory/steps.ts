/**
 * A search's work as steps: a generator that yields between bounded pieces of it (a query term's vocabulary
 * lookups, one index query, one memory scored). Run whole (`runSteps`, for callers that answer synchronously), or
 * letting the event loop run between steps (`runStepsYielding`).
 *
 * Security: denial of service. `remember` and `recall` need no approval and the gateway has one thread: a search run
 * whole holds every other client, and the owner, for as long as it takes. Run in steps it gives way whenever it has
 * held the thread for SLICE_MS, so only its longest single step (one SQLite statement, bounded by the search's caps)
 * ever holds it in one piece.
 */
export type Steps<T> = Generator<void, T, void>;

/** How long a search run in steps holds the thread before it lets others run. */
const SLICE_MS = 10;

/** Runs every step at once. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** Runs the steps, letting the event loop run every SLICE_MS; stops (throwing the signal's reason) once aborted. */
export async function runStepsYielding<T>(steps: Steps<T>, signal?: AbortSignal): Promise<T> {
  let since = performance.now();
  try {
    for (;;) {
      const next = steps.next();
      if (next.done) return next.value;
      if (performance.now() - since < SLICE_MS) continue;
      await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
      since = performance.now();
    }
  } finally {
    steps.return(undefined as T);
  }
}

/**
 * One at a time, first come first served: searches run in steps take turns instead of sharing the thread, so many
 * at once cost each other waiting time, never a slower loop. A caller whose signal aborts while it waits does not
 * run when its turn comes.
 */
export class Turns {
  #last: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const turn = this.#last.then(() => {
      signal?.throwIfAborted();
      return work();
    });
    // The next waits for this one to end, however it ends.
    this.#last = turn.catch(() => undefined);
    return turn;
  }
}

/**
 * Runs `flush` once for any number of `schedule()` calls: on an animation frame at least `minGapMs` after the last
 * flush, so a burst costs one render. Background tabs get no animation frames; a timer then flushes instead, which
 * keeps a hidden tab's backlog bounded.
 */
export class FrameBatch {
  #pending = false;
  #last = -Infinity;
  #frame = 0;
  #gap: ReturnType<typeof setTimeout> | undefined;
  #fallback: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly flush: () => void,
    private readonly minGapMs: number,
  ) {}

  schedule(): void {
    if (this.#pending) return;
    this.#pending = true;
    const wait = Math.max(0, this.#last + this.minGapMs - performance.now());
    if (wait === 0) this.#frame = requestAnimationFrame(this.#run);
    else this.#gap = setTimeout(() => (this.#frame = requestAnimationFrame(this.#run)), wait);
    this.#fallback = setTimeout(this.#run, wait + 250);
  }

  /** Drops a scheduled flush (the owner is going away). */
  cancel(): void {
    this.#pending = false;
    cancelAnimationFrame(this.#frame);
    clearTimeout(this.#gap);
    clearTimeout(this.#fallback);
  }

  #run = (): void => {
    if (!this.#pending) return;
    this.cancel();
    this.#last = performance.now();
    this.flush();
  };
}

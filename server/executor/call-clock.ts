/**
 * A call's time limit. It stops while the tool waits for the owner (an imported server's question to them), so the
 * time a person takes to answer is not counted against the tool; the question has its own expiry.
 */
export class CallClock {
  #timer: NodeJS.Timeout | undefined;
  #remainingMs: number;
  #since = 0;
  #pauses = 0;
  #stopped = false;

  constructor(
    limitMs: number,
    private readonly expire: () => void,
  ) {
    this.#remainingMs = limitMs;
    this.#run();
  }

  /** Stops the clock until the returned function is called; pauses may overlap (the clock runs when none is left). */
  pause(): () => void {
    if (this.#stopped) return () => undefined;
    if (this.#pauses++ === 0) {
      clearTimeout(this.#timer);
      this.#remainingMs -= performance.now() - this.#since;
    }
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      if (--this.#pauses === 0 && !this.#stopped) this.#run();
    };
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #run(): void {
    this.#since = performance.now();
    this.#timer = setTimeout(this.expire, Math.max(0, this.#remainingMs));
  }
}

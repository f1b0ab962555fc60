import { createSubscriber } from 'svelte/reactivity';

/**
 * The current time for "3 min ago" labels and countdowns, updated every `intervalMs` while a template or effect reads
 * `now`, and not at all otherwise: a view that is gone leaves no timer behind.
 */
export class Clock {
  #subscribe: () => void;

  /** `onTick` runs on each tick while the clock is read (a check that only matters while something is shown). */
  constructor(intervalMs: number, onTick?: () => void) {
    this.#subscribe = createSubscriber((update) => {
      const timer = setInterval(() => {
        update();
        onTick?.();
      }, intervalMs);
      return () => clearInterval(timer);
    });
  }

  /** Milliseconds since the epoch; reading it inside a template or effect keeps the clock running. */
  get now(): number {
    this.#subscribe();
    return Date.now();
  }
}

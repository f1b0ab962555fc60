import { SvelteSet } from 'svelte/reactivity';
import type { LiveCall } from '../../lib/types';
import type { CallLog } from '../../state/calls.svelte';

/**
 * Keeps the list still while the person reads: once they scroll down or open a row, calls that arrive later wait
 * above the list (counted for a "new calls" pill) instead of pushing what they read down. Scrolling back to the top
 * with every row closed lets them in again.
 */
export class ReadingHold {
  readonly expanded = new SvelteSet<string>();
  /** Arrival mark of the newest call shown while holding; null when new calls flow in freely. */
  mark = $state<number | null>(null);
  #scrolled = false;

  constructor(private readonly log: CallLog) {}

  setScrolled(down: boolean): void {
    if (down === this.#scrolled) return;
    this.#scrolled = down;
    this.#update();
  }

  /** Opens or closes a row; true when it opened. */
  toggle(id: string): boolean {
    const opening = !this.expanded.has(id);
    if (opening) this.expanded.add(id);
    else this.expanded.delete(id);
    this.#update();
    return opening;
  }

  collapseAll(): void {
    this.expanded.clear();
    this.#update();
  }

  /** Lets the waiting calls in (the list is about to be scrolled to the top). */
  release(): void {
    this.mark = this.log.mark;
    this.#scrolled = false;
    this.#update();
  }

  /** The calls to show: all of them, or those that arrived before the hold. */
  visible(calls: LiveCall[]): LiveCall[] {
    const mark = this.mark;
    return mark === null ? calls : calls.filter((c) => this.log.arrivalOf(c.id) <= mark);
  }

  /** How many calls matching `predicate` wait above the list. */
  waiting(calls: LiveCall[], predicate: (call: LiveCall) => boolean): number {
    const mark = this.mark;
    if (mark === null) return 0;
    let n = 0;
    for (const call of calls) if (this.log.arrivalOf(call.id) > mark && predicate(call)) n++;
    return n;
  }

  #update(): void {
    const reading = this.#scrolled || this.expanded.size > 0;
    if (reading && this.mark === null) this.mark = this.log.mark;
    else if (!reading) this.mark = null;
  }
}

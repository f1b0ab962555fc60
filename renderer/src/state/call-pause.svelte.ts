import type { LiveCall } from '../lib/types';

/** What the pause reads of the call log. */
interface ArrivingCalls {
  /** The live list, newest first. */
  readonly calls: LiveCall[];
  /** Arrival number of everything in `calls`. */
  readonly mark: number;
  arrivalOf(id: string): number;
}

/**
 * The Live view's pause: the list as it was when the person paused, shown instead of the live one until they
 * resume, with a count of the calls that came meanwhile. It lives with the log, so it survives switching views.
 */
export class CallPause {
  paused = $state(false);
  #frozen = $state.raw<LiveCall[]>([]);
  #mark = $state(0);

  constructor(private readonly log: ArrivingCalls) {}

  /** The list to show: the snapshot while paused, else the live calls. */
  get shown(): LiveCall[] {
    return this.paused ? this.#frozen : this.log.calls;
  }

  /** Calls received since the person paused. */
  get newSince(): number {
    if (!this.paused) return 0;
    let n = 0;
    for (const call of this.log.calls) if (this.log.arrivalOf(call.id) > this.#mark) n++;
    return n;
  }

  toggle(): void {
    if (this.paused) {
      this.paused = false;
      this.#frozen = [];
    } else {
      this.#frozen = this.log.calls;
      this.#mark = this.log.mark;
      this.paused = true;
    }
  }
}

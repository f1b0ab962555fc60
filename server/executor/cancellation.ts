/**
 * Cancelling calls without an AbortSignal per call on the hot path.
 *
 * Node builds every AbortSignal as an EventTarget whose prototype is then swapped (Object.setPrototypeOf). V8 handles
 * such objects badly: each one, and whatever it references, survives young-generation collections and is promoted,
 * which makes every scavenge slower for all calls. So a call makes a real AbortSignal only when its tool asks for
 * one, and a caller's "I have gone" needs no AbortSignal at all.
 */

/** What the executor needs of a caller's signal. An AbortSignal is one; CallerGone is a lighter one. */
export interface CallerSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** A caller signal fired by hand (an HTTP response closed before its answer, a client that disconnected). */
export class CallerGone implements CallerSignal {
  #aborted = false;
  #listeners: (() => void)[] = [];

  get aborted(): boolean {
    return this.#aborted;
  }

  /** Every listener runs once, at the first fire(); listeners added after it are not called. */
  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.#aborted) this.#listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.#listeners.indexOf(listener);
    if (at >= 0) this.#listeners.splice(at, 1);
  }

  fire(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }
}

/** One running call's cancellation: a reason, one listener told of it, and an AbortSignal made on demand. */
export class Cancellation {
  #controller: AbortController | undefined;
  #reason: unknown;
  #cancelled = false;
  #listener: ((reason: unknown) => void) | undefined;

  get cancelled(): boolean {
    return this.#cancelled;
  }

  get reason(): unknown {
    return this.#reason;
  }

  /**
   * Tells `listener` the reason once the call is cancelled, at once if it already is. One listener: the run that
   * owns the call. (A listener rather than a promise raced against the tool: no extra promise per call.)
   */
  onCancel(listener: (reason: unknown) => void): void {
    if (this.#cancelled) listener(this.#reason);
    else this.#listener = listener;
  }

  /** The tool's AbortSignal, made at the first ask; already aborted if the call was cancelled before. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#cancelled) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** The first reason wins; later ones are ignored. */
  cancel(reason: unknown): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const listener = this.#listener;
    this.#listener = undefined;
    listener?.(reason);
  }
}

/** Live terminal output kept per running call (its tail); the finished result carries the full output. */
export const MAX_LIVE_OUTPUT = 64 * 1024;
/** Streams whose end was never heard of (a missed event) must not pile up. */
const MAX_STREAMS = 20;

export interface OutputTail {
  text: string;
  /** Characters dropped before `text`. */
  dropped: number;
}

/**
 * Terminal output streamed by running calls (`output` events), kept until the call ends. Changes are collected and
 * shown on `publish()`, so a chatty command costs one render per batch, not one per chunk.
 */
export class LiveOutput {
  #version = $state(0);
  #streams = new Map<string, OutputTail>();
  #changed = false;

  /** What a running call has printed so far, if anything (only its tail beyond MAX_LIVE_OUTPUT). */
  get(id: string): OutputTail | undefined {
    void this.#version;
    return this.#streams.get(id);
  }

  append(id: string, chunk: string): void {
    const previous = this.#streams.get(id);
    let text = (previous?.text ?? '') + chunk;
    let dropped = previous?.dropped ?? 0;
    if (text.length > MAX_LIVE_OUTPUT) {
      dropped += text.length - MAX_LIVE_OUTPUT;
      text = text.slice(-MAX_LIVE_OUTPUT);
    }
    // Re-inserted, so the map's order is least recently written first and the stalest stream goes first.
    this.#streams.delete(id);
    this.#streams.set(id, { text, dropped });
    for (const stale of this.#streams.keys()) {
      if (this.#streams.size <= MAX_STREAMS) break;
      this.#streams.delete(stale);
    }
    this.#changed = true;
  }

  /** Forgets a call's output once it has ended (its result holds the whole of it). */
  end(id: string): void {
    if (this.#streams.delete(id)) this.#changed = true;
  }

  /** Shows the changes made since the last publish. */
  publish(): void {
    if (!this.#changed) return;
    this.#changed = false;
    this.#version++;
  }
}

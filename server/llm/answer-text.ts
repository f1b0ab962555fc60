import { recoverToolCalls } from './recovery/recover.js';
import { ReasoningSplitter } from './recovery/reasoning.js';
import { StreamGate } from './recovery/stream-gate.js';
import type { NameResolver } from './recovery/types.js';

/**
 * One streamed answer on its way to the user: reasoning blocks go to their own channel, and text that may turn out
 * to be a tool call written as text is held back until it cannot be one (markup never reaches the user).
 */
export class AnswerStream {
  readonly #reasoning = new ReasoningSplitter();
  readonly #gate: StreamGate;
  /** The last character shown, to start prose left around a call on a line of its own. */
  #lastShown = '';

  constructor(
    private readonly resolve: NameResolver,
    private readonly emit: { text(text: string): void; reasoning(text: string): void },
  ) {
    this.#gate = new StreamGate((block) => recoverToolCalls(block, resolve).calls.length > 0);
  }

  push(chunk: string): void {
    this.#route(this.#reasoning.push(chunk));
  }

  /** The stream ended: what was held is shown without any call markup. */
  finish(): void {
    this.#route(this.#reasoning.end());
    const held = this.#gate.end();
    if (held !== '') {
      const recovery = recoverToolCalls(held, this.resolve);
      // Held text that held no call is shown exactly as written; prose left around a call starts on a line of its own.
      if (recovery.calls.length === 0) this.#show(held);
      else if (recovery.text !== '') this.#show(this.#lastShown !== '' && !/\s/.test(this.#lastShown) ? `\n${recovery.text}` : recovery.text);
    }
  }

  #route(part: { text: string; reasoning: string }): void {
    if (part.reasoning !== '') this.emit.reasoning(part.reasoning);
    if (part.text !== '') this.#show(this.#gate.push(part.text));
  }

  #show(text: string): void {
    if (text === '') return;
    this.#lastShown = text.slice(-1);
    this.emit.text(text);
  }
}

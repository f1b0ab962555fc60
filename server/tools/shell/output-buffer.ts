/**
 * A command's output, capped: the first and the last halves are kept (the start says what ran, the end how it
 * ended), with a marker saying how much was left out in between.
 */
export class OutputBuffer {
  readonly #head: Buffer[] = [];
  #headBytes = 0;
  readonly #tail: Buffer[] = [];
  #tailBytes = 0;
  #total = 0;
  readonly #headLimit: number;
  readonly #tailLimit: number;

  constructor(readonly limit: number) {
    this.#headLimit = Math.floor(limit / 2);
    this.#tailLimit = limit - this.#headLimit;
  }

  push(chunk: string): void {
    let bytes = Buffer.from(chunk, 'utf8');
    this.#total += bytes.length;
    if (this.#headBytes < this.#headLimit) {
      const take = Math.min(this.#headLimit - this.#headBytes, bytes.length);
      this.#head.push(bytes.subarray(0, take));
      this.#headBytes += take;
      bytes = bytes.subarray(take);
    }
    if (bytes.length === 0) return;
    this.#tail.push(bytes);
    this.#tailBytes += bytes.length;
    while (this.#tail.length > 1 && this.#tailBytes - this.#tail[0]!.length >= this.#tailLimit) {
      this.#tailBytes -= this.#tail.shift()!.length;
    }
  }

  get bytes(): number {
    return this.#total;
  }

  get truncated(): boolean {
    return this.#total > this.limit;
  }

  text(): string {
    const head = Buffer.concat(this.#head);
    const tail = Buffer.concat(this.#tail);
    if (!this.truncated) return Buffer.concat([head, tail]).toString('utf8');
    // Cut on character boundaries: never half of a UTF-8 sequence at either side of the marker.
    let headEnd = head.length;
    while (headEnd > 0 && (head[headEnd - 1]! & 0xc0) === 0x80) headEnd--;
    if (headEnd > 0 && head[headEnd - 1]! >= 0xc0) headEnd--;
    let tailStart = Math.max(0, tail.length - this.#tailLimit);
    while (tailStart < tail.length && (tail[tailStart]! & 0xc0) === 0x80) tailStart++;
    const kept = headEnd + (tail.length - tailStart);
    const marker = `\n[… ${this.#total - kept} bytes of output left out …]\n`;
    return head.subarray(0, headEnd).toString('utf8') + marker + tail.subarray(tailStart).toString('utf8');
  }
}

// CSI, OSC, DCS/PM/APC strings, two-byte escapes and charset selections.
const ANSI = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|[()*+][0-9A-Za-z]|[@-Z\\-_=>])|\x9b[0-?]*[ -/]*[@-~]/g;

/** Terminal output as a model should read it: no escape sequences, and a line shows what a carriage return left. */
export function plainText(text: string): string {
  return text
    .replace(ANSI, '')
    .split('\n')
    .map((line) => {
      const trimmed = line.replace(/\r+$/, '');
      return trimmed.slice(trimmed.lastIndexOf('\r') + 1);
    })
    .join('\n')
    .replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '');
}

/**
 * What to keep of output past the cap: `start` keeps the first bytes (a program's output read top-down), `ends`
 * keeps the first and the last halves (the start says what ran, the end how it ended) with a marker saying how
 * much was left out in between.
 */
export type KeepPolicy = 'start' | 'ends';

/** Who sees a stream's output live, while it runs, and the note they get once the cap is reached. */
export interface LiveListener {
  listener: (chunk: string) => void;
  stopNote: string;
}

/**
 * One output stream, capped: memory stays bounded however much a program writes; the rest is counted and dropped,
 * never left unread (a child blocked on a full pipe would hang until its timeout). A live listener gets the same
 * stream as text up to the same cap, then one note that it stops there.
 */
export class OutputBuffer {
  readonly #head: Buffer[] = [];
  #headBytes = 0;
  readonly #tail: Buffer[] = [];
  #tailBytes = 0;
  #total = 0;
  readonly #headLimit: number;
  readonly #tailLimit: number;
  readonly #live: LiveListener | undefined;
  #liveSent = 0;
  #liveOpen = true;
  readonly #liveDecoder = new TextDecoder('utf-8');

  constructor(
    readonly limit: number,
    readonly keep: KeepPolicy = 'ends',
    live?: LiveListener,
  ) {
    this.#headLimit = keep === 'start' ? limit : Math.floor(limit / 2);
    this.#tailLimit = limit - this.#headLimit;
    this.#live = live;
  }

  push(chunk: string | Buffer): void {
    if (this.#live && this.#liveOpen) this.#stream(chunk);
    let bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    this.#total += bytes.length;
    if (this.#headBytes < this.#headLimit) {
      const take = Math.min(this.#headLimit - this.#headBytes, bytes.length);
      this.#head.push(bytes.subarray(0, take));
      this.#headBytes += take;
      bytes = bytes.subarray(take);
    }
    if (bytes.length === 0 || this.#tailLimit === 0) return;
    this.#tail.push(bytes);
    this.#tailBytes += bytes.length;
    while (this.#tail.length > 1 && this.#tailBytes - this.#tail[0]!.length >= this.#tailLimit) {
      this.#tailBytes -= this.#tail.shift()!.length;
    }
  }

  /** Hands a chunk to the live listener as text (characters split across chunks joined first), up to the cap. */
  #stream(chunk: string | Buffer): void {
    const text = typeof chunk === 'string' ? chunk : this.#liveDecoder.decode(chunk, { stream: true });
    if (!text) return;
    const bytes = Buffer.byteLength(text);
    if (this.#liveSent + bytes <= this.limit) {
      this.#liveSent += bytes;
      this.#emit(text);
      return;
    }
    const fits = utf8Prefix(Buffer.from(text, 'utf8'), this.limit - this.#liveSent);
    if (fits) this.#emit(fits);
    this.#liveOpen = false;
    this.#emit(this.#live!.stopNote);
  }

  #emit(text: string): void {
    try {
      this.#live!.listener(text);
    } catch {
      // a broken listener must not break the run
    }
  }

  /** Bytes written in all, kept or not. */
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
    // Cut on character boundaries: never half of a UTF-8 sequence at either side of the cut.
    let headEnd = head.length;
    while (headEnd > 0 && (head[headEnd - 1]! & 0xc0) === 0x80) headEnd--;
    if (headEnd > 0 && head[headEnd - 1]! >= 0xc0) headEnd--;
    if (headEnd < head.length && head.length - headEnd === sequenceLength(head[headEnd]!)) headEnd = head.length;
    if (this.keep === 'start') return head.subarray(0, headEnd).toString('utf8');
    let tailStart = Math.max(0, tail.length - this.#tailLimit);
    while (tailStart < tail.length && (tail[tailStart]! & 0xc0) === 0x80) tailStart++;
    const kept = headEnd + (tail.length - tailStart);
    const marker = `\n[… ${this.#total - kept} bytes of output left out …]\n`;
    return head.subarray(0, headEnd).toString('utf8') + marker + tail.subarray(tailStart).toString('utf8');
  }
}

/** The first `bytes` bytes of `buffer` as text, without a character cut in half at the end. */
function utf8Prefix(buffer: Buffer, bytes: number): string {
  let end = Math.max(0, Math.min(bytes, buffer.length));
  if (end < buffer.length) {
    while (end > 0 && (buffer[end]! & 0xc0) === 0x80) end--;
  }
  return buffer.subarray(0, end).toString('utf8');
}

/** Bytes in the UTF-8 sequence a lead byte starts. */
function sequenceLength(lead: number): number {
  if (lead >= 0xf0) return 4;
  if (lead >= 0xe0) return 3;
  if (lead >= 0xc0) return 2;
  return 1;
}

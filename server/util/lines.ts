import type { Readable } from 'node:stream';

/** The largest message a child may send on a line protocol (a plugin's, an MCP stdio server's). */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** "16 MiB", "512 KiB", "100 bytes". */
export function describeBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/**
 * Cuts a byte stream into lines with a cap that applies while reading. Security: a reader that measures a line
 * once it is whole (readline) buffers a writer that never sends a line break until the process runs out of memory
 * (`RangeError: Invalid string length`); here the bytes of the unfinished line are counted as each chunk comes, so
 * at most the cap plus one chunk is ever held.
 */
export class LineSplitter {
  #parts: Buffer[] = [];
  #size = 0;

  constructor(readonly maxLineBytes: number) {}

  /**
   * The lines a chunk completes, without their line breaks (`\n` or `\r\n`), as UTF-8; `overflow` once the
   * unfinished line is past the cap (the lines before it are still given; what was buffered is dropped).
   */
  push(chunk: Buffer | string): { lines: string[]; overflow: boolean } {
    const data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    const lines: string[] = [];
    let start = 0;
    while (start < data.length) {
      const newline = data.indexOf(0x0a, start);
      const piece = data.subarray(start, newline === -1 ? data.length : newline);
      if (this.#size + piece.length > this.maxLineBytes) {
        this.#parts = [];
        this.#size = 0;
        return { lines, overflow: true };
      }
      if (newline === -1) {
        this.#parts.push(piece);
        this.#size += piece.length;
        break;
      }
      const line = this.#parts.length === 0 ? piece : Buffer.concat([...this.#parts, piece], this.#size + piece.length);
      this.#parts = [];
      this.#size = 0;
      lines.push(decodeLine(line));
      start = newline + 1;
    }
    return { lines, overflow: false };
  }

  /** What is left when the stream ends: a last line without a line break, if any. */
  end(): string | undefined {
    const rest = this.#size > 0 ? decodeLine(Buffer.concat(this.#parts, this.#size)) : undefined;
    this.#parts = [];
    this.#size = 0;
    return rest;
  }
}

function decodeLine(bytes: Buffer): string {
  return bytes.toString('utf8', 0, bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length);
}

export interface LineReaderOptions {
  /** Cap on one line, counted while it arrives. */
  maxLineBytes: number;
  onLine(line: string): void;
  /**
   * A line grew past the cap before its line break came: reading has stopped, what was buffered is dropped and the
   * stream destroyed (the writer gets a broken pipe). The caller ends the program; `reason` says why, in words.
   */
  onOverflow(reason: string): void;
}

/** Reads a child's newline-delimited messages from its stream through a LineSplitter; returns a way to stop. */
export function readLines(stream: Readable, options: LineReaderOptions): { stop(): void } {
  const splitter = new LineSplitter(options.maxLineBytes);
  let stopped = false;
  const stop = () => {
    stopped = true;
    stream.off('data', onData);
    stream.off('end', onEnd);
  };
  function onData(chunk: Buffer | string): void {
    const { lines, overflow } = splitter.push(chunk);
    for (const line of lines) {
      // A line can make the caller stop reading (it ended the program): the rest is not its business.
      if (stopped) return;
      options.onLine(line);
    }
    if (overflow && !stopped) {
      stop();
      stream.destroy();
      options.onOverflow(`it wrote more than ${describeBytes(options.maxLineBytes)} without a line break`);
    }
  }
  function onEnd(): void {
    const rest = splitter.end();
    if (rest !== undefined && !stopped) options.onLine(rest);
    stop();
  }
  stream.on('data', onData);
  stream.on('end', onEnd);
  return { stop };
}

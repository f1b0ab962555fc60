import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** Probes of the binary search kept per file: the first levels of every search are the same few lines. */
const PROBE_DEPTH = 11;
/** Bytes of an index file scanned in one read once the search has narrowed to them. */
const WINDOW = 8192;
/** The longest line of an `index.<pos>` file is 331 bytes. */
const MAX_INDEX_LINE = 512;
const CHUNK = 512;
const NEWLINE = 0x0a;
const SPACE = 0x20;

/**
 * A text file of lines sorted by their first field, read at byte offsets. `find` binary-searches it: each probe
 * reads the first whole line after a position (the probes of the first levels, the same for every search, are
 * kept), and once the range is a few kilobytes it is read in one go and scanned.
 */
export class SortedFile {
  readonly #path: string;
  #fd: number | null = null;
  #size = 0;
  #buffer = Buffer.allocUnsafe(WINDOW + MAX_INDEX_LINE + 2);
  /** Probe position → the key of the first whole line after it (null: none), for the first levels of the search. */
  readonly #probes = new Map<number, string | null>();

  constructor(path: string) {
    this.#path = path;
  }

  open(): void {
    if (this.#fd !== null) return;
    this.#fd = openSync(this.#path, 'r');
    this.#size = fstatSync(this.#fd).size;
  }

  close(): void {
    if (this.#fd === null) return;
    closeSync(this.#fd);
    this.#fd = null;
  }

  /**
   * The line whose first field is `key`, or null. WordNet's files sort by byte value, as Buffer.compare compares
   * (the licence lines at the top start with spaces and sort first). Lines are compared as bytes: only the line found
   * becomes a string.
   */
  find(key: string): string | null {
    const wanted = Buffer.from(key, 'latin1');
    let lo = 0;
    let hi = this.#size;
    let depth = 0;
    while (hi - lo > WINDOW) {
      const mid = Math.floor((lo + hi) / 2);
      const probe = this.#probe(mid, depth++);
      if (probe === null || probe >= key) hi = mid;
      else lo = mid + 1;
    }
    // The line sought, if there, starts in [lo, start of the first line after hi]: one read covers it.
    const from = Math.max(0, lo - 1);
    const bytes = this.#read(from, Math.min(this.#size, hi + MAX_INDEX_LINE + 1) - from);
    let at = lo === 0 ? 0 : bytes.indexOf(NEWLINE) + 1;
    if (lo > 0 && at === 0) return null;
    while (at < bytes.length) {
      const end = bytes.indexOf(NEWLINE, at);
      if (end < 0) break;
      const space = bytes.indexOf(SPACE, at);
      const fieldEnd = space < 0 || space > end ? end : space;
      // wanted.compare(…) < 0: the line's key sorts after the one wanted (no Buffer made per line).
      const order = wanted.compare(bytes, at, fieldEnd);
      if (order === 0) return bytes.toString('latin1', at, end);
      if (order < 0) break;
      at = end + 1;
    }
    return null;
  }

  /** The line starting at byte `start` (without its newline), or null past the end. */
  lineAt(start: number): string | null {
    if (start >= this.#size) return null;
    let length = CHUNK;
    for (;;) {
      const bytes = this.#read(start, Math.min(length, this.#size - start));
      const end = bytes.indexOf(NEWLINE);
      if (end >= 0) return bytes.toString('latin1', 0, end);
      if (start + length >= this.#size) return bytes.toString('latin1');
      length *= 4;
    }
  }

  /** The key of the first whole line after `position` (null: none), kept for the first levels of the search. */
  #probe(position: number, depth: number): string | null {
    const cached = depth < PROBE_DEPTH ? this.#probes.get(position) : undefined;
    if (cached !== undefined) return cached;
    const bytes = this.#read(Math.max(0, position - 1), MAX_INDEX_LINE * 2 + 2);
    const start = position === 0 ? 0 : bytes.indexOf(NEWLINE) + 1;
    let key: string | null = null;
    if (position === 0 || start > 0) {
      const end = bytes.indexOf(NEWLINE, start);
      const space = bytes.indexOf(SPACE, start);
      if (end > start) key = bytes.toString('latin1', start, space < 0 || space > end ? end : space);
    }
    if (depth < PROBE_DEPTH) this.#probes.set(position, key);
    return key;
  }

  /** `length` bytes from `position`, in the file's reused buffer (valid until the next read). */
  #read(position: number, length: number): Buffer {
    if (this.#buffer.length < length) this.#buffer = Buffer.allocUnsafe(length);
    const read = readSync(this.#fd!, this.#buffer, 0, length, position);
    return this.#buffer.subarray(0, Math.max(0, read));
  }
}

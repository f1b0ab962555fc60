import { inParent, openRegular, type Target } from './pinned.js';

/** file_read's I/O: a window of a regular file, opened without following a link or blocking on a FIFO. */

export interface ReadWindow {
  data: Buffer;
  /** Size of the whole file in bytes. */
  size: number;
}

/** Reads at most `length` bytes from `offset`. */
export async function readWindow(target: Target, offset: number, length: number): Promise<ReadWindow> {
  return inParent(target, false, async (dir, name) => {
    const handle = await openRegular(dir, name, target.relative);
    try {
      const { size } = await handle.stat();
      const wanted = Math.max(0, Math.min(length, size - offset));
      const data = Buffer.alloc(wanted);
      let filled = 0;
      while (filled < wanted) {
        const { bytesRead } = await handle.read(data, filled, wanted - filled, offset + filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return { data: data.subarray(0, filled), size };
    } finally {
      await handle.close();
    }
  });
}

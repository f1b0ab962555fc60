import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { constants, createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import { ToolError } from '../errors.js';

export interface BodyRead {
  body: Buffer;
  /** The answer was longer than the cap and reading stopped there. */
  truncated: boolean;
  /** A Content-Encoding this reader could not undo: `body` is still encoded with it. */
  encoding?: string;
}

/** Slack for compressed bodies: incompressible data grows slightly under gzip. */
const RAW_SLACK = 64 * 1024;

type DecoderFactory = (first: Buffer) => Transform;

// Z_SYNC_FLUSH on finish: a body cut short by the size cap, or by a server, yields what it decoded so far.
const DECODERS: Record<string, DecoderFactory> = {
  gzip: () => createGunzip({ finishFlush: constants.Z_SYNC_FLUSH }),
  'x-gzip': () => createGunzip({ finishFlush: constants.Z_SYNC_FLUSH }),
  // "deflate" should be zlib-wrapped, but some servers send raw deflate: the first two bytes tell.
  deflate: (first) =>
    first.length >= 2 && (first[0]! & 0x0f) === 8 && ((first[0]! << 8) | first[1]!) % 31 === 0
      ? createInflate({ finishFlush: constants.Z_SYNC_FLUSH })
      : createInflateRaw({ finishFlush: constants.Z_SYNC_FLUSH }),
  br: () => createBrotliDecompress({ finishFlush: constants.BROTLI_OPERATION_FLUSH }),
};

/**
 * Reads a response body, decoding gzip/deflate/br, and stops at `maxBytes` of *decoded* output.
 * Security: a decompression bomb (kilobytes that inflate to gigabytes) is cut off at the cap; the compressed input
 * is capped too, and both streams are destroyed the moment the cap is reached, so memory stays bounded.
 */
export function readBody(res: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<BodyRead> {
  const coding = String(res.headers['content-encoding'] ?? '').trim().toLowerCase();
  const factory = coding === '' || coding === 'identity' ? undefined : DECODERS[coding];
  const leftEncoded = coding !== '' && coding !== 'identity' && !factory ? coding : undefined;
  const rawLimit = factory ? maxBytes + RAW_SLACK : maxBytes;

  return new Promise<BodyRead>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let raw = 0;
    let settled = false;
    let decoder: Transform | undefined;

    const cleanup = () => {
      signal.removeEventListener('abort', onAbort);
      res.destroy();
      decoder?.destroy();
    };
    const finish = (truncated: boolean) => {
      if (settled) return;
      settled = true;
      cleanup();
      resolve({ body: Buffer.concat(chunks, size), truncated, ...(leftEncoded ? { encoding: leftEncoded } : {}) });
    };
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      cleanup();
      reject(error);
    };
    const keep = (chunk: Buffer) => {
      if (settled) return;
      const room = maxBytes - size;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        size += room;
        finish(true);
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    };
    const onAbort = () => fail(signal.reason);
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });

    res.on('data', (chunk: Buffer) => {
      if (settled) return;
      raw += chunk.length;
      if (factory && !decoder) {
        decoder = factory(chunk);
        decoder.on('data', keep);
        decoder.on('end', () => finish(false));
        decoder.on('error', () =>
          fail(new ToolError('REQUEST_FAILED', `The server said the body was ${coding}-compressed, but it could not be decoded.`)),
        );
      }
      if (raw > rawLimit) {
        // Whatever the decoder already produced is kept; the rest of the body is not read.
        if (!decoder) keep(chunk);
        finish(true);
        return;
      }
      if (decoder) decoder.write(chunk);
      else keep(chunk);
    });
    res.on('end', () => (decoder ? decoder.end() : finish(false)));
    res.on('error', fail);
    res.on('close', () => {
      if (!res.complete) fail(new Error('the connection closed before the whole answer arrived'));
    });
  });
}

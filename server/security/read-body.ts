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

export interface BodyLimits {
  /** Most bytes kept, counted after decoding; past it reading stops and the read is `truncated`. */
  maxBytes: number;
  /**
   * What becomes of the rest: `close` destroys the stream (an answer from another server, no longer wanted);
   * `drain` reads it unkept (a request to us: its connection must still carry our answer).
   */
  rest: 'close' | 'drain';
  /** Undo the Content-Encoding (gzip, deflate, br); without it the bytes are kept as they came. */
  decode?: boolean;
  signal?: AbortSignal;
}

/**
 * Reads a body — an answer we fetched or a request we were sent — and stops at `maxBytes` (of *decoded* output when
 * decoding). The one body reader of the gateway, so every body has a cap. Security: a body larger than the cap
 * (or a decompression bomb: kilobytes that inflate to gigabytes) is cut off there; the compressed input is capped
 * too, and reading stops the moment the cap is reached, so memory stays bounded. Rejects when the stream fails,
 * closes before the body is complete, or `signal` aborts.
 */
export function readBody(message: IncomingMessage, limits: BodyLimits): Promise<BodyRead> {
  const { maxBytes, signal } = limits;
  const coding = limits.decode ? String(message.headers['content-encoding'] ?? '').trim().toLowerCase() : '';
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
      signal?.removeEventListener('abort', onAbort);
      decoder?.destroy();
      if (limits.rest === 'close') message.destroy();
      else {
        message.removeListener('data', onData);
        message.resume();
      }
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
    const onAbort = () => fail(signal?.reason);
    if (signal?.aborted) {
      onAbort();
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });

    // A declaration, not a const: an abort before the first chunk cleans up (and names it) before this line runs.
    function onData(chunk: Buffer): void {
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
    }
    message.on('data', onData);
    message.on('end', () => (decoder ? decoder.end() : finish(false)));
    message.on('error', fail);
    message.on('close', () => {
      if (!message.complete) fail(new Error('the connection closed before the whole answer arrived'));
    });
  });
}

import { StringDecoder } from 'node:string_decoder';
import { GatewayError } from '../errors.js';

/**
 * The lines of a streamed body, one at a time, so a JSONL upload of any length is read in constant memory.
 * Security: a "line" that never ends would otherwise grow without bound; one longer than `maxLineBytes` ends the
 * read with 413. Each chunk is looked at once (the line so far is never searched or measured again), so a client
 * sending a long line a byte at a time costs time in proportion to what it sends, not to its square.
 */
export async function* streamLines(stream: AsyncIterable<Buffer | string>, maxLineBytes: number): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let pieces: string[] = [];
  let pendingBytes = 0;
  let number = 0;
  const add = (piece: string) => {
    pendingBytes += Buffer.byteLength(piece);
    if (pendingBytes > maxLineBytes) {
      throw new GatewayError('PAYLOAD_TOO_LARGE', 413, `Line ${number + 1} is longer than ${maxLineBytes} bytes; the lines before it were read.`);
    }
    if (piece !== '') pieces.push(piece);
  };
  for await (const chunk of stream) {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      add(text.slice(start, end));
      const line = pieces.join('');
      pieces = [];
      pendingBytes = 0;
      number++;
      start = end + 1;
      yield line.endsWith('\r') ? line.slice(0, -1) : line;
    }
    add(text.slice(start));
  }
  const last = pieces.join('') + decoder.end();
  if (last !== '') yield last;
}

import { GatewayError } from '../errors.js';
import { LineSplitter } from '../util/lines.js';

/**
 * The lines of a streamed body, one at a time, so a JSONL upload of any length is read in constant memory.
 * Security: a "line" that never ends would otherwise grow without bound; one longer than `maxLineBytes` ends the
 * read with 413. Each chunk is looked at once (the line so far is never searched or measured again), so a client
 * sending a long line a byte at a time costs time in proportion to what it sends, not to its square.
 */
export async function* streamLines(stream: AsyncIterable<Buffer | string>, maxLineBytes: number): AsyncGenerator<string> {
  const splitter = new LineSplitter(maxLineBytes);
  let number = 0;
  for await (const chunk of stream) {
    const { lines, overflow } = splitter.push(chunk);
    for (const line of lines) {
      number++;
      yield line;
    }
    if (overflow) throw new GatewayError('PAYLOAD_TOO_LARGE', `Line ${number + 1} is longer than ${maxLineBytes} bytes; the lines before it were read.`);
  }
  const rest = splitter.end();
  if (rest !== undefined) yield rest;
}

import { StringDecoder } from 'node:string_decoder';
import { GatewayError } from '../errors.js';

/**
 * The lines of a streamed body, one at a time, so a JSONL upload of any length is read in constant memory.
 * Security: a "line" that never ends would otherwise grow without bound; one longer than `maxLineBytes` ends the
 * read with 413.
 */
export async function* streamLines(stream: AsyncIterable<Buffer | string>, maxLineBytes: number): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let number = 0;
  const tooLong = () =>
    new GatewayError('PAYLOAD_TOO_LARGE', 413, `Line ${number + 1} is longer than ${maxLineBytes} bytes; the lines before it were read.`);
  for await (const chunk of stream) {
    const parts = (pending + (typeof chunk === 'string' ? chunk : decoder.write(chunk))).split('\n');
    pending = parts.pop()!;
    for (const line of parts) {
      if (Buffer.byteLength(line) > maxLineBytes) throw tooLong();
      number++;
      yield line.endsWith('\r') ? line.slice(0, -1) : line;
    }
    if (Buffer.byteLength(pending) > maxLineBytes) throw tooLong();
  }
  pending += decoder.end();
  if (pending !== '') yield pending;
}

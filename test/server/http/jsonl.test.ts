import { describe, expect, it } from 'vitest';
import { streamLines } from '../../../server/http/jsonl.js';

async function* chunks(parts: Iterable<string | Buffer>): AsyncGenerator<string | Buffer> {
  for (const part of parts) yield part;
}

async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const all: string[] = [];
  for await (const line of lines) all.push(line);
  return all;
}

function* bytes(text: string): Generator<Buffer> {
  const buffer = Buffer.from(text);
  for (let i = 0; i < buffer.length; i++) yield buffer.subarray(i, i + 1);
}

describe('reading a JSONL body line by line', () => {
  it('splits lines across chunk boundaries, strips \\r, keeps a last line without a newline', async () => {
    expect(await collect(streamLines(chunks(['a\r\nb', 'c\n\nd']), 100))).toEqual(['a', 'bc', '', 'd']);
  });

  it('decodes a character split between chunks', async () => {
    expect(await collect(streamLines(chunks(bytes('é😀\nü')), 100))).toEqual(['é😀', 'ü']);
  });

  it('refuses a line longer than the cap while it arrives, naming the line', async () => {
    await expect(collect(streamLines(chunks(['ok\n', 'x'.repeat(60), 'x'.repeat(60)]), 100))).rejects.toThrow('Line 2 is longer than 100 bytes');
  });

  it('reads a 300,000-byte line sent one byte at a time without measuring the line again for every byte', async () => {
    const line = 'x'.repeat(300_000);
    const [read] = await collect(streamLines(chunks(bytes(`${line}\n`)), 1 << 20));
    expect(read).toHaveLength(line.length);
  }, 30_000);
});

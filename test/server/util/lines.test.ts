import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { describeBytes, LineSplitter, readLines } from '../../../server/util/lines.js';

/** The line reader every child protocol shares (plugins, MCP stdio servers) and the JSONL upload. */

describe('LineSplitter', () => {
  it('gives whole lines across chunks, without their line breaks, CRLF included', () => {
    const splitter = new LineSplitter(100);
    expect(splitter.push('{"a":').lines).toEqual([]);
    expect(splitter.push('1}\r\n{"b"').lines).toEqual(['{"a":1}']);
    expect(splitter.push(':2}\n\n').lines).toEqual(['{"b":2}', '']);
    expect(splitter.end()).toBeUndefined();
  });

  it('joins a character split across chunks before decoding it', () => {
    const bytes = Buffer.from('价格\n', 'utf8');
    const splitter = new LineSplitter(100);
    expect(splitter.push(bytes.subarray(0, 2)).lines).toEqual([]);
    expect(splitter.push(bytes.subarray(2)).lines).toEqual(['价格']);
  });

  it('a line without a break that grows past the cap is refused while it arrives, the lines before it still given', () => {
    const splitter = new LineSplitter(10);
    expect(splitter.push('ok\n12345')).toEqual({ lines: ['ok'], overflow: false });
    expect(splitter.push('678901')).toEqual({ lines: [], overflow: true });
  });

  it('a line of exactly the cap passes; one byte more does not, even when its break comes in the same chunk', () => {
    expect(new LineSplitter(5).push('12345\n')).toEqual({ lines: ['12345'], overflow: false });
    expect(new LineSplitter(5).push('123456\n')).toEqual({ lines: [], overflow: true });
  });

  it('gives a last line that ends without a break at the end', () => {
    const splitter = new LineSplitter(100);
    splitter.push('a\nlast');
    expect(splitter.end()).toBe('last');
  });
});

describe('readLines', () => {
  it('a writer that never sends a line break is cut off at the cap, its stream destroyed, with the reason', async () => {
    const stream = new PassThrough();
    const lines: string[] = [];
    const reasons: string[] = [];
    readLines(stream, { maxLineBytes: 1024 * 1024, onLine: (line) => lines.push(line), onOverflow: (why) => reasons.push(why) });
    stream.write('{"type":"log"}\n');
    const chunk = Buffer.alloc(64 * 1024, 0x78);
    // Far more than the cap: everything past it is never read, nothing past it is held.
    for (let i = 0; i < 64 && !stream.destroyed; i++) stream.write(chunk);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toEqual(['{"type":"log"}']);
    expect(reasons).toEqual(['it wrote more than 1 MiB without a line break']);
    expect(stream.destroyed).toBe(true);
  });

  it('stops delivering once the caller stops it from inside a line', async () => {
    const stream = new PassThrough();
    const lines: string[] = [];
    const reader = readLines(stream, {
      maxLineBytes: 100,
      onLine: (line) => {
        lines.push(line);
        reader.stop();
      },
      onOverflow: () => undefined,
    });
    stream.write('one\ntwo\nthree\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toEqual(['one']);
  });

  it('gives the last line when the stream ends without a break', async () => {
    const stream = new PassThrough();
    const lines: string[] = [];
    readLines(stream, { maxLineBytes: 100, onLine: (line) => lines.push(line), onOverflow: () => undefined });
    stream.end('a\nb');
    await new Promise((resolve) => stream.once('end', resolve));
    expect(lines).toEqual(['a', 'b']);
  });
});

it('names sizes in words', () => {
  expect(describeBytes(16 * 1024 * 1024)).toBe('16 MiB');
  expect(describeBytes(512 * 1024)).toBe('512 KiB');
  expect(describeBytes(100)).toBe('100 bytes');
});

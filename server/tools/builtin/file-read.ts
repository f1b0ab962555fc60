import { ToolError } from '../../errors.js';
import type { PathGuard } from '../../security/path-guard.js';
import { recheck } from '../../security/safe-fs/pinned.js';
import { readWindow } from '../../security/safe-fs/read.js';
import { defineTool } from '../types.js';

export const READ_ENCODINGS = ['utf8', 'latin1', 'base64', 'utf16le'] as const;
export type ReadEncoding = (typeof READ_ENCODINGS)[number];

/** Largest window one call returns; longer files are read in pieces with offset. */
export const MAX_READ_BYTES = 1024 * 1024;
/** What a call returns when it names no length (fits the gateway's default 1 MiB result limit once in JSON). */
export const DEFAULT_READ_BYTES = 256 * 1024;
/** Share of undecodable UTF-8 above which a window counts as binary (Latin-1 prose stays well below). */
const INVALID_UTF8_RATIO = 0.3;
/** Share of control characters (other than tab, newlines, form feed, escape) above which a window counts as binary. */
const CONTROL_RATIO = 0.1;

interface FileReadArgs {
  path: string;
  encoding?: ReadEncoding;
  offset?: number;
  length?: number;
}

export interface FileReadResult {
  path: string;
  root: string;
  encoding: ReadEncoding;
  content: string;
  /** Size of the whole file in bytes. */
  size: number;
  offset: number;
  /** Bytes returned. */
  length: number;
  truncated: boolean;
  next_offset?: number;
  note?: string;
}

export function createFileReadTool(guard: PathGuard) {
  return defineTool<FileReadArgs, FileReadResult>({
    name: 'file_read',
    description:
      'Read a file from the folders you are allowed to use (the roots; a relative path starts at the first root). ' +
      `Returns { content, size, offset, length, truncated, next_offset }. At most ${MAX_READ_BYTES} bytes come back per call ` +
      `(${DEFAULT_READ_BYTES} unless you set length); when truncated is true, call again with offset = next_offset for the rest. ` +
      'Text is decoded as UTF-8 by default; a binary file (images, archives…) gives the error FILE_IS_BINARY — read it with ' +
      'encoding "base64" for the raw bytes. Use "latin1" or "utf16le" for text in those encodings. Reading credentials ' +
      '(.env, SSH keys, *.pem…) needs the person\'s approval. To see what files exist, use file_list.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'The file, e.g. "src/index.ts" or an absolute path inside a root.', minLength: 1, maxLength: 4096 },
        encoding: { type: 'string', enum: [...READ_ENCODINGS], default: 'utf8', description: 'How to turn the bytes into text.' },
        offset: { type: 'integer', minimum: 0, default: 0, description: 'Byte position to start reading at.' },
        length: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_READ_BYTES,
          default: DEFAULT_READ_BYTES,
          description: 'Most bytes to return.',
        },
      },
      required: ['path'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string' },
        root: { type: 'string' },
        encoding: { type: 'string' },
        content: { type: 'string' },
        size: { type: 'integer' },
        offset: { type: 'integer' },
        length: { type: 'integer' },
        truncated: { type: 'boolean' },
        next_offset: { type: 'integer' },
        note: { type: 'string' },
      },
      required: ['path', 'root', 'encoding', 'content', 'size', 'offset', 'length', 'truncated'],
    },
    category: 'files',
    risk: 'sensitive',
    annotations: { title: 'Read file', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    timeoutMs: 30_000,
    async handler(args) {
      const encoding = args.encoding ?? 'utf8';
      if (!READ_ENCODINGS.includes(encoding)) {
        throw new ToolError('INVALID_ENCODING', `Unknown encoding "${String(encoding)}". Use one of: ${READ_ENCODINGS.join(', ')}.`);
      }
      const offset = wholeNumber(args.offset, 0, 'offset');
      const length = Math.max(1, Math.min(wholeNumber(args.length, DEFAULT_READ_BYTES, 'length'), MAX_READ_BYTES));
      const target = await recheck(guard, args.path, 'read');
      const window = await readWindow(target, offset, length);
      let data = window.data;
      const cut = offset + data.length < window.size;
      if (cut && encoding === 'utf8') data = data.subarray(0, utf8Boundary(data));
      if (cut && encoding === 'utf16le') data = data.subarray(0, data.length - (data.length % 2));
      let note: string | undefined;
      if (encoding === 'utf8' || encoding === 'latin1') {
        const verdict = inspectText(data, encoding);
        if (verdict.binary) {
          throw new ToolError(
            'FILE_IS_BINARY',
            `"${target.relative}" looks like a binary file (${verdict.why}), so it is not returned as text. ` +
              (data[0] === 0xff && data[1] === 0xfe
                ? 'It starts with a UTF-16 byte-order mark: read it with encoding "utf16le". '
                : verdict.why?.includes('UTF-8')
                  ? 'If it is text in another encoding, read it with encoding "latin1". '
                  : '') +
              'Read it with encoding "base64" to get the raw bytes.',
            { size: window.size },
          );
        }
        if (verdict.replaced > 0) {
          note = `${verdict.replaced} byte sequences were not valid UTF-8 and show as U+FFFD; if the file is Latin-1 text, read it with encoding "latin1".`;
        }
      }
      const end = offset + data.length;
      const truncated = end < window.size;
      return {
        path: target.relative,
        root: target.root,
        encoding,
        content: data.toString(encoding),
        size: window.size,
        offset,
        length: data.length,
        truncated,
        ...(truncated ? { next_offset: end } : {}),
        ...(note ? { note } : {}),
      };
    },
  });
}

function wholeNumber(value: unknown, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new ToolError('INVALID_ARGUMENTS', `${name} must be a whole number of bytes, 0 or more.`);
  }
  return value;
}

/** Where the window must end so that it does not split a UTF-8 character. */
function utf8Boundary(data: Buffer): number {
  for (let back = 1; back <= Math.min(4, data.length); back++) {
    const byte = data[data.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? data.length - back : data.length;
  }
  return data.length;
}

/** NUL bytes mean binary; so does a high share of control bytes, or of byte sequences that are not UTF-8. */
function inspectText(data: Buffer, encoding: 'utf8' | 'latin1'): { binary: boolean; why?: string; replaced: number } {
  if (data.includes(0)) return { binary: true, why: 'it contains NUL bytes', replaced: 0 };
  let controls = 0;
  for (const byte of data) if (byte < 0x20 && !(byte >= 0x09 && byte <= 0x0d) && byte !== 0x1b) controls++;
  if (controls > 0 && controls / data.length > CONTROL_RATIO) {
    return { binary: true, why: `${controls} of ${data.length} bytes are control characters`, replaced: 0 };
  }
  if (encoding === 'latin1') return { binary: false, replaced: 0 };
  const text = data.toString('utf8');
  let replaced = 0;
  for (let i = text.indexOf('\ufffd'); i !== -1; i = text.indexOf('\ufffd', i + 1)) replaced++;
  // A real U+FFFD in the file is EF BF BD, not an error.
  for (let i = data.indexOf('\ufffd'); i !== -1; i = data.indexOf('\ufffd', i + 3)) replaced--;
  replaced = Math.max(0, replaced);
  if (replaced > 0 && replaced / Math.max(1, text.length) > INVALID_UTF8_RATIO) {
    return { binary: true, why: `${replaced} of ${text.length} characters are not valid UTF-8`, replaced };
  }
  return { binary: false, replaced };
}

import { ToolError } from '../../errors.js';
import type { PathGuard } from '../../security/path-guard.js';
import { recheck } from '../../security/safe-fs/pinned.js';
import { writeAtomic, type WriteMode } from '../../security/safe-fs/write.js';
import { defineTool } from '../types.js';

export const WRITE_ENCODINGS = ['utf8', 'latin1', 'base64', 'utf16le'] as const;
export type WriteEncoding = (typeof WRITE_ENCODINGS)[number];
export const WRITE_MODES = ['overwrite', 'append', 'create'] as const;

/** Largest content one call writes (after decoding). */
export const MAX_WRITE_BYTES = 5 * 1024 * 1024;
/** Appending rewrites the file (temp file + rename), so the existing file must be reasonably small. */
export const MAX_APPEND_BASE_BYTES = 32 * 1024 * 1024;

interface FileWriteArgs {
  path: string;
  content: string;
  encoding?: WriteEncoding;
  mode?: WriteMode;
  create_dirs?: boolean;
}

export interface FileWriteResult {
  path: string;
  root: string;
  mode: WriteMode;
  created: boolean;
  bytes_written: number;
  size: number;
}

export function createFileWriteTool(guard: PathGuard) {
  return defineTool<FileWriteArgs, FileWriteResult>({
    name: 'file_write',
    description:
      'Write a file in the folders you are allowed to use (the roots; a relative path starts at the first root). ' +
      'mode "overwrite" (default) replaces the whole file or creates it; "append" adds content at the end; "create" ' +
      'only makes a new file and fails with FILE_EXISTS if one is there. Missing folders are created when create_dirs ' +
      `is true. At most ${MAX_WRITE_BYTES} bytes per call. The write is atomic (readers see the old or the new file, ` +
      'never half of it) and never goes through a symbolic link. Content is UTF-8 text unless encoding says otherwise ' +
      '("base64" for binary data). Writing files that other programs run on their own (git hooks and config, shell ' +
      'start-up files, editor and agent settings) needs the person\'s approval.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'The file to write, e.g. "notes/todo.md".', minLength: 1, maxLength: 4096 },
        content: { type: 'string', description: 'The text (or base64 data) to write.', maxLength: Math.ceil((MAX_WRITE_BYTES * 4) / 3) + 4 },
        encoding: { type: 'string', enum: [...WRITE_ENCODINGS], default: 'utf8', description: 'How content is encoded.' },
        mode: { type: 'string', enum: [...WRITE_MODES], default: 'overwrite', description: 'Replace, add to the end, or create only.' },
        create_dirs: { type: 'boolean', default: false, description: 'Create missing parent folders.' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string' },
        root: { type: 'string' },
        mode: { type: 'string' },
        created: { type: 'boolean' },
        bytes_written: { type: 'integer' },
        size: { type: 'integer' },
      },
      required: ['path', 'root', 'mode', 'created', 'bytes_written', 'size'],
    },
    category: 'files',
    risk: 'dangerous',
    annotations: { title: 'Write file', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    timeoutMs: 30_000,
    async handler(args, ctx) {
      const mode = args.mode ?? 'overwrite';
      if (!WRITE_MODES.includes(mode)) throw new ToolError('INVALID_ARGUMENTS', `mode must be one of: ${WRITE_MODES.join(', ')}.`);
      const data = decode(args.content, args.encoding ?? 'utf8');
      if (data.length > MAX_WRITE_BYTES) {
        throw new ToolError(
          'FILE_TOO_LARGE',
          `The content is ${data.length} bytes; one call writes at most ${MAX_WRITE_BYTES}. Write the first part, then add the rest with mode "append".`,
          { bytes: data.length, limit: MAX_WRITE_BYTES },
        );
      }
      const target = await recheck(guard, args.path, 'write');
      if (ctx.signal.aborted) throw ctx.signal.reason;
      const outcome = await writeAtomic(target, data, { mode, createDirs: args.create_dirs === true, maxExisting: MAX_APPEND_BASE_BYTES });
      return { path: target.relative, root: target.root, mode, created: outcome.created, bytes_written: data.length, size: outcome.size };
    },
  });
}

function decode(content: unknown, encoding: WriteEncoding): Buffer {
  if (typeof content !== 'string') throw new ToolError('INVALID_CONTENT', 'content must be a string.');
  switch (encoding) {
    case 'utf8':
    case 'utf16le':
      return Buffer.from(content, encoding);
    case 'latin1':
      // Buffer would silently keep only the low byte of a character Latin-1 cannot hold.
      if (/[^\u0000-\u00ff]/.test(content)) {
        throw new ToolError('INVALID_CONTENT', 'content has characters Latin-1 cannot hold; write it with encoding "utf8" instead.');
      }
      return Buffer.from(content, 'latin1');
    case 'base64': {
      const compact = content.replace(/\s+/g, '');
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
        throw new ToolError('INVALID_CONTENT', 'content is not valid base64 (A–Z, a–z, 0–9, +, / and = padding). Check the data or use encoding "utf8".');
      }
      return Buffer.from(compact, 'base64');
    }
    default:
      throw new ToolError('INVALID_ENCODING', `Unknown encoding "${String(encoding)}". Use one of: ${WRITE_ENCODINGS.join(', ')}.`);
  }
}

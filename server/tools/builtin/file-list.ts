import { ToolError } from '../../errors.js';
import { checkPathPattern } from '../../security/list-pattern.js';
import type { PathGuard } from '../../security/path-guard.js';
import { listTree, type ListEntry } from '../../security/safe-fs/list.js';
import { recheck } from '../../security/safe-fs/pinned.js';
import { compileGlob, GlobError, MAX_GLOB_LENGTH } from '../../util/glob.js';
import { defineTool } from '../types.js';

export const MAX_LIST_DEPTH = 10;
export const MAX_LIST_ENTRIES = 5000;
export const DEFAULT_LIST_ENTRIES = 1000;

interface FileListArgs {
  path: string;
  pattern?: string;
  recursive?: boolean;
  max_depth?: number;
  max_entries?: number;
  include_hidden?: boolean;
}

export interface FileListResult {
  path: string;
  root: string;
  entries: ListEntry[];
  count: number;
  truncated: boolean;
  truncated_reason?: string;
}

export function createFileListTool(guard: PathGuard) {
  return defineTool<FileListArgs, FileListResult>({
    name: 'file_list',
    description:
      'List a folder in the allowed folders (the roots; "." is the first root, a relative path starts there). Returns ' +
      'entries { name, path (relative to the root), type: file | dir | symlink | other, size, mtime }, sorted by name, ' +
      'a folder\'s own entries before deeper ones. Set recursive to go into subfolders (up to max_depth levels, at most ' +
      `${MAX_LIST_DEPTH}); symbolic links are listed but never followed. pattern filters with a glob: "*.ts" matches ` +
      'names at any depth, a pattern with "/" ("src/**/*.test.ts") matches the path below the listed folder; ' +
      '** spans folders, {a,b} gives alternatives. Names starting with "." are left out unless include_hidden is true. ' +
      `At most max_entries entries (default ${DEFAULT_LIST_ENTRIES}, up to ${MAX_LIST_ENTRIES}); truncated tells you when a ` +
      'limit cut the list short — then narrow the path or the pattern.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'The folder, e.g. "." or "src".', minLength: 1, maxLength: 4096 },
        pattern: { type: 'string', description: 'Glob to filter entries, e.g. "*.md" or "src/**/*.ts".', minLength: 1, maxLength: MAX_GLOB_LENGTH },
        recursive: { type: 'boolean', default: false, description: 'Also list subfolders.' },
        max_depth: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_LIST_DEPTH,
          description: `Levels to list: 1 is the folder itself. Defaults to ${MAX_LIST_DEPTH} when recursive, else 1.`,
        },
        max_entries: { type: 'integer', minimum: 1, maximum: MAX_LIST_ENTRIES, default: DEFAULT_LIST_ENTRIES, description: 'Most entries to return.' },
        include_hidden: { type: 'boolean', default: false, description: 'Include names starting with ".".' },
      },
      required: ['path'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string' },
        root: { type: 'string' },
        entries: {
          type: 'array',
          items: {
            type: 'object',
            properties: { name: { type: 'string' }, path: { type: 'string' }, type: { type: 'string' }, size: { type: 'number' }, mtime: { type: 'string' } },
            required: ['name', 'path', 'type', 'size', 'mtime'],
          },
        },
        count: { type: 'integer' },
        truncated: { type: 'boolean' },
        truncated_reason: { type: 'string' },
      },
      required: ['path', 'root', 'entries', 'count', 'truncated'],
    },
    category: 'files',
    risk: 'sensitive',
    annotations: { title: 'List files', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    timeoutMs: 30_000,
    async handler(args, ctx) {
      let match: ((relative: string) => boolean) | undefined;
      if (args.pattern !== undefined) {
        if (typeof args.pattern !== 'string') throw new ToolError('INVALID_PATTERN', 'pattern must be a string such as "*.md".');
        // Security: the policy refuses these already; a direct call to the handler must not get further.
        const escape = checkPathPattern(args.pattern);
        if (escape) throw new ToolError('PATH_NOT_ALLOWED', `${escape.reason} (rule ${escape.rule})`, { rule: escape.rule });
        try {
          const matcher = compileGlob(args.pattern);
          match = args.pattern.includes('/') ? matcher : (relative) => matcher(relative.slice(relative.lastIndexOf('/') + 1));
        } catch (error) {
          if (error instanceof GlobError) throw new ToolError('INVALID_PATTERN', `${error.message} Use a simpler glob such as "*.md".`);
          throw error;
        }
      }
      const maxDepth = clamp(args.max_depth, args.recursive === true ? MAX_LIST_DEPTH : 1, MAX_LIST_DEPTH);
      const maxEntries = clamp(args.max_entries, DEFAULT_LIST_ENTRIES, MAX_LIST_ENTRIES);
      const target = await recheck(guard, args.path, 'list');
      const listing = await listTree(target, {
        maxDepth,
        maxEntries,
        includeHidden: args.include_hidden === true,
        ...(match ? { match } : {}),
        isHidden: (real) => guard.isProtected(real),
        signal: ctx.signal,
      });
      return {
        path: target.relative,
        root: target.root,
        entries: listing.entries,
        count: listing.entries.length,
        truncated: listing.truncated,
        ...(listing.reason ? { truncated_reason: listing.reason } : {}),
      };
    },
  });
}

function clamp(value: unknown, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new ToolError('INVALID_ARGUMENTS', 'max_depth and max_entries must be whole numbers, 1 or more.');
  }
  return Math.min(value, max);
}

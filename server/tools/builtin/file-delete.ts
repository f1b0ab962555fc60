import type { PathGuard } from '../../security/path-guard.js';
import { recheck } from '../../security/safe-fs/pinned.js';
import { removeEntry, type RemoveOutcome } from '../../security/safe-fs/remove.js';
import { defineTool } from '../types.js';

interface FileDeleteArgs {
  path: string;
  recursive?: boolean;
}

export interface FileDeleteResult extends RemoveOutcome {
  path: string;
  root: string;
  deleted: true;
}

export function createFileDeleteTool(guard: PathGuard) {
  return defineTool<FileDeleteArgs, FileDeleteResult>({
    name: 'file_delete',
    description:
      'Delete a file, a symbolic link or a folder in the allowed folders (the roots). Every delete needs the person\'s ' +
      'approval and cannot be undone. A symbolic link is removed itself; what it points to is left alone. A folder that ' +
      'is not empty is only deleted with recursive: true (everything inside goes too). Root folders themselves are never ' +
      'deleted. Returns { type, files, dirs } — what was removed.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'The file, link or folder to delete.', minLength: 1, maxLength: 4096 },
        recursive: { type: 'boolean', default: false, description: 'Allow deleting a folder with everything inside it.' },
      },
      required: ['path'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string' },
        root: { type: 'string' },
        deleted: { const: true },
        type: { enum: ['file', 'dir', 'symlink', 'other'] },
        files: { type: 'integer' },
        dirs: { type: 'integer' },
      },
      required: ['path', 'root', 'deleted', 'type', 'files', 'dirs'],
    },
    category: 'files',
    risk: 'dangerous',
    annotations: { title: 'Delete file', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    timeoutMs: 60_000,
    async handler(args, ctx) {
      const target = await recheck(guard, args.path, 'delete');
      if (ctx.signal.aborted) throw ctx.signal.reason;
      const outcome = await removeEntry(target, { recursive: args.recursive === true, signal: ctx.signal });
      return { path: target.relative, root: target.root, deleted: true, ...outcome };
    },
  });
}

import type { PathAccess, PathGuard } from '../../security/paths.js';
import type { Analyzer } from '../policy.js';

const ACCESS: Readonly<Record<string, PathAccess>> = {
  file_read: 'read',
  file_write: 'write',
  file_list: 'list',
  file_delete: 'delete',
};

/** Path analyzers for the built-in file tools: the guard's verdict for the call's `path` decides. */
export function fileAnalyzers(guard: PathGuard): Record<string, Analyzer> {
  const analyzers: Record<string, Analyzer> = {};
  for (const [tool, access] of Object.entries(ACCESS)) {
    analyzers[tool] = async (args) => (await guard.check(args.path, access)).decision;
  }
  return analyzers;
}

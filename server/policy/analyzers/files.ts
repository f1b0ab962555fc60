import { checkPathPattern } from '../../security/list-pattern.js';
import type { PathAccess, PathGuard } from '../../security/path-guard.js';
import type { Analyzer } from '../policy.js';
import { strictest } from '../../decision.js';

const ACCESS: Readonly<Record<string, PathAccess>> = {
  file_read: 'read',
  file_write: 'write',
  file_list: 'list',
  file_delete: 'delete',
};

/**
 * Glob arguments that name paths, per tool (text_process's `pattern` is a text regex, not a path). Security: a
 * pattern that climbs out or starts elsewhere (`../*`, `/etc/*`, `．．/*`) is refused before the tool runs.
 */
const PATH_PATTERNS: Readonly<Record<string, readonly string[]>> = {
  file_list: ['pattern'],
};

/**
 * Path analyzers for the built-in file tools: the guard's verdict for the call's `path` decides, and any path
 * pattern argument that escapes the listed folder denies (rule path:pattern-escape).
 */
export function fileAnalyzers(guard: PathGuard): Record<string, Analyzer> {
  const analyzers: Record<string, Analyzer> = {};
  for (const [tool, access] of Object.entries(ACCESS)) {
    const patterns = PATH_PATTERNS[tool] ?? [];
    analyzers[tool] = async (args) => {
      const verdict = await guard.check(args.path, access);
      const decisions = [verdict.decision];
      for (const name of patterns) {
        const refusal = checkPathPattern(args[name]);
        if (refusal) decisions.push(refusal);
      }
      return { ...strictest(decisions), subject: verdict.resolved === undefined ? {} : { path: verdict.resolved } };
    };
  }
  return analyzers;
}

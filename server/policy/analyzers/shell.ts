import type { PathGuard } from '../../security/path-guard.js';
import type { ShellAnalyzer } from '../../security/shell/analyzer.js';
import type { Analyzer } from '../policy.js';
import { strictest } from '../../decision.js';

/**
 * The analyzer for `run_shell`: the command decides, and the folder it runs in is judged like any path (outside the
 * roots or in Pincer's data folder is refused). The tool checks the folder again when the call runs.
 */
export function shellAnalyzers(analyzer: ShellAnalyzer, paths?: PathGuard): Record<string, Analyzer> {
  return {
    run_shell: async (args) => {
      const text = typeof args.command === 'string' ? args.command : String(args.command ?? '');
      const folder = paths ? await paths.check(args.cwd ?? paths.roots[0] ?? '.', 'list') : undefined;
      // With no folder shared there is nowhere to run: the guard's refusal says how the owner shares one.
      if (folder && paths?.roots.length === 0) return folder.decision;
      const command = await analyzer.analyze(text, folder?.resolved);
      if (args.cwd === undefined || !folder) return command;
      return { ...strictest([command, folder.decision]), ...(command.subject ? { subject: command.subject } : {}) };
    },
  };
}

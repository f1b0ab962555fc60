import { homedir } from 'node:os';
import { deny } from '../../decision.js';
import type { Analyzer } from '../policy.js';
import type { PythonAnalyzer } from '../../security/python.js';

/** Pincer's own folders, as the run_python analyzer looks for them in the code's text. */
export interface PythonOwnFolders {
  /** Pincer's package and bundled plugins: code that is not pure may not name them. */
  code: readonly string[];
  /** The data folder: no code may name it. */
  data: readonly string[];
  home?: string;
}

/**
 * The run_python analyzer: pure computation runs, anything else waits for a person (docs/security.md, "The policy").
 */
export function pythonAnalyzers(analyzer: PythonAnalyzer, own?: PythonOwnFolders): Record<string, Analyzer> {
  return {
    run_python: async (args) => {
      const code = typeof args.code === 'string' ? args.code : String(args.code ?? '');
      const decision = await analyzer.analyze(code);
      // Security: code that is not provably pure runs outside the sandbox once approved (what it reaches cannot be
      // told), so nothing but this check would keep it out of Pincer's own folders when it names them.
      if (own && decision.decision !== 'allow') {
        const home = own.home ?? homedir();
        const data = own.data.find((folder) => names(code, folder, home));
        if (data !== undefined) {
          return deny(
            'python:pincer-data',
            `The code names Pincer's own data folder (${data}: tokens, database, settings), which no tool may touch, even ` +
              'with approval; the owner changes settings from the dashboard or the CLI.',
          );
        }
        const folder = own.code.find((dir) => names(code, dir, home));
        if (folder !== undefined) {
          return deny(
            'python:pincer-code',
            `The code names Pincer's own code (${folder}), and once approved it would run outside the sandbox, where nothing ` +
              'keeps it from changing that code; Pincer never runs this, even with approval. Work on files in the project folders instead.',
          );
        }
      }
      // Code that is not provably pure can read, write or connect anywhere: what it reaches cannot be told.
      return { ...decision, subject: { reach: decision.decision === 'allow' ? 'known' : 'unknown' } };
    },
  };
}

/** Whether the text spells the folder: its absolute path, or `~/…` when it lies in the home folder. */
function names(text: string, folder: string, home: string): boolean {
  const lower = text.toLowerCase();
  const target = folder.toLowerCase();
  if (lower.includes(target)) return true;
  const base = home.replace(/\/+$/, '').toLowerCase();
  return target.startsWith(`${base}/`) && lower.includes(`~/${target.slice(base.length + 1)}`);
}

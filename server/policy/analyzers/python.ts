import type { Analyzer } from '../policy.js';
import type { PythonAnalyzer } from '../../security/python.js';

/** The run_python analyzer: pure computation runs, anything else waits for a person (SPEC §5). */
export function pythonAnalyzers(analyzer: PythonAnalyzer): Record<string, Analyzer> {
  return {
    run_python: async (args) => {
      const decision = await analyzer.analyze(typeof args.code === 'string' ? args.code : String(args.code ?? ''));
      // Code that is not provably pure can read, write or connect anywhere: what it reaches cannot be told.
      return { ...decision, subject: { reach: decision.decision === 'allow' ? 'known' : 'unknown' } };
    },
  };
}

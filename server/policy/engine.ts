import { riskDecision, type Analyzer, type Policy, type PolicyInput } from './policy.js';
import type { PolicyDecision } from '../decision.js';
import type { FileProvenance } from './provenance.js';
import type { RuleBook } from './rules.js';

/**
 * Decides every call. A tool with an analyzer (files, shell, Python, HTTP) is judged by what this particular call
 * would do; any other tool by its declared risk. Analyzers belong to the built-in tool of that name only. A command
 * that runs files a client wrote recently is never allowed unasked (see FileProvenance). The owner's rules then
 * apply on top (see RuleBook).
 */
export class PolicyEngine implements Policy {
  readonly #analyzers: ReadonlyMap<string, Analyzer>;

  constructor(
    analyzers: Record<string, Analyzer>,
    private readonly rules?: RuleBook,
    private readonly provenance?: FileProvenance,
  ) {
    this.#analyzers = new Map(Object.entries(analyzers));
  }

  async decide(input: PolicyInput): Promise<PolicyDecision> {
    const analyzer = input.tool.source === 'builtin' ? this.#analyzers.get(input.tool.definition.name) : undefined;
    const analyzed = analyzer ? await analyzer(input.arguments) : riskDecision(input.tool);
    const base = this.provenance ? this.provenance.judge(analyzed) : analyzed;
    if (!this.rules) return base;
    const decided = await this.rules.apply(input.tool.definition.name, input.arguments, base);
    return base.subject && decided.subject === undefined ? { ...decided, subject: base.subject } : decided;
  }
}

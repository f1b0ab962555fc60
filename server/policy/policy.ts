import type { RegisteredTool } from '../tools/registry.js';

export type Decision = 'allow' | 'ask' | 'deny';

/** A decision and what made it; recorded with every call and shown in the log. */
export interface PolicyDecision {
  decision: Decision;
  /** Stable identifier of the rule that decided, e.g. "risk:safe", "path:outside-roots", "shell:read-only". */
  rule: string;
  /** Written for a person: why, and what they can do about it. */
  reason: string;
  /** What the call touches, as the analyzer found it (resolved once, for rules and the approval's scopes). */
  subject?: Subject;
}

/** A path outside the roots that a command reads or writes. */
export interface OutsidePath {
  /** Real path (symlinks followed). */
  path: string;
  access: 'read' | 'write';
  /** The folder an "always allow this folder" grant names: the path itself when it is a folder, else its parent. */
  folder: string;
}

/** What a call touches, for rules scoped to a folder, a host or a command prefix. */
export interface Subject {
  /** Resolved absolute path (file tools) or working folder (run_shell). */
  path?: string;
  host?: string;
  command?: string;
  /** run_shell: paths outside the roots the command names. */
  outside?: OutsidePath[];
  /** run_shell: what the command would be if it read nothing outside the roots (a folder grant covers only that). */
  otherwise?: Decision;
}

export interface PolicyInput {
  tool: RegisteredTool;
  arguments: Record<string, unknown>;
  client: string;
}

export interface Policy {
  decide(input: PolicyInput): Promise<PolicyDecision> | PolicyDecision;
}

/**
 * Looks at one tool's arguments and says what it thinks (a path outside the roots, a command that writes…).
 * Analyzers never run anything the call asks for; they may resolve paths or host names to judge them.
 */
export type Analyzer = (args: Record<string, unknown>) => Promise<PolicyDecision> | PolicyDecision;

const SEVERITY: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };

/** deny > ask > allow; among equals the first one found speaks. */
export function strictest(decisions: readonly PolicyDecision[]): PolicyDecision {
  if (decisions.length === 0) throw new Error('strictest() needs at least one decision');
  return decisions.reduce((worst, d) => (SEVERITY[d.decision] > SEVERITY[worst.decision] ? d : worst));
}

export const allow = (rule: string, reason: string): PolicyDecision => ({ decision: 'allow', rule, reason });
export const ask = (rule: string, reason: string): PolicyDecision => ({ decision: 'ask', rule, reason });
export const deny = (rule: string, reason: string): PolicyDecision => ({ decision: 'deny', rule, reason });

/**
 * The baseline: a tool's declared risk. Safe tools run; anything that can touch the machine needs a human, so it
 * asks — unless an analyzer for that tool can tell a harmless call from a harmful one.
 */
export function riskDecision(tool: RegisteredTool): PolicyDecision {
  const { risk, name } = tool.definition;
  if (risk === 'safe') return allow('risk:safe', `${name} is a safe tool.`);
  return ask(`risk:${risk}`, `${name} is marked ${risk}, so the owner must approve each call.`);
}

/** Decides by declared risk alone (tests, and tools without an analyzer). */
export class RiskPolicy implements Policy {
  decide({ tool }: PolicyInput): PolicyDecision {
    return riskDecision(tool);
  }
}

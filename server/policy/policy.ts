import { allow, ask, type PolicyDecision } from '../decision.js';
import type { RegisteredTool } from '../tools/registry.js';

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

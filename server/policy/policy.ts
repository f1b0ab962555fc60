import type { RegisteredTool } from '../tools/registry.js';

export type Decision = 'allow' | 'ask' | 'deny';

/** A decision and what made it; recorded with every call and shown in the log. */
export interface PolicyDecision {
  decision: Decision;
  /** Stable identifier of the rule that decided, e.g. "risk:safe". */
  rule: string;
  /** Written for a person: why, and what they can do about it. */
  reason: string;
}

export interface PolicyInput {
  tool: RegisteredTool;
  arguments: Record<string, unknown>;
  client: string;
}

export interface Policy {
  decide(input: PolicyInput): PolicyDecision;
}

/**
 * The baseline every later rule refines: a tool's declared risk. Safe tools run; anything that can touch the
 * machine needs a human, so it asks.
 */
export class RiskPolicy implements Policy {
  decide({ tool }: PolicyInput): PolicyDecision {
    const { risk, name } = tool.definition;
    if (risk === 'safe') return { decision: 'allow', rule: 'risk:safe', reason: `${name} is a safe tool.` };
    return {
      decision: 'ask',
      rule: `risk:${risk}`,
      reason: `${name} is marked ${risk}, so the owner must approve each call.`,
    };
  }
}

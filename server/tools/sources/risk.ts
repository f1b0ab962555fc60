import { RISKS, type Risk } from '../types.js';

/** A reason a source gives to treat its tool at least this carefully (a plugin reaching beyond its folder…). */
export interface RiskFloor {
  risk: Risk;
  why: string;
}

/**
 * The one rule for the risk a tool from an outside source runs with, whatever the kind of source.
 * - It starts from the tool's rating: the one its plugin declared, or for an imported MCP tool the owner's (sensitive
 *   until the owner rates it: a server's own words are not a rating).
 * - A tool that calls itself destructive is treated one step more carefully than its rating: a "safe" one asks, one
 *   that already asks is marked dangerous. A tool cannot talk its way down: only `destructiveHint: true` counts, and
 *   `false` changes nothing.
 * - Each floor its source adds raises it to at least that risk.
 * Never lowered: an unknown rating is taken as dangerous.
 */
export function effectiveRisk(
  rating: unknown,
  annotations: { destructiveHint?: unknown } | undefined,
  floors: readonly RiskFloor[] = [],
): { risk: Risk; why: string[] } {
  const why: string[] = [];
  let risk: Risk = RISKS.includes(rating as Risk) ? (rating as Risk) : 'dangerous';
  const raise = (to: Risk, reason: string) => {
    if (RISKS.indexOf(to) <= RISKS.indexOf(risk)) return;
    risk = to;
    why.push(reason);
  };
  if (annotations?.destructiveHint === true) raise(RISKS[Math.min(RISKS.indexOf(risk) + 1, RISKS.length - 1)]!, 'it is marked destructive');
  for (const floor of floors) raise(floor.risk, floor.why);
  return { risk, why };
}

import { refuse } from '../errors.js';
import { RULE_SCOPES, type RuleScope } from '../store/index.js';
import type { OwnerDecision } from './broker.js';

/** Every decision any approval takes; which ones fit a given approval depends on its kind (the broker checks). */
const DECISIONS = ['allow_once', 'allow_always', 'deny', 'accept', 'decline'] as const;

/**
 * Reads the owner's answer to an approval, from `POST /approvals/{id}` or a desktop popup: one parser, so both doors
 * accept exactly the same answers. Throws a 400 GatewayError listing every problem.
 */
export function parseOwnerDecision(body: unknown): OwnerDecision {
  const b = (body ?? {}) as Record<string, unknown>;
  const problems: string[] = [];
  if (!body || typeof body !== 'object' || Array.isArray(body)) problems.push('send a JSON object');
  for (const key of Object.keys(b)) if (!['decision', 'scope', 'pattern', 'message', 'content'].includes(key)) problems.push(`unknown field "${key}"`);
  if (!DECISIONS.includes(b.decision as OwnerDecision['decision'])) {
    problems.push(`decision must be one of allow_once, allow_always, deny (a call; sampling: allow_once, deny) or accept, decline (an elicitation)`);
  }
  if (b.scope !== undefined && (b.decision !== 'allow_always' || !RULE_SCOPES.includes(b.scope as RuleScope))) {
    problems.push(`scope goes with allow_always and is one of ${RULE_SCOPES.join(', ')}`);
  }
  if (b.pattern !== undefined && typeof b.pattern !== 'string') problems.push('pattern must be a string');
  if (b.message !== undefined && (typeof b.message !== 'string' || b.message.length > 2000)) problems.push('message must be a string of at most 2000 characters');
  if (b.content !== undefined && (b.decision !== 'accept' || !b.content || typeof b.content !== 'object' || Array.isArray(b.content))) {
    problems.push('content goes with accept and is an object of the answers, by the requested schema\'s property names');
  }
  if (problems.length > 0) {
    throw refuse.badRequest(`Invalid decision: ${problems.join('; ')}.`, { errors: problems.map((message) => ({ message })) });
  }
  return b as unknown as OwnerDecision;
}

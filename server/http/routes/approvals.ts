import { Router } from 'express';
import type { ApprovalBroker, OwnerDecision } from '../../approvals/broker.js';
import { refuse } from '../../errors.js';
import { RULE_SCOPES, type RuleScope } from '../../store/index.js';
import { identityOf, requireOwner } from '../identity.js';

const DECISIONS = ['allow_once', 'allow_always', 'deny'] as const;

/** Pending approvals; deciding is the owner's alone — a client must never approve its own call. */
export function approvalRoutes(broker: ApprovalBroker): Router {
  const router = Router();

  router.get('/approvals', (_req, res) => {
    const who = identityOf(res);
    const approvals = broker.pending(who.kind === 'owner' ? undefined : who.name);
    res.json({ approvals, count: approvals.length });
  });

  router.get('/approvals/:id', (req, res) => {
    const approval = broker.get(req.params.id);
    const who = identityOf(res);
    if (!approval || (who.kind !== 'owner' && approval.client !== who.name)) throw refuse.notFound(`A pending approval "${req.params.id}"`);
    res.json(approval);
  });

  router.post('/approvals/:id', requireOwner, (req, res) => {
    res.json(broker.decide(String(req.params.id), parseDecision(req.body), identityOf(res).name));
  });

  return router;
}

function parseDecision(body: unknown): OwnerDecision {
  const b = (body ?? {}) as Record<string, unknown>;
  const problems: string[] = [];
  if (!body || typeof body !== 'object' || Array.isArray(body)) problems.push('send a JSON object');
  for (const key of Object.keys(b)) if (!['decision', 'scope', 'pattern', 'message'].includes(key)) problems.push(`unknown field "${key}"`);
  if (!DECISIONS.includes(b.decision as OwnerDecision['decision'])) problems.push(`decision must be one of ${DECISIONS.join(', ')}`);
  if (b.scope !== undefined && (b.decision !== 'allow_always' || !RULE_SCOPES.includes(b.scope as RuleScope))) {
    problems.push(`scope goes with allow_always and is one of ${RULE_SCOPES.join(', ')}`);
  }
  if (b.pattern !== undefined && typeof b.pattern !== 'string') problems.push('pattern must be a string');
  if (b.message !== undefined && (typeof b.message !== 'string' || b.message.length > 2000)) problems.push('message must be a string of at most 2000 characters');
  if (problems.length > 0) {
    throw refuse.badRequest(`Invalid decision: ${problems.join('; ')}.`, { errors: problems.map((message) => ({ message })) });
  }
  return b as unknown as OwnerDecision;
}

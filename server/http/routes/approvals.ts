import { Router } from 'express';
import type { ApprovalBroker } from '../../approvals/broker.js';
import { parseOwnerDecision } from '../../approvals/owner-decision.js';
import type { Approval, ApprovalList, ApprovalRecord } from '../../contract/approvals.js';
import { refuse } from '../../errors.js';
import { identityOf, requireOwner } from '../identity.js';

/** Pending approvals; deciding is the owner's alone — a client must never approve its own call. */
export function approvalRoutes(broker: ApprovalBroker): Router {
  const router = Router();

  router.get('/approvals', (_req, res) => {
    const who = identityOf(res);
    const approvals = broker.pending(who.kind === 'owner' ? undefined : who.name);
    res.json({ approvals, count: approvals.length } satisfies ApprovalList);
  });

  router.get('/approvals/:id', (req, res) => {
    const approval = broker.get(req.params.id);
    const who = identityOf(res);
    if (!approval || (who.kind !== 'owner' && approval.client !== who.name)) throw refuse.notFound(`A pending approval "${req.params.id}"`);
    res.json(approval satisfies Approval);
  });

  router.post('/approvals/:id', requireOwner, (req, res) => {
    res.json(broker.decide(String(req.params.id), parseOwnerDecision(req.body), identityOf(res).name) satisfies ApprovalRecord);
  });

  return router;
}

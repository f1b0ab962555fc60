import { Router } from 'express';
import type { ApprovalBroker } from '../../approvals/broker.js';
import { approvalForClient, type ClientApproval } from '../../approvals/client-view.js';
import { parseOwnerDecision } from '../../approvals/owner-decision.js';
import type { Approval, ApprovalList, ApprovalRecord } from '../../contract/approvals.js';
import { refuse } from '../../errors.js';
import { identityOf, requireOwner } from '../identity.js';

/**
 * Pending approvals; deciding is the owner's alone — a client must never approve its own call. A client reads only
 * its own, without the names and calls of other clients that wrote files its command runs (client-view.ts).
 */
export function approvalRoutes(broker: ApprovalBroker): Router {
  const router = Router();

  router.get('/approvals', (_req, res) => {
    const who = identityOf(res);
    if (who.kind === 'owner') {
      const approvals = broker.pending();
      res.json({ approvals, count: approvals.length } satisfies ApprovalList);
      return;
    }
    const approvals = broker.pending(who.name).map((approval) => approvalForClient(approval, who.name));
    res.json({ approvals, count: approvals.length } satisfies { approvals: ClientApproval[]; count: number });
  });

  router.get('/approvals/:id', (req, res) => {
    const approval = broker.get(req.params.id);
    const who = identityOf(res);
    if (!approval || (who.kind !== 'owner' && approval.client !== who.name)) throw refuse.notFound(`A pending approval "${req.params.id}"`);
    res.json(who.kind === 'owner' ? (approval satisfies Approval) : (approvalForClient(approval, who.name) satisfies ClientApproval));
  });

  router.post('/approvals/:id', requireOwner, (req, res) => {
    res.json(broker.decide(String(req.params.id), parseOwnerDecision(req.body), identityOf(res).name) satisfies ApprovalRecord);
  });

  return router;
}

import { Router } from 'express';
import type { PolicyVerdict } from '../../contract/rules.js';
import type { Executor } from '../../executor/executor.js';
import { identityOf } from '../identity.js';
import { namedCall } from './execute.js';

/** Dry run: what the policy would decide for a call, and which rule decides. Nothing runs, nothing is recorded. */
export function policyRoutes(executor: Executor): Router {
  const router = Router();
  router.post('/policy/check', async (req, res) => {
    const body = namedCall(req.body);
    const who = identityOf(res);
    const decision = await executor.dryRun({ tool: body.name, arguments: body.arguments, client: who.name, owner: who.kind === 'owner' });
    // The contract's three fields: the subject is the gateway's own working state.
    res.json({ decision: decision.decision, rule: decision.rule, reason: decision.reason } satisfies PolicyVerdict);
  });
  return router;
}

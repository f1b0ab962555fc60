import { Router } from 'express';
import { refuse } from '../../errors.js';
import type { Rule, RuleList } from '../../contract/rules.js';
import { parseNewRule, ruleForClient, shownRule, type RuleBook } from '../../policy/rules.js';
import type { Redactor } from '../../util/redact.js';
import { identityOf, requireOwner } from '../identity.js';

/**
 * The grants ledger: anyone may read it, a client without the rules' patterns and notes (ruleForClient); only the
 * owner writes it. Changes apply to the next call.
 */
export function ruleRoutes(rules: RuleBook, redactor: Redactor): Router {
  const router = Router();

  router.get('/rules', (_req, res) => {
    const owner = identityOf(res).kind === 'owner';
    const list = rules.list().map((rule) => (owner ? shownRule(rule, redactor) : ruleForClient(rule)));
    res.json({ rules: list, count: list.length } satisfies RuleList);
  });

  router.post('/rules', requireOwner, (req, res) => {
    res.status(201).json(shownRule(rules.add(parseNewRule(req.body), identityOf(res).name), redactor) satisfies Rule);
  });

  router.delete('/rules/:id', requireOwner, (req, res) => {
    if (!rules.remove(req.params.id as string)) throw refuse.notFound(`Rule "${req.params.id}"`);
    res.json({ deleted: req.params.id });
  });

  return router;
}

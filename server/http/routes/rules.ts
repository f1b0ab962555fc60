import { Router } from 'express';
import { refuse } from '../../errors.js';
import type { Rule, RuleList } from '../../contract/rules.js';
import { parseNewRule, shownRule, type RuleBook } from '../../policy/rules.js';
import type { Redactor } from '../../util/redact.js';
import { identityOf, requireOwner } from '../identity.js';

/** The grants ledger: anyone may read it; only the owner writes it. Changes apply to the next call. */
export function ruleRoutes(rules: RuleBook, redactor: Redactor): Router {
  const router = Router();

  router.get('/rules', (_req, res) => {
    res.json({ rules: rules.list().map((rule) => shownRule(rule, redactor)), count: rules.list().length } satisfies RuleList);
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

import { Router } from 'express';
import { reasonForClient } from '../../approvals/client-view.js';
import type { PolicyVerdict, RuleEffect } from '../../contract/rules.js';
import type { PolicyDecision } from '../../decision.js';
import { refuse } from '../../errors.js';
import type { Executor } from '../../executor/executor.js';
import { withoutRuleNames } from '../../policy/rules.js';
import { callKey } from '../../util/call-key.js';
import type { Redactor } from '../../util/redact.js';
import { identityOf } from '../identity.js';
import { namedCall } from './execute.js';

/** What a client is told when one of the owner's rules decided its dry run: that rule's id and what it does. */
const OWNER_RULE: Record<RuleEffect, string> = {
  allow: 'allows this call',
  ask: 'asks the owner before this call',
  deny: 'refuses this call',
};

/**
 * Dry run: what the policy would decide for a call, and which rule decides. Nothing runs, nothing is recorded. The
 * owner gets the whole verdict; a client gets it without what the owner's rules say (verdictForClient).
 */
export function policyRoutes(executor: Executor): Router {
  const router = Router();
  router.post('/policy/check', async (req, res) => {
    const body = namedCall(req.body);
    const who = identityOf(res);
    const decision = await executor.dryRun({ tool: body.name, arguments: body.arguments, client: who.name, owner: who.kind === 'owner' });
    if (who.kind === 'owner') {
      // The contract's three fields: the subject is the gateway's own working state.
      res.json({ decision: decision.decision, rule: decision.rule, reason: decision.reason } satisfies PolicyVerdict);
      return;
    }
    // Security: an "always allow" of another client's call is a rule holding that call's arguments, secrets
    // included, and it matches only their real value; a dry run free of consequences would let a client try guess
    // after guess of a secret it reads as [REDACTED] until the answer changes. Whether any rule matches, the answer
    // to arguments holding a secret is the same refusal, so it tells nothing.
    if (holdsSecret(executor.redactor, body.name, body.arguments)) {
      throw refuse.forbidden(
        "A client's dry run cannot check arguments that hold a secret (a password, a token, a key): whether one of the " +
          "owner's rules matches them would tell whether a guessed secret is right. Call the tool itself (the owner is " +
          'asked if need be), or ask the owner to check it.',
      );
    }
    res.json(verdictForClient(decision, who.name) satisfies PolicyVerdict);
  });
  return router;
}

/**
 * Whether the redactor would hide anything in these arguments: what a rule made from them shows as [REDACTED]. Both
 * views of it: the rule's own text (an exact rule's pattern is the call's canonical JSON, redacted as one string),
 * and the arguments value by value (secret-named keys, a prefix rule's command words).
 */
function holdsSecret(redactor: Redactor, tool: string, args: unknown): boolean {
  const key = callKey(tool, args);
  return redactor.text(key) !== key || JSON.stringify(redactor.redact(args)) !== JSON.stringify(args);
}

/**
 * The verdict as a client reads it. Security: what an owner's rule says (its command prefix, folder, host, note) is
 * the owner's, as on GET /rules: the reason names only the rule's id; and other clients that wrote files the command
 * runs are not named (as on the client's approval card).
 */
function verdictForClient(decision: PolicyDecision, client: string): PolicyVerdict {
  if (decision.rule.startsWith('rule:')) {
    return { decision: decision.decision, rule: decision.rule, reason: `The owner's rule ${decision.rule.slice('rule:'.length)} ${OWNER_RULE[decision.decision]}.` };
  }
  const reason = withoutRuleNames(reasonForClient(decision.reason, client));
  return { decision: decision.decision, rule: decision.rule, reason };
}

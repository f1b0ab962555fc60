import type { Approval, ApprovalRecord } from '../lib/types';
import { RULE_CLIENTS } from '../views/rules/describe';

// The line the Approvals view shows when a card goes away, so the owner knows what became of the call.

/** An answer given in this window. */
export function describeMine(ended: ApprovalRecord): string {
  if (ended.decision === 'deny') return `Denied ${ended.tool} for ${ended.client}.`;
  // The rule is not the asking client's alone: it says whose calls it decides as the Rules table does.
  if (ended.decision === 'allow_always') return `Always allowed: ${ended.tool} ${RULE_CLIENTS} (${ended.client} asked) — the new rule is on the Rules page.`;
  return `Allowed ${ended.tool} once for ${ended.client}.`;
}

/** An end this window did not cause: another window, the CLI or the desktop popup answered, it expired, or its caller left. */
export function describeElsewhere(ended: Approval): string {
  const what = `${ended.tool} from ${ended.client}`;
  switch (ended.status) {
    case 'allowed':
      return `${what} was allowed elsewhere.`;
    case 'denied':
      return `${what} was denied elsewhere.`;
    case 'expired':
      return `${what} expired unanswered, so the call was refused.`;
    default:
      return `${what} was withdrawn: its caller stopped waiting.`;
  }
}

import type { Approval, ApprovalAnswer } from '../lib/types';
import { RULE_CLIENTS } from '../views/rules/describe';

// What the popup says once there is nothing left to decide. Pure, so the wording is tested without a page.

export interface Told {
  title: string;
  text: string;
  tone: 'allow' | 'deny' | 'neutral';
}

/** After the owner's answer was taken. */
export function describeDecided(approval: Approval, answer: ApprovalAnswer, status: 'allowed' | 'denied' | 'accepted' | 'declined'): Told {
  if (status === 'accepted') return { title: 'Answer sent', text: `The MCP server "${approval.server}" has your answer; ${approval.client}'s call goes on.`, tone: 'allow' };
  if (status === 'declined') return { title: 'Declined', text: `The MCP server "${approval.server}" is told you declined to answer.`, tone: 'deny' };
  const what = approval.kind === 'sampling' ? `The MCP server "${approval.server}"'s request to use the model` : `${approval.tool} from ${approval.client}`;
  if (status === 'denied') {
    const message = answer.decision === 'deny' && answer.message ? ' It reads your message with the refusal.' : '';
    return { title: 'Denied', text: `${what} was refused; the assistant is told so.${message}`, tone: 'deny' };
  }
  if (answer.decision === 'allow_always') {
    return {
      title: 'Always allowed',
      text: `${what} runs now, and calls like it ${RULE_CLIENTS} will not ask again: the new rule is on the dashboard's Rules page.`,
      tone: 'allow',
    };
  }
  return { title: 'Allowed once', text: `${what} runs now. The next call like it asks again.`, tone: 'allow' };
}

/**
 * The approval is not waiting any more. `last` is the approval as this page showed it (null when it never could);
 * `refusal` what the gateway said to an answer, when that is how the page found out.
 */
export function describeGone(last: Approval | null, now: number, refusal: string | null = null): Told {
  if (last === null) {
    return {
      title: 'Nothing to answer',
      text: 'This approval is not waiting: it was answered, it expired, or its caller stopped waiting (or the address is wrong).',
      tone: 'neutral',
    };
  }
  const what = `${last.tool} from ${last.client}`;
  if (now >= Date.parse(last.expires_at)) {
    return { title: 'Expired', text: `${what} was not answered in time, so the call was refused.`, tone: 'deny' };
  }
  return {
    title: 'No longer waiting',
    text: refusal ?? `${what} was answered elsewhere (the dashboard, the command line, another window) or its caller stopped waiting.`,
    tone: 'neutral',
  };
}

import { GatewayError, refuse } from '../errors.js';
import type { ApprovalBroker } from '../approvals/broker.js';
import type { PolicyDecision } from '../decision.js';
import type { CallRecord, CallStatus } from '../store/index.js';
import type { RegisteredTool } from '../tools/registry.js';
import type { Redactor } from '../util/redact.js';
import type { CallRequest } from './call.js';
import type { CallLog } from './call-log.js';
import { sandboxNote } from './sandbox-grant.js';

/** A call refused before it ran: the error its caller is answered with, and the status it is recorded with. */
export interface Refusal {
  error: GatewayError;
  status: CallStatus;
}

export interface AskOwnerStep {
  /** Puts "ask" calls to the owner; without one, such calls are refused with APPROVAL_REQUIRED. */
  broker: ApprovalBroker | undefined;
  redactor: Redactor;
  /** Whether sandboxed tools really run in an OS sandbox here (for what the card says). */
  sandboxAvailable: boolean;
  log: CallLog;
}

/**
 * Puts the call to the owner and waits. Resolves undefined when the owner allowed it (the call then runs), or the
 * refusal to record and answer with.
 */
export async function askOwner(
  step: AskOwnerStep,
  tool: RegisteredTool,
  args: Record<string, unknown>,
  record: CallRecord,
  request: CallRequest,
  decision: PolicyDecision,
): Promise<Refusal | undefined> {
  const { broker, redactor } = step;
  if (!broker) {
    return { error: new GatewayError('APPROVAL_REQUIRED', `${record.reason} No one can approve it here, so the call was not run.`, { rule: record.rule }), status: 'denied' };
  }
  let opened: ReturnType<ApprovalBroker['open']>;
  try {
    opened = broker.open({
      callId: record.id,
      tool: tool.definition.name,
      client: record.client,
      arguments: redactor.record(record).arguments,
      rawArguments: args,
      risk: tool.definition.risk,
      source: tool.source,
      decision: { decision: 'ask', rule: record.rule!, reason: redactor.text(record.reason!) },
      subject: decision.subject ?? {},
      ...(tool.definition.sandboxed ? { sandbox: redactor.text(sandboxNote(decision.subject, step.sandboxAvailable)) } : {}),
    });
  } catch (error) {
    if (error instanceof GatewayError) return { error, status: 'denied' };
    throw error;
  }
  const approvalId = opened.approval.id;
  record.status = 'pending';
  step.log.saveRunning(record);
  step.log.announce('pending', record);
  // A caller that hangs up while waiting no longer wants the answer: the question is withdrawn.
  const onCallerGone = () => broker.withdraw(approvalId);
  request.signal?.addEventListener('abort', onCallerGone, { once: true });
  try {
    request.onPending?.({ approval_id: approvalId, call_id: record.id });
  } catch (error) {
    console.error(`pincer: a pending-call listener failed: ${(error as Error).message}`);
  }
  const resolution = await opened.settled;
  request.signal?.removeEventListener('abort', onCallerGone);
  record.status = 'running';
  switch (resolution.outcome) {
    case 'allowed':
      Object.assign(record, { rule: resolution.rule, reason: `Approved by the owner. (${record.reason})` });
      return undefined;
    case 'denied':
      Object.assign(record, { rule: resolution.rule });
      return {
        error: new GatewayError(
          'APPROVAL_DENIED',
          `The owner denied this call${resolution.message ? `: ${sentence(resolution.message)}` : '.'} Do not retry it unchanged.`,
          { approval_id: approvalId, rule: resolution.rule },
        ),
        status: 'denied',
      };
    case 'expired':
      return {
        error: new GatewayError('APPROVAL_TIMEOUT', 'The owner did not answer in time, so the call was not run. Ask them before trying again.', {
          approval_id: approvalId,
        }),
        status: 'denied',
      };
    case 'cancelled':
      return {
        error: refuse.callCancelled(resolution.why ?? 'The call was withdrawn before the owner answered (the caller left or the gateway stopped).'),
        status: 'cancelled',
      };
  }
}

/** The owner's words as a sentence of the refusal: a full stop added when they end without one. */
function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?…]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

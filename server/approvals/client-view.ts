import type { Approval, Provenance } from '../contract/approvals.js';
import { GatewayError } from '../errors.js';

/** What a client reads in place of another client's name. */
export const ANOTHER_CLIENT = 'another client';

/** A file another client wrote, as a client's card shows it: that someone else wrote it, not who, nor in which call. */
export type OtherClientWrite = Omit<Provenance, 'client' | 'call_id'> & { client: typeof ANOTHER_CLIENT };

/** An approval as a client reads it (GET /approvals[/{id}], its `approval` events). */
export type ClientApproval = Omit<Approval, 'provenance'> & { provenance: (Provenance | OtherClientWrite)[] };

/**
 * The approval as the client `viewer` may read it. Security: a card's provenance and reason name the client that
 * wrote a file the command runs, its tool and its call; for another client's write that tells the viewer who else
 * uses this gateway and what they did. It keeps the fact (a file it runs was written by someone else) without the
 * name and the call. The owner reads the card whole.
 */
export function approvalForClient(approval: Approval, viewer: string): ClientApproval {
  if (!approval.provenance.some((p) => p.client !== viewer)) return approval;
  return { ...approval, reason: reasonForClient(approval.reason, viewer), provenance: provenanceForClient(approval.provenance, viewer) };
}

/** Who wrote which file, as the client `viewer` may read it: another client's writes without its name and call. */
function provenanceForClient(provenance: readonly Provenance[], viewer: string): (Provenance | OtherClientWrite)[] {
  return provenance.map((p) => {
    if (p.client === viewer) return p;
    const { client: _client, call_id: _callId, ...rest } = p;
    return { ...rest, client: ANOTHER_CLIENT };
  });
}

/**
 * A refusal that names who wrote the files a command runs (FILES_CHANGED) as the calling client `viewer` may read
 * it, in its message and its details, as on its approval card.
 */
export function refusalForClient(refusal: GatewayError, viewer: string): GatewayError {
  const provenance = refusal.details.provenance as Provenance[] | undefined;
  const details = provenance ? { ...refusal.details, provenance: provenanceForClient(provenance, viewer) } : refusal.details;
  return new GatewayError(refusal.errorName, reasonForClient(refusal.message, viewer), details);
}

/**
 * How the policy names a client that wrote a file a command runs (policy/provenance.ts): `by client "cursor" 3 min
 * ago (file_write, call c_…)`; the name, what follows up to the tool, the tool.
 */
const WRITTEN_BY = /client "([^"]*)"([^"()]*\([^,()]*), call [^()\s]*\)/g;
/** Any other mention of a client by name (policy/rules.ts: `client "cursor" wrote … after you made the rule`). */
const NAMED_CLIENT = /client "([^"]*)"/g;

/**
 * A reason (an approval's, a call's, a dry run's) as the client `viewer` reads it: other clients that wrote files
 * the command runs are "another client", and their calls are not named; the viewer's own stay.
 */
export function reasonForClient(reason: string, viewer: string): string {
  if (!reason.includes('client "')) return reason;
  return reason
    .replace(WRITTEN_BY, (whole, client: string, between: string) => (client === viewer ? whole : `${ANOTHER_CLIENT}${between})`))
    .replace(NAMED_CLIENT, (whole, client: string) => (client === viewer ? whole : ANOTHER_CLIENT));
}

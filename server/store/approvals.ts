import type { Db } from './db.js';

export type ApprovalStatus = 'pending' | 'allowed' | 'denied' | 'expired' | 'cancelled';
export type ApprovalDecision = 'allow_once' | 'allow_always' | 'deny';

/** A call waiting for (or past) the owner's decision. Arguments arrive redacted. */
export interface ApprovalRecord {
  id: string;
  call_id: string;
  tool: string;
  client: string;
  arguments: unknown;
  risk: string;
  rule: string;
  reason: string;
  status: ApprovalStatus;
  decision: ApprovalDecision | null;
  message: string | null;
  granted_rule: string | null;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
}

/** The approvals ledger: every request and how it ended. The waiting itself lives in the broker. */
export class ApprovalStore {
  constructor(private readonly db: Db) {}

  save(a: ApprovalRecord): void {
    this.db
      .prepare(
        `INSERT INTO approvals (id, call_id, tool, client, arguments, risk, rule, reason, status, decision, message,
                                granted_rule, created_at, expires_at, decided_at, decided_by)
         VALUES (@id, @call_id, @tool, @client, @arguments, @risk, @rule, @reason, @status, @decision, @message,
                 @granted_rule, @created_at, @expires_at, @decided_at, @decided_by)
         ON CONFLICT (id) DO UPDATE SET status = excluded.status, decision = excluded.decision,
           message = excluded.message, granted_rule = excluded.granted_rule, decided_at = excluded.decided_at,
           decided_by = excluded.decided_by`,
      )
      .run({
        ...a,
        arguments: JSON.stringify(a.arguments ?? null),
        created_at: Date.parse(a.created_at),
        expires_at: Date.parse(a.expires_at),
        decided_at: a.decided_at === null ? null : Date.parse(a.decided_at),
      });
  }

  /** Approvals a previous run left pending can never be answered now: their calls are gone. */
  cancelOpen(now = Date.now()): number {
    return this.db
      .prepare(`UPDATE approvals SET status = 'cancelled', decided_at = ? WHERE status = 'pending'`)
      .run(now).changes;
  }
}

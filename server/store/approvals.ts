import type { ApprovalDecision, ApprovalKind, ApprovalRecord, ApprovalStatus } from '../contract/approvals.js';
import type { Db } from './db.js';

// An approval's record is the wire contract's: GET /approvals, the `approval` event and the popup read it.
export type { ApprovalDecision, ApprovalKind, ApprovalRecord, ApprovalStatus } from '../contract/approvals.js';
export const APPROVAL_KINDS: readonly ApprovalKind[] = ['call', 'elicitation', 'sampling'];

/** The approvals ledger: every request and how it ended. The waiting itself lives in the broker. */
export class ApprovalStore {
  constructor(private readonly db: Db) {}

  save(a: ApprovalRecord): void {
    const request = a.kind === 'elicitation' ? { requested_schema: a.requested_schema } : a.kind === 'sampling' ? { prompt: a.prompt } : null;
    this.db
      .prepare(
        `INSERT INTO approvals (id, kind, call_id, tool, client, arguments, risk, rule, reason, status, decision, message,
                                granted_rule, created_at, expires_at, decided_at, decided_by, server, request, response)
         VALUES (@id, @kind, @call_id, @tool, @client, @arguments, @risk, @rule, @reason, @status, @decision, @message,
                 @granted_rule, @created_at, @expires_at, @decided_at, @decided_by, @server, @request, @response)
         ON CONFLICT (id) DO UPDATE SET status = excluded.status, decision = excluded.decision,
           message = excluded.message, granted_rule = excluded.granted_rule, decided_at = excluded.decided_at,
           decided_by = excluded.decided_by, response = excluded.response`,
      )
      .run({
        id: a.id,
        kind: a.kind,
        call_id: a.call_id,
        tool: a.tool,
        client: a.client,
        risk: a.risk,
        rule: a.rule,
        reason: a.reason,
        status: a.status,
        decision: a.decision,
        message: a.message,
        granted_rule: a.granted_rule,
        decided_by: a.decided_by,
        arguments: JSON.stringify(a.arguments ?? null),
        created_at: Date.parse(a.created_at),
        expires_at: Date.parse(a.expires_at),
        decided_at: a.decided_at === null ? null : Date.parse(a.decided_at),
        server: a.server ?? null,
        request: request === null ? null : JSON.stringify(request),
        response: a.response === undefined ? null : JSON.stringify(a.response),
      });
  }

  /** How an approval ended, as recorded (the owner's history of what they answered). */
  get(id: string): ApprovalRecord | undefined {
    const row = this.db.prepare(`SELECT * FROM approvals WHERE id = ?`).get(id) as Record<string, unknown> | undefined;
    if (!row) return undefined;
    const request = row.request === null ? {} : (JSON.parse(String(row.request)) as Record<string, unknown>);
    const at = (v: unknown) => (v === null ? null : new Date(Number(v)).toISOString());
    return {
      id: String(row.id),
      kind: row.kind as ApprovalKind,
      call_id: String(row.call_id),
      tool: String(row.tool),
      client: String(row.client),
      arguments: JSON.parse(String(row.arguments ?? 'null')),
      risk: String(row.risk),
      rule: String(row.rule),
      reason: String(row.reason),
      status: row.status as ApprovalStatus,
      decision: (row.decision ?? null) as ApprovalDecision | null,
      message: (row.message ?? null) as string | null,
      granted_rule: (row.granted_rule ?? null) as string | null,
      created_at: at(row.created_at)!,
      expires_at: at(row.expires_at)!,
      decided_at: at(row.decided_at),
      decided_by: (row.decided_by ?? null) as string | null,
      server: (row.server ?? null) as string | null,
      ...request,
      ...(row.response !== null && { response: JSON.parse(String(row.response)) }),
    };
  }

  /** Approvals a previous run left pending can never be answered now: their calls are gone. */
  cancelOpen(now = Date.now()): number {
    return this.db
      .prepare(`UPDATE approvals SET status = 'cancelled', decided_at = ? WHERE status = 'pending'`)
      .run(now).changes;
  }
}

import type { Approval } from '../../../renderer/src/lib/types.js';

/** A pending run_shell approval as the gateway's GET /approvals/{id} answers it; override what a test is about. */
export function pendingApproval(fields: Partial<Approval> = {}): Approval {
  return {
    id: 'a_1',
    kind: 'call',
    call_id: 'c_1',
    tool: 'run_shell',
    client: 'cursor',
    arguments: { command: 'rm -rf ./build' },
    risk: 'dangerous',
    rule: 'shell:write',
    reason: 'The command deletes files.',
    status: 'pending',
    decision: null,
    message: null,
    granted_rule: null,
    created_at: '2026-03-05T14:03:27.000Z',
    expires_at: '2026-03-05T14:05:27.000Z',
    decided_at: null,
    decided_by: null,
    scopes: [{ scope: 'exact', pattern: null, label: 'this exact call' }],
    sandbox: null,
    source: 'builtin',
    provenance: [],
    ...fields,
  };
}

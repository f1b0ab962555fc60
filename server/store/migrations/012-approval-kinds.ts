import type { Migration } from './migration.js';

/**
 * Approvals are not only calls waiting to run: an imported MCP server's question to the owner (an elicitation) and
 * its request to use the configured model (sampling) wait in the same ledger. Existing rows are calls.
 * `request` holds what was asked (the requested schema, the prompt); `response` the owner's answer, redacted.
 */
export const approvalKinds: Migration = {
  version: 12,
  name: 'approval-kinds',
  sql: `
    ALTER TABLE approvals ADD COLUMN kind TEXT NOT NULL DEFAULT 'call';
    ALTER TABLE approvals ADD COLUMN server TEXT;
    ALTER TABLE approvals ADD COLUMN request TEXT;
    ALTER TABLE approvals ADD COLUMN response TEXT;
  `,
};

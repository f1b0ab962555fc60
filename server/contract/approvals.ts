import type { RuleScope } from './rules.js';

/**
 * Questions to the owner on the wire: `GET /approvals[/{id}]`, `POST /approvals/{id}`, the `approval` event, and the
 * desktop popup (the IPC contract takes these types).
 */

export type ApprovalStatus = 'pending' | 'allowed' | 'denied' | 'accepted' | 'declined' | 'expired' | 'cancelled';
/** allow_once / allow_always / deny answer calls (and sampling: allow_once / deny); accept / decline answer elicitations. */
export type ApprovalDecision = 'allow_once' | 'allow_always' | 'deny' | 'accept' | 'decline';
/** What waits: a call to run, an imported MCP server's question to the owner, or its request to use the model. */
export type ApprovalKind = 'call' | 'elicitation' | 'sampling';

/**
 * A call waiting for (or past) the owner's decision, as stored. Arguments arrive redacted. For an elicitation,
 * `message` is the server's question (for a call, the owner's reason for a denial).
 */
export interface ApprovalRecord {
  id: string;
  kind: ApprovalKind;
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
  /** The imported MCP server that asks (elicitation, sampling); null for calls. */
  server?: string | null;
  /** Elicitation: the flat JSON Schema the answer must match. */
  requested_schema?: Record<string, unknown>;
  /** Sampling: what the server wants the model to answer (redacted). */
  prompt?: unknown;
  /** The owner's accepted answer (elicitation content, the model's reply to a sampling request), redacted. */
  response?: unknown;
}

/** A file a command runs that a client wrote through Pincer not long before. */
export interface Provenance {
  /** The file the command runs or reads (absolute). */
  path: string;
  /** The command that runs or reads it (`make`, `npm test`). */
  by: string;
  /** The client whose call wrote it, the tool and the call. */
  client: string;
  tool: string;
  call_id: string;
  /** When that call wrote it (ISO 8601). */
  at: string;
  /** The folder that call wrote into, when it could not tell which files (a copy of a glob into it). */
  folder?: string;
}

/** One way an "always allow" can be scoped for this call, with the pattern it would use. */
export interface ApprovalScopeChoice {
  scope: RuleScope;
  pattern: string | null;
  label: string;
}

/**
 * An MCP elicitation's form, as `requested_schema` carries it: flat, one property per field (string, number, integer,
 * boolean, enum); the gateway checked it as one before asking.
 */
export interface ElicitationSchema {
  type: 'object';
  properties: Record<string, ElicitationField>;
  required?: string[];
}

export interface ElicitationField {
  type: 'string' | 'number' | 'integer' | 'boolean' | 'array';
  title?: string;
  description?: string;
  default?: unknown;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
  enumNames?: string[];
  oneOf?: { const: unknown; title?: string }[];
  items?: { type?: string; enum?: unknown[]; anyOf?: { const: unknown; title?: string }[] };
  minItems?: number;
  maxItems?: number;
}

/** An approval as the owner's UI needs it (`GET /approvals/{id}`, the event, the popup): everything to render. */
export interface Approval extends ApprovalRecord {
  /** Scopes an "always allow" can take for this call, with the pattern each would use. */
  scopes: ApprovalScopeChoice[];
  /** For sandboxed tools: how the call would run if allowed, for the owner to read before deciding. */
  sandbox: string | null;
  /** Where the tool comes from: `builtin`, `plugin:<name>`, `mcp:<server>`. */
  source: string;
  /** Files the call runs (a Makefile for `make`) that a client wrote recently, newest first. */
  provenance: Provenance[];
}

/** `GET /approvals`: what waits for the owner, oldest first. */
export interface ApprovalList {
  approvals: Approval[];
  count: number;
}

/** `POST /approvals/{id}`: the owner's answer. allow_always makes a rule with one of the approval's `scopes`. */
export type ApprovalAnswer =
  | { decision: 'allow_once' }
  | { decision: 'allow_always'; scope: RuleScope; pattern?: string }
  | { decision: 'deny'; message?: string }
  | { decision: 'accept'; content: Record<string, unknown> }
  | { decision: 'decline' };

/** An approval asked for, answered or expired (the `approval` event), with everything a popup shows. */
export interface ApprovalEvent {
  phase: 'requested' | 'resolved' | 'expired';
  approval: Approval;
}

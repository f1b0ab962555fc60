/**
 * The grants ledger on the wire: `GET /rules`, `POST /rules`, and the `rules` event. A client reads rules without
 * their `pattern` and `note` (both null).
 */

export type RuleEffect = 'allow' | 'ask' | 'deny';
export type RuleScope = 'exact' | 'tool' | 'prefix' | 'folder' | 'host';

/** A standing grant or denial in the ledger. */
export interface Rule {
  id: string;
  effect: RuleEffect;
  /** A tool name, or "*" for every tool. */
  tool: string;
  scope: RuleScope;
  /** exact: the arguments as canonical JSON; prefix: command words; folder: an absolute path; host: a host name. */
  pattern: string | null;
  note: string | null;
  created_by: string;
  created_at: string;
  expires_at: string | null;
  uses: number;
  last_used_at: string | null;
}

/** A rule as the owner writes it (`POST /rules`); the gateway checks and normalizes the pattern. */
export interface RuleDraft {
  effect: RuleEffect;
  tool: string;
  scope: RuleScope;
  /** exact: the arguments object; prefix: the command words; folder: a path; host: a host name. */
  pattern?: unknown;
  note?: string | null;
  expires_at?: string | null;
}

/** `POST /policy/check`: what the policy would decide for a call, and the rule that decides; nothing runs. */
export interface PolicyVerdict {
  decision: RuleEffect;
  /** Stable identifier of the rule that decided, e.g. "risk:safe", "path:outside-roots", "shell:read-only", "rule:<id>". */
  rule: string;
  /** Written for a person: why, and what they can do about it. */
  reason: string;
}

/** `GET /rules`. */
export interface RuleList {
  rules: Rule[];
  count: number;
}

/** A standing rule was added or removed (the `rules` event; use counts change with calls, not here). */
export interface RuleChange {
  change: 'added' | 'removed';
  rule: Rule;
}

/**
 * The decision vocabulary every layer speaks: what a policy, an analyzer or a rule says about a call (allow / ask /
 * deny, the rule that decided, why) and what the call touches. It imports only the wire contract's types, so the
 * security checks below the policy and the policy above them can both use it.
 */

import type { Provenance } from './contract/approvals.js';

export type Decision = 'allow' | 'ask' | 'deny';

/** A decision and what made it; recorded with every call and shown in the log. */
export interface PolicyDecision {
  decision: Decision;
  /** Stable identifier of the rule that decided, e.g. "risk:safe", "path:outside-roots", "shell:read-only". */
  rule: string;
  /** Written for a person: why, and what they can do about it. */
  reason: string;
  /** What the call touches, as the analyzer found it (resolved once, for rules and the approval's scopes). */
  subject?: Subject;
}

/** A path outside the roots that a command reads or writes. */
export interface OutsidePath {
  /** Real path (symlinks followed). */
  path: string;
  access: 'read' | 'write';
  /** The folder an "always allow this folder" grant names: the path itself when it is a folder, else its parent. */
  folder: string;
}

/** A file a command runs, or one that decides what it runs (the Makefile of `make`, package.json of `npm test`). */
export interface RunFile {
  /** Absolute path (symlinks followed); a folder when `tree` is set. */
  path: string;
  /** The command that runs or reads it (`make`, `npm test`, `./build.sh`). */
  by: string;
  /** A folder: every file under it counts (`.github/workflows` for `act`), or those whose names match `names`. */
  tree?: boolean;
  /** Name patterns (`conftest.py`, `*.go`) a file under a `tree` folder must match. */
  names?: string[];
}

/** A file a command runs that a client wrote through Pincer not long before: the owner reads it on the approval. */
export type { Provenance } from './contract/approvals.js';

/** What a call touches, for rules scoped to a folder, a host or a command prefix. */
export interface Subject {
  /** Resolved absolute path (file tools) or working folder (run_shell). */
  path?: string;
  host?: string;
  command?: string;
  /** run_shell: paths outside the roots the command names. */
  outside?: OutsidePath[];
  /** run_shell: what the command would be if it read nothing outside the roots (a folder grant covers only that). */
  otherwise?: Decision;
  /** The call talks to the network (so an approved one runs with the network open). */
  network?: boolean;
  /**
   * Whether what the call can reach is known from its text (`known`: its paths and network use are all above), or not
   * (`unknown`: a script, a substitution, a program this check does not know) — then an approved call runs without
   * the OS sandbox, and the approval says so.
   */
  reach?: 'known' | 'unknown';
  /** run_shell: the files the command runs or that decide what it runs, as far as its text says. */
  runs?: RunFile[];
  /** run_shell: the files the command writes, as far as its text says (real paths). */
  writes?: string[];
  /** Files it runs that a client wrote recently (for the approval card; such a call is never allowed unasked). */
  provenance?: Provenance[];
}

const SEVERITY: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };

/** deny > ask > allow; among equals the first one found speaks. */
export function strictest(decisions: readonly PolicyDecision[]): PolicyDecision {
  if (decisions.length === 0) throw new Error('strictest() needs at least one decision');
  return decisions.reduce((worst, d) => (SEVERITY[d.decision] > SEVERITY[worst.decision] ? d : worst));
}

export const allow = (rule: string, reason: string): PolicyDecision => ({ decision: 'allow', rule, reason });
export const ask = (rule: string, reason: string): PolicyDecision => ({ decision: 'ask', rule, reason });
export const deny = (rule: string, reason: string): PolicyDecision => ({ decision: 'deny', rule, reason });

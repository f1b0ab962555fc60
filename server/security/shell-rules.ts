import { allow, ask, deny, type PolicyDecision } from '../policy/policy.js';
import type { Catastrophe } from './shell-catastrophic.js';

/**
 * Every verdict of the shell analysis, worded once: each names its rule and tells a person what they can do.
 *
 * allow  shell:read-only
 * ask    shell:unparseable, shell:too-complex, shell:unknown-program, shell:modifies-files, shell:network,
 *        shell:privilege, shell:dynamic-program, shell:dynamic-argument, shell:substitution, shell:expansion,
 *        shell:eval, shell:nested-shell, shell:interpreter, shell:write-redirect, shell:wrapper,
 *        shell:dangerous-flag, shell:not-read-only, shell:env-assignment, shell:secret-read, shell:pincer-data
 * deny   shell:catastrophic:<wipe-root | wipe-home | wipe-workspace | permissions | mkfs | block-device-write |
 *        fork-bomb | shutdown | kill-all | exfiltration | reverse-shell>
 */

export type AskRule =
  | 'unparseable'
  | 'too-complex'
  | 'unknown-program'
  | 'modifies-files'
  | 'network'
  | 'privilege'
  | 'dynamic-program'
  | 'dynamic-argument'
  | 'substitution'
  | 'expansion'
  | 'eval'
  | 'nested-shell'
  | 'interpreter'
  | 'write-redirect'
  | 'wrapper'
  | 'dangerous-flag'
  | 'not-read-only'
  | 'env-assignment'
  | 'secret-read'
  | 'pincer-data';

const APPROVE = 'Approve it if you expected this command, or add a rule that allows it.';

const ADVICE: Partial<Record<AskRule, string>> = {
  unparseable: 'Approve it only if you can read it yourself, or ask for the command in plain bash.',
  'too-complex': 'Approve it only if you have read it yourself, or ask for a simpler command.',
  'secret-read': 'Approve it only if you mean to show this secret to the assistant.',
  'pincer-data':
    "Pincer's own folder holds its token and call history and is off limits to tools; approve only if you really mean it.",
  'dynamic-program': 'Approve it if you know what will run, or ask for the command with the program written out.',
  'dynamic-argument': 'Approve it if you know the value, or ask for the command with the value written out.',
};

export function askRule(rule: AskRule, why: string): PolicyDecision {
  return ask(`shell:${rule}`, `${sentence(why)} ${ADVICE[rule] ?? APPROVE}`);
}

export function denyRule(what: Catastrophe, why: string): PolicyDecision {
  return deny(
    `shell:catastrophic:${what}`,
    `${sentence(why)} Pincer never runs this, even with approval; if you really need it, run it yourself in a terminal.`,
  );
}

export function readOnly(programs: readonly string[]): PolicyDecision {
  if (programs.length === 0) return allow('shell:read-only', 'The command runs nothing that changes anything.');
  const list = [...new Set(programs)].slice(0, 8).join(', ');
  return allow('shell:read-only', `Only read-only commands (${list}): nothing is changed.`);
}

function sentence(text: string): string {
  const t = text.trim();
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

/** Which of several asks speaks for the command: the most specific concern first. */
export const ASK_PRIORITY: readonly string[] = ['shell:pincer-data', 'shell:secret-read', 'shell:unparseable'];

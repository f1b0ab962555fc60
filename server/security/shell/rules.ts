import { allow, ask, deny, type PolicyDecision } from '../../decision.js';
import type { Catastrophe } from './catastrophic.js';

/**
 * Every verdict of the shell analysis, worded once: each names its rule and tells a person what they can do.
 *
 * allow  shell:read-only
 * ask    shell:unparseable, shell:too-complex, shell:unknown-program, shell:modifies-files, shell:network,
 *        shell:privilege, shell:dynamic-program, shell:dynamic-argument, shell:substitution, shell:expansion,
 *        shell:eval, shell:nested-shell, shell:interpreter, shell:write-redirect, shell:wrapper,
 *        shell:dangerous-flag, shell:not-read-only, shell:env-assignment, shell:secret-read,
 *        shell:pincer-data-within (reads through a folder that holds Pincer's data), shell:outside-roots,
 *        shell:git-config, shell:hard-link (reads a file that has another name, maybe outside the roots)
 * deny   shell:pincer-data (names Pincer's data folder), shell:pincer-code (writes into Pincer's own code or
 *        bundled plugins, or works there in ways the check cannot see), shell:lookalike-path,
 *        shell:catastrophic:<wipe-root | wipe-home | wipe-workspace | permissions | mkfs | block-device-write |
 *        fork-bomb | shutdown | kill-all | exfiltration | reverse-shell | trust-file-write>
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
  | 'pincer-data-within'
  | 'outside-roots'
  | 'git-config'
  | 'hard-link';

const APPROVE = 'Approve it if you expected this command, or add a rule that allows it.';

const ADVICE: Partial<Record<AskRule, string>> = {
  unparseable: 'Approve it only if you can read it yourself, or ask for the command in plain bash.',
  'too-complex': 'Approve it only if you have read it yourself, or ask for a simpler command.',
  'secret-read': 'Approve it only if you mean to show this secret to the assistant.',
  'pincer-data-within':
    "Pincer's own folder holds its token and call history and is off limits to tools; approve only if you really mean it.",
  'outside-roots':
    'Approve it if the assistant should read there; "always allow" with the folder scope lets it read that folder from now on.',
  'hard-link': "Approve it only if you know where the file's other name is and mean to show its contents to the assistant.",
  'git-config':
    "A repository's own settings can make git run any program; approve only if you trust whoever wrote this repository.",
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

/** Security: the data folder holds the gateway's token, database and settings; no command may name it. */
export function denyPincerData(why: string): PolicyDecision {
  return deny(
    'shell:pincer-data',
    `${sentence(why)} Pincer's own folder holds its token, call history and settings, and no tool may touch it, even with ` +
      'approval; the owner changes settings from the dashboard or the CLI.',
  );
}

/**
 * Security: Pincer's code and bundled plugins run as Pincer (bundled plugins unasked, reloaded when they change), so
 * a write there is code execution with no approval.
 */
export function denyPincerCode(why: string): PolicyDecision {
  return deny(
    'shell:pincer-code',
    `${sentence(why)} Pincer's own code and bundled plugins run as Pincer itself, so no tool may change them, even ` +
      'with approval; work on files in the project folders instead (the owner updates Pincer by installing a new version).',
  );
}

/** Security: a look-alike spelling (`．．／`) is a traversal waiting for the next program that normalises it. */
export function denyLookalike(written: string, becomes: string): PolicyDecision {
  return deny(
    'shell:lookalike-path',
    `"${written}" uses look-alike characters that normalise to "${becomes}", which leads out of the allowed folders or ` +
      "into Pincer's data folder. Pincer never runs this, even with approval; write the path with plain characters.",
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
export const ASK_PRIORITY: readonly string[] = ['shell:pincer-data-within', 'shell:secret-read', 'shell:hard-link', 'shell:unparseable', 'shell:git-config'];

/** Asks a transparent wrapper (`timeout 5 cat …`) passes on under their own rule rather than its own. */
export const KEEPS_OWN_RULE: readonly string[] = [...ASK_PRIORITY, 'shell:outside-roots'];

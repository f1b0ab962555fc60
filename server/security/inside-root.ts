import { ask, deny, type PolicyDecision } from '../decision.js';
import { gitHooksMatch } from './git-hooks.js';
import { lstatOrNull } from './path-walk.js';
import { codeExecutionMatch, secretFileMatch } from './sensitive-files.js';

/**
 * What a path inside a root still needs a person for (path-guard.ts has placed it there): writing through a link,
 * changing a file something runs, deleting, reading credentials or a file with another name elsewhere.
 */

/** How a refusal shows a path: as given, plus the real path when that differs. */
export type Describe = (resolved: string) => string;

/** Where the call would act, as resolved for its kind of access. */
export interface Target {
  resolved: string;
  exists: boolean;
  /** The last name is a symbolic link (write and delete look at the name itself). */
  finalIsLink: boolean;
}

/** A write inside a root: never through a symbolic link; asked when it changes a file something runs. */
export async function writeRisk(describe: Describe, target: Target): Promise<PolicyDecision | undefined> {
  if (target.finalIsLink) {
    return deny(
      'path:symlink-write',
      `${describe(target.resolved)} is a symbolic link; writes never go through a link, because it could be pointed ` +
        'somewhere else between the check and the write. Write to the real file path instead, or delete the link first.',
    );
  }
  const code = codeExecutionRisk(describe, target.resolved, 'write');
  if (code) return code;
  // Security: an append writes the file anew with its old contents first, so appending nothing to a hard link made a
  // single-named copy of what its other name holds (the gateway's token, through a link into the data folder), which
  // a read then took unasked. A write to a file with other names asks, as its read does.
  if (!target.exists) return undefined;
  const stat = await lstatOrNull(target.resolved);
  if (!stat?.isFile() || stat.nlink <= 1) return undefined;
  return ask(
    'path:hard-link',
    `${describe(target.resolved)} is a hard link (the same file has ${stat.nlink} names): writing it keeps or copies contents ` +
      'that may belong to a file outside the allowed folders. Approve if you know where it comes from.',
  );
}

/** A file something runs without being asked (git hooks wherever git takes them from, shell rc files, editor tasks, agent configs). */
export function codeExecutionRisk(describe: Describe, resolved: string, access: 'write' | 'delete'): PolicyDecision | undefined {
  const code = codeExecutionMatch(resolved) ?? gitHooksMatch(resolved);
  if (!code) return undefined;
  return ask(
    'path:code-execution',
    `${describe(resolved)} is ${code.what}: ${access === 'write' ? 'writing' : 'deleting'} it can make a program run ` +
      'commands later without anyone asking. Approve only if you expected this change to that file.',
  );
}

/** A read inside a root: asked for a credentials file, and for a hard link (its other name may be outside). */
export async function readRisk(describe: Describe, target: Target): Promise<PolicyDecision | undefined> {
  const secret = secretFileMatch(target.resolved);
  if (secret) {
    return ask(
      'path:secret-file',
      `${describe(target.resolved)} looks like ${secret.what}; reading it would hand its contents to the assistant. ` +
        'Approve only if you mean to share it.',
    );
  }
  if (!target.exists) return undefined;
  const stat = await lstatOrNull(target.resolved);
  if (!stat?.isFile() || stat.nlink <= 1) return undefined;
  return ask(
    'path:hard-link',
    `${describe(target.resolved)} is a hard link (the same file has ${stat.nlink} names), so its contents may belong to a ` +
      'file outside the allowed folders. Approve if you know where it comes from.',
  );
}

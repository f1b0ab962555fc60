import { deny, type PolicyDecision } from '../decision.js';
import { expandBraces, GlobError } from '../util/glob.js';
import { describeLookalikes, lookalikeForm } from './lookalike.js';

/**
 * Glob patterns that name paths (file_list's `pattern`). A pattern only filters the entries below the folder being
 * listed, so it never needs to climb out or start somewhere else. Security: `../*`, `a/../../*`, `/etc/*`, `~/*`,
 * `C:\*` and `\\server\share\*` are refused even though our matcher would match nothing with them: handed to another
 * glob implementation (a shell, a library that resolves `..`) or after a later normaliser (`．．/*`), they walk out
 * of the root. Checked on every brace alternative (`{..,x}/*` is `../*`), with `\` read both as an escape and as a
 * Windows separator.
 */

export const PATTERN_RULE = 'path:pattern-escape';

const ALLOWED =
  'A pattern only filters the entries below the folder being listed, so it is relative to that folder and stays in it: ' +
  'no ".." segment, absolute path, "~", drive letter or network (UNC) prefix. Choose the folder with path (inside the ' +
  'allowed folders) and filter with a pattern such as "*.md", "src/**/*.ts" or "{a,b}.txt".';

/** A refusal (rule path:pattern-escape) for a pattern that names a place outside the listed folder; undefined when it is fine. */
export function checkPathPattern(pattern: unknown): PolicyDecision | undefined {
  if (pattern === undefined) return undefined;
  if (typeof pattern !== 'string') return deny(PATTERN_RULE, `The pattern must be a string. ${ALLOWED}`);
  const shown = printable(pattern);
  const direct = escapeIn(pattern);
  if (direct) return deny(PATTERN_RULE, `The pattern "${shown}" ${direct}. ${ALLOWED}`);
  const folded = lookalikeForm(pattern);
  const viaFold = folded === undefined ? undefined : escapeIn(folded);
  if (folded !== undefined && viaFold) {
    return deny(
      PATTERN_RULE,
      `The pattern "${shown}" uses characters that look like path syntax (${describeLookalikes(pattern) || 'look-alike characters'}); ` +
        `a program that normalises names turns it into "${printable(folded)}", which ${viaFold}. Use plain "." and "/". ${ALLOWED}`,
    );
  }
  return undefined;
}

/** What makes the pattern leave the listed folder, in words; undefined when nothing does. */
function escapeIn(pattern: string): string | undefined {
  for (const alternative of alternatives(pattern)) {
    // `\.\./*` is `../*` to the matcher; `..\*` is `../*` to Windows: read it both ways.
    const readings = [alternative, alternative.replace(/\\(.)/gs, '$1')];
    for (const [test, what] of PROBLEMS) {
      if (readings.some(test)) return alternative === pattern ? what : `${what} (in its alternative "${printable(alternative)}")`;
    }
  }
  return undefined;
}

function alternatives(pattern: string): string[] {
  let expanded: string[];
  try {
    expanded = expandBraces(pattern);
  } catch (error) {
    if (!(error instanceof GlobError)) throw error;
    // Too many alternatives for the matcher (the tool refuses it anyway): judge each brace piece on its own.
    expanded = pattern.split(/[{},]/);
  }
  return [...new Set([pattern, ...expanded])];
}

/** In order: the first that fits names the problem. */
const PROBLEMS: ReadonlyArray<[(text: string) => boolean, string]> = [
  [(t) => t.startsWith('~'), 'starts with "~" (a home folder)'],
  [(t) => /^[a-z]:/i.test(t), 'starts with a drive letter'],
  [(t) => /^[\\/]{2}/.test(t), 'starts with a network (UNC) prefix'],
  [(t) => t.startsWith('/'), 'is an absolute path'],
  [(t) => t.split(/[\\/]/).includes('..'), 'has a ".." segment that climbs out of the listed folder'],
  // `\Windows\*` is absolute on Windows; `\*` or `\[` is an escaped glob character and stays.
  [(t) => /^\\[^*?[\]{}!^,]/.test(t), 'is an absolute path (it starts with "\\")'],
];

function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '?');
  return clean.length > 200 ? `${clean.slice(0, 200)}…` : clean;
}

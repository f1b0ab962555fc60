import { canonicalName, closestNames as closestCandidates } from '../../util/closest.js';
import type { NameResolver } from './types.js';

export { canonicalName };

/**
 * Tool names as small models misspell them: a namespace prefix from their training format (`functions.get_time`,
 * `default_api:get_time`) or another case convention (`getTime`, `Get-Time`). Only these spellings are mended, and
 * only to a single offered tool: a near miss is never taken for a tool, it is refused with the closest names.
 */

const PREFIX = /^(?:functions|default_api|tools|tool|function)[.:/]/i;

/** The name without one namespace prefix a model put before it. */
function withoutPrefix(name: string): string {
  return name.replace(PREFIX, '');
}

/** Built once per request; the canonical map is shared by every call it resolves. */
export function nameResolver(offered: readonly string[]): NameResolver {
  const exact = new Set(offered);
  // A canonical form two offered tools share maps to null: neither can be told from the other.
  const byCanonical = new Map<string, string | null>();
  for (const name of offered) {
    const key = canonicalName(name);
    const known = byCanonical.get(key);
    byCanonical.set(key, known === undefined || known === name ? name : null);
  }
  return (written) => {
    if (exact.has(written)) return written;
    const stripped = withoutPrefix(written);
    if (exact.has(stripped)) return stripped;
    const matches = new Set<string | null>();
    for (const form of new Set([written, stripped])) {
      const match = byCanonical.get(canonicalName(form));
      if (match !== undefined) matches.add(match);
    }
    const [only] = matches;
    return matches.size === 1 && only ? only : undefined;
  };
}

/** Up to `n` offered names nearest the written one, for the message that refuses an unknown tool. */
export function closestNames(written: string, offered: readonly string[], n = 3): string[] {
  return closestCandidates(withoutPrefix(written), offered, n);
}

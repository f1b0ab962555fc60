import { editDistance } from '../../memory/distance.js';
import type { NameResolver } from './types.js';

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

/** One spelling for all case conventions: `getTime`, `GetTime`, `get-time`, `GET_TIME` → `get_time`. */
export function canonicalName(name: string): string {
  return name
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1_$2') // getTime → get_Time
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1_$2') // HTTPServer → HTTP_Server
    .replace(/-/g, '_')
    .toLowerCase();
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

/**
 * Up to `n` offered names nearest the written one, for the message that refuses an unknown tool. Nearest by edit
 * distance on canonical forms, less the length of the word parts they share (`weather` in `get_weather` and
 * `weather_forecast` counts for more than one letter apart). Names with nothing in common are left out.
 */
export function closestNames(written: string, offered: readonly string[], n = 3): string[] {
  const target = canonicalName(withoutPrefix(written));
  const targetWords = new Set(words(target));
  const scored: { name: string; score: number; distance: number }[] = [];
  for (const name of new Set(offered)) {
    const form = canonicalName(name);
    const longest = Math.max(form.length, target.length);
    const distance = editDistance(target, form, longest);
    const shared = words(form).filter((w) => targetWords.has(w));
    const related = shared.length > 0 || form.includes(target) || target.includes(form) || distance <= longest / 2;
    if (!related || !target || !form) continue;
    scored.push({ name, score: distance - shared.reduce((sum, w) => sum + w.length, 0), distance });
  }
  scored.sort((a, b) => a.score - b.score || a.distance - b.distance || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return scored.slice(0, Math.max(0, n)).map((s) => s.name);
}

function words(canonical: string): string[] {
  return [...new Set(canonical.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 1))];
}

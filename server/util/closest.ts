import { quotedChoice } from '../errors.js';
import { editDistance } from './edit-distance.js';

/**
 * The one "did you mean" matcher: tool names, CLI commands and config keys are all suggested through it, so a
 * misspelling is ranked the same way wherever it is typed.
 */

/** One spelling for all case conventions: `getTime`, `GetTime`, `get-time`, `GET_TIME` → `get_time`. */
export function canonicalName(name: string): string {
  return name
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1_$2') // getTime → get_Time
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1_$2') // HTTPServer → HTTP_Server
    .replace(/-/g, '_')
    .toLowerCase();
}

/**
 * Up to `n` candidates nearest the written name. Nearest by edit distance on canonical forms, less the length of
 * the word parts they share (`weather` in `get_weather` and `weather_forecast` counts for more than one letter
 * apart). Candidates with nothing in common are left out.
 */
export function closestNames(written: string, candidates: readonly string[], n = 3): string[] {
  const target = canonicalName(written);
  const targetWords = new Set(words(target));
  const scored: { name: string; score: number; distance: number }[] = [];
  for (const name of new Set(candidates)) {
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

/** ` Did you mean "a" or "b"?` — empty when there is nothing close. */
export function didYouMean(suggestions: readonly string[]): string {
  return suggestions.length === 0 ? '' : ` Did you mean ${quotedChoice(suggestions)}?`;
}

function words(canonical: string): string[] {
  return [...new Set(canonical.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 1))];
}

export { editDistance } from '../util/edit-distance.js';

/**
 * Security: denial of service. The longest term matched by edit distance: comparing costs the product of the two
 * lengths, and a term this long (a hash, a long identifier) is typed whole or pasted, not mistyped. Longer ones
 * match exactly or in part only.
 */
export const FUZZY_MAX_LENGTH = 32;

/**
 * How many edits a query term may be from a vocabulary term: none for short Latin words and numbers (three letters
 * one edit apart are usually different words), one from four letters, two from eight; one for CJK terms of two or
 * more characters (a wrong character in a word); none past FUZZY_MAX_LENGTH characters.
 */
export function allowedDistance(term: string, cjk: boolean): number {
  const length = [...term].length;
  if (length > FUZZY_MAX_LENGTH) return 0;
  if (cjk) return length >= 2 ? 1 : 0;
  if (/^\p{N}+$/u.test(term)) return 0;
  if (length >= 8) return 2;
  if (length >= 4) return 1;
  return 0;
}

/** The padded trigrams of a term: `^^ab$` style padding gives short terms and first letters grams of their own. */
export function trigrams(term: string): string[] {
  const chars = [...`^^${term}$`];
  const grams: string[] = [];
  for (let i = 0; i + 3 <= chars.length; i++) grams.push(chars.slice(i, i + 3).join(''));
  return grams;
}

/**
 * Look-alike path characters. Security: `．．／．．／etc` (U+FF0E, U+FF0F) is a harmless folder name on this disk,
 * but a later normaliser — a synced folder, an archive tool, a Windows "best fit" code-page conversion, NFKC in
 * some other program — turns it into `../../etc`. A path that would escape once normalised is refused now.
 */

/**
 * Characters that stand for `/`, `\` or `.` in some normaliser but that NFKC leaves alone. Windows best-fit maps
 * U+2215 and U+2216 to `/` and `\`, and the yen and won signs to `\` (they sit at 0x5C in the Japanese and Korean
 * code pages); IDNA and many input methods map the ideographic full stop to `.`.
 */
const EXTRA_FOLDS: ReadonlyArray<[RegExp, string]> = [
  [/[\u2215\u2044\u29f8\u1735\u2cc1]/g, '/'],
  [/[\u2216\u29f5\u29f9\u00a5\u20a9]/g, '\\'],
  [/[\u3002\uff61]/g, '.'],
];

/** NFKC plus the extra folds: what a path may become after some program normalises it. */
export function foldLookalikes(text: string): string {
  let folded = text.normalize('NFKC');
  for (const [pattern, to] of EXTRA_FOLDS) folded = folded.replace(pattern, to);
  return folded;
}

const syntax = (s: string) => s.replace(/[^/\\.~:]/g, '');

/** The folded form, when folding changes any of the characters that carry path syntax (`/ \ . ~ :`); else undefined. */
export function lookalikeForm(text: string): string | undefined {
  // Fast path: plain ASCII never changes.
  // eslint-disable-next-line no-control-regex
  if (/^[\u0000-\u007f]*$/.test(text)) return undefined;
  const folded = foldLookalikes(text);
  if (folded === text) return undefined;
  return syntax(folded) === syntax(text) ? undefined : folded;
}

/**
 * Names the characters of `text` that fold into path syntax, for a refusal a person reads:
 * `U+FF0E "．" (read as "."), U+FF0F "／" (read as "/")`. Each character is named once.
 */
export function describeLookalikes(text: string): string {
  const named = new Map<string, string>();
  for (const char of text) {
    if (char.charCodeAt(0) < 0x80 || named.has(char)) continue;
    const folded = foldLookalikes(char);
    if (syntax(folded) === '') continue;
    const code = char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    named.set(char, `U+${code} "${char}" (read as "${folded}")`);
  }
  return [...named.values()].join(', ');
}

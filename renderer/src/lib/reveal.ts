/**
 * Security: characters that change how text looks without being seen — terminal escapes and other control bytes,
 * and Unicode's direction marks (U+202E turns the rest of a line around, so a command can read as something other
 * than what runs), zero-width characters and the Unicode line and paragraph separators — are spelled out in what the
 * owner is asked to approve: a byte as `\x1b`, the others as `U+202E`, each in a part of its own so the page can
 * mark it apart from typed text. Tab and newline stay.
 */
// Not the zero-width joiner and non-joiner (U+200C, U+200D): emoji sequences and several scripts need them.
const HIDDEN = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
const HIDDEN_ONE = new RegExp(HIDDEN.source);

export interface TextPart {
  text: string;
  /** An invisible character, spelled out. */
  hidden: boolean;
}

/** Whether the text holds a character revealHidden spells out. */
export function hasHidden(text: string): boolean {
  return HIDDEN_ONE.test(text);
}

/** The text in parts; joining the parts that are not hidden, with the hidden ones' characters, gives it back. */
export function revealHidden(text: string): TextPart[] {
  if (!HIDDEN_ONE.test(text)) return [{ text, hidden: false }];
  const parts: TextPart[] = [];
  let from = 0;
  for (const match of text.matchAll(HIDDEN)) {
    if (match.index > from) parts.push({ text: text.slice(from, match.index), hidden: false });
    parts.push({ text: spell(match[0].charCodeAt(0)), hidden: true });
    from = match.index + 1;
  }
  if (from < text.length) parts.push({ text: text.slice(from), hidden: false });
  return parts;
}

const spell = (code: number) =>
  code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;

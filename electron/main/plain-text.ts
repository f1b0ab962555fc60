/**
 * Text for a native notification. Security: notification servers on Linux read a subset of HTML in the body (links,
 * images), and what we show comes from callers (an approval's reason quotes arguments; the notify tool's text is a
 * model's). Markup characters and control codes go, as do the invisible ones that reorder or hide text (direction
 * marks and overrides, zero-width characters), and the text is cut short.
 */
export function plainText(text: string, max: number): string {
  const clean = text
    // eslint-disable-next-line no-control-regex
    .replace(/\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?/g, '')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f<>&]/g, ' ')
    .replace(/[\u061c\u200b\u200e\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

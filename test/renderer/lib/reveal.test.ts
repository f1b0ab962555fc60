import { describe, expect, it } from 'vitest';
import { hasHidden, revealHidden } from '../../../renderer/src/lib/reveal.js';

/** What the parts spell, with the hidden ones in brackets. */
const spelled = (text: string) => revealHidden(text).map((p) => (p.hidden ? `[${p.text}]` : p.text)).join('');

describe('revealHidden', () => {
  it('plain text is one part, unchanged', () => {
    expect(revealHidden('rm -rf ./build && echo done')).toEqual([{ text: 'rm -rf ./build && echo done', hidden: false }]);
  });

  it('keeps tabs and newlines as they are', () => {
    expect(revealHidden('a\tb\nc')).toEqual([{ text: 'a\tb\nc', hidden: false }]);
  });

  it('spells out terminal escapes (ESC) so colour codes cannot hide or fake text', () => {
    expect(spelled('echo \x1b[31mred\x1b[0m')).toBe('echo [\\x1b][31mred[\\x1b][0m');
  });

  it('spells out a carriage return, which would let a command print over its own start', () => {
    expect(spelled('ls\rrm -rf ~')).toBe('ls[\\x0d]rm -rf ~');
  });

  it('spells out other control bytes, DEL and C1 controls', () => {
    expect(spelled('\x00\x07\x7f\x9b')).toBe('[\\x00][\\x07][\\x7f][\\x9b]');
  });

  it('spells out a right-to-left override, which would turn the rest of the line around', () => {
    expect(spelled('cat notes\u202Etxt.hs')).toBe('cat notes[U+202E]txt.hs');
  });

  it('spells out every direction mark and isolate', () => {
    for (const c of ['\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u2066', '\u2067', '\u2068', '\u2069']) {
      expect(revealHidden(c)).toEqual([{ text: `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`, hidden: true }]);
    }
  });

  it('spells out zero-width spaces, word joiners, byte-order marks and the Unicode line and paragraph separators', () => {
    expect(spelled('pay\u200Bto \u2060x\uFEFF a\u2028b\u2029c')).toBe('pay[U+200B]to [U+2060]x[U+FEFF] a[U+2028]b[U+2029]c');
  });

  it('leaves ordinary non-ASCII text alone (accents, CJK, emoji with joiners)', () => {
    const text = 'écrire 日本語 👩‍💻';
    expect(revealHidden(text)).toEqual([{ text, hidden: false }]);
    expect(hasHidden(text)).toBe(false);
  });

  it('HTML stays text: nothing is escaped or interpreted, it is only split', () => {
    expect(spelled('<img src=x onerror=alert(1)>\x1b')).toBe('<img src=x onerror=alert(1)>[\\x1b]');
  });

  it('a 200 KB string is handled in one pass', () => {
    const big = 'a'.repeat(100_000) + '\x1b' + 'b'.repeat(100_000);
    const parts = revealHidden(big);
    expect(parts.map((p) => p.text.length)).toEqual([100_000, 4, 100_000]);
  });
});

describe('hasHidden', () => {
  it('answers the same every time (no regex state carried between calls)', () => {
    expect([hasHidden('\x1b'), hasHidden('\x1b'), hasHidden('x'), hasHidden('\u202e')]).toEqual([true, true, false, true]);
  });
});

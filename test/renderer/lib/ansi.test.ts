import { describe, expect, it } from 'vitest';
import { ansiSpans, cleanTerminalText, looksLikeTerminal, type AnsiSpan } from '../../../renderer/src/lib/ansi.js';
import { pick, random } from '../../helpers/random.js';

const ESC = '\x1b';
const sgr = (codes: string) => `${ESC}[${codes}m`;
const RESET = sgr('0');

/** The text a reader sees: every span's text, joined. */
const textOf = (spans: AnsiSpan[]) => spans.map((span) => span.text).join('');

/** Printable text, HTML-looking text included; no control bytes, so nothing in it is an escape. */
const TEXT = ['a', 'Z', ' ', '\t', '\n', '<', '>', '&', '"', "'", '<script>', '</script>', '<img src=x onerror=alert(1)>', '&amp;', 'ü', '日本', '🎉', '[31m', '%', ';', 'm'];
const COLOURS = ['0', '1', '2', '3', '4', '9', '22', '31', '39', '42', '49', '91', '107', '1;32', '38;5;196', '48;5;21', '38;5;3', '38;2;10;20;30', '48;2;1;2;3', ''];

describe('ansiSpans: colours', () => {
  it('plain text is one span with no classes and no style', () => {
    expect(ansiSpans('hello world')).toEqual([{ text: 'hello world', classes: '', style: '' }]);
  });

  it('empty text gives no spans', () => {
    expect(ansiSpans('')).toEqual([]);
  });

  it('a standard foreground colour becomes a class, and a reset ends it', () => {
    expect(ansiSpans(`${sgr('31')}red${RESET} plain`)).toEqual([
      { text: 'red', classes: 'fg-red', style: '' },
      { text: ' plain', classes: '', style: '' },
    ]);
  });

  it.each([
    ['30', 'fg-black'],
    ['32', 'fg-green'],
    ['33', 'fg-yellow'],
    ['34', 'fg-blue'],
    ['35', 'fg-magenta'],
    ['36', 'fg-cyan'],
    ['37', 'fg-white'],
    ['90', 'fg-bright-black'],
    ['91', 'fg-bright-red'],
    ['97', 'fg-bright-white'],
    ['44', 'bg-blue'],
    ['107', 'bg-bright-white'],
  ])('SGR %s becomes the class %s', (code, cls) => {
    expect(ansiSpans(`${sgr(code)}x`)).toEqual([{ text: 'x', classes: cls, style: '' }]);
  });

  it('39 resets the foreground colour only', () => {
    expect(ansiSpans(`${sgr('31;44')}a${sgr('39')}b`)).toEqual([
      { text: 'a', classes: 'fg-red bg-blue', style: '' },
      { text: 'b', classes: 'bg-blue', style: '' },
    ]);
  });

  it('bold and a colour in one code give both classes', () => {
    expect(ansiSpans(`${sgr('1;32')}ok${RESET}`)).toEqual([{ text: 'ok', classes: 'fg-green bold', style: '' }]);
  });

  it.each([
    ['2', 'dim'],
    ['3', 'italic'],
    ['4', 'underline'],
    ['9', 'strikethrough'],
  ])('decoration SGR %s becomes the class %s', (code, cls) => {
    expect(ansiSpans(`${sgr(code)}x`)).toEqual([{ text: 'x', classes: cls, style: '' }]);
  });

  it('22 ends bold', () => {
    expect(ansiSpans(`${sgr('1')}B${sgr('22')} n`)).toEqual([
      { text: 'B', classes: 'bold', style: '' },
      { text: ' n', classes: '', style: '' },
    ]);
  });

  it('256-colour indexes 0–7 use the standard classes', () => {
    expect(ansiSpans(`${sgr('38;5;1')}x`)).toEqual([{ text: 'x', classes: 'fg-red', style: '' }]);
    expect(ansiSpans(`${sgr('48;5;4')}x`)).toEqual([{ text: 'x', classes: 'bg-blue', style: '' }]);
  });

  it('256-colour indexes 8–15 use the bright classes', () => {
    expect(ansiSpans(`${sgr('38;5;9')}x`)).toEqual([{ text: 'x', classes: 'fg-bright-red', style: '' }]);
    expect(ansiSpans(`${sgr('38;5;15')}x`)).toEqual([{ text: 'x', classes: 'fg-bright-white', style: '' }]);
  });

  it.each([
    [16, 'rgb(0, 0, 0)'],
    [21, 'rgb(0, 0, 255)'],
    [196, 'rgb(255, 0, 0)'],
    [208, 'rgb(255, 135, 0)'],
    [231, 'rgb(255, 255, 255)'],
    [232, 'rgb(8, 8, 8)'],
    [255, 'rgb(238, 238, 238)'],
  ])('256-colour index %i (cube or grey ramp) is the inline colour %s', (index, css) => {
    expect(ansiSpans(`${sgr(`38;5;${index}`)}x`)).toEqual([{ text: 'x', classes: '', style: `color: ${css}` }]);
  });

  it('a 256-colour background is an inline background-color', () => {
    expect(ansiSpans(`${sgr('48;5;21')}x`)).toEqual([{ text: 'x', classes: '', style: 'background-color: rgb(0, 0, 255)' }]);
  });

  it('true colour foreground and background are inline, joined by "; "', () => {
    expect(ansiSpans(`${sgr('38;2;1;2;3')}a${sgr('48;2;4;5;6')}b${RESET}`)).toEqual([
      { text: 'a', classes: '', style: 'color: rgb(1, 2, 3)' },
      { text: 'b', classes: '', style: 'color: rgb(1, 2, 3); background-color: rgb(4, 5, 6)' },
    ]);
  });

  it('a class colour and an inline colour together: class for one layer, style for the other', () => {
    expect(ansiSpans(`${sgr('31;48;5;196')}x`)).toEqual([{ text: 'x', classes: 'fg-red', style: 'background-color: rgb(255, 0, 0)' }]);
  });

  it('an out-of-range palette index or true-colour component gives no colour and no garbage text', () => {
    expect(ansiSpans(`${sgr('38;5;300')}x`)).toEqual([{ text: 'x', classes: '', style: '' }]);
    expect(ansiSpans(`${sgr('38;2;300;0;0')}x`)).toEqual([{ text: 'x', classes: '', style: '' }]);
  });

  it('colour codes with nothing to colour give no spans', () => {
    expect(ansiSpans(`${sgr('31')}${RESET}`)).toEqual([]);
  });

  it('a colour carries over a newline', () => {
    expect(ansiSpans(`${sgr('31')}a\nb`)).toEqual([{ text: 'a\nb', classes: 'fg-red', style: '' }]);
  });
});

describe('ansiSpans: the text is kept exactly, apart from the escape codes', () => {
  it('colour codes interleaved at random with text: the spans hold exactly the text (2000 cases)', () => {
    const next = random(424242);
    for (let n = 0; n < 2000; n++) {
      let raw = '';
      let plain = '';
      const parts = 1 + Math.floor(next() * 12);
      for (let p = 0; p < parts; p++) {
        if (next() < 0.4) raw += sgr(pick(next, COLOURS));
        const piece = pick(next, TEXT);
        raw += piece;
        plain += piece;
      }
      expect(textOf(ansiSpans(raw)), JSON.stringify(raw)).toBe(plain);
    }
  });

  it('no span is empty', () => {
    const next = random(5);
    for (let n = 0; n < 500; n++) {
      let raw = '';
      for (let p = 0; p < 8; p++) raw += next() < 0.5 ? sgr(pick(next, COLOURS)) : pick(next, TEXT);
      for (const span of ansiSpans(raw)) expect(span.text, JSON.stringify(raw)).not.toBe('');
    }
  });

  it('tabs, newlines and unicode pass through', () => {
    expect(textOf(ansiSpans('a\tb\nc 日本 🎉 ü'))).toBe('a\tb\nc 日本 🎉 ü');
  });

  it('a 20 000-line coloured output comes back whole', () => {
    const raw = `${sgr('32')}ok${RESET} line\n`.repeat(20_000);
    expect(textOf(ansiSpans(raw))).toBe('ok line\n'.repeat(20_000));
  });
});

describe('ansiSpans: nothing is returned as HTML', () => {
  it('<script> stays plain text in a span, not escaped and not dropped', () => {
    expect(ansiSpans('<script>alert(1)</script>')).toEqual([{ text: '<script>alert(1)</script>', classes: '', style: '' }]);
  });

  it('a coloured <img onerror> stays plain text in a span', () => {
    expect(ansiSpans(`${sgr('31')}<img src=x onerror=alert(1)>${RESET}`)).toEqual([{ text: '<img src=x onerror=alert(1)>', classes: 'fg-red', style: '' }]);
  });

  it('entities are not decoded (they are shown as typed)', () => {
    expect(textOf(ansiSpans('&lt;b&gt; &amp; &#60;'))).toBe('&lt;b&gt; &amp; &#60;');
  });

  it('classes and styles only ever come from the fixed vocabulary, whatever the input (2000 random escapes)', () => {
    const next = random(1337);
    const junk = ['"', "'", '<', '>', ';', ':', '/', 'x', '(', ')', '9', '38', '48', '2', '5', '999999', 'url(', 'expression('];
    const CLASS = /^(?:(?:fg|bg)-(?:bright-)?(?:black|red|green|yellow|blue|magenta|cyan|white)|bold|dim|italic|underline|blink|reverse|hidden|strikethrough)$/;
    const STYLE = /^(?:color|background-color): rgb\(\d{1,3}, \d{1,3}, \d{1,3}\)$/;
    for (let n = 0; n < 2000; n++) {
      let raw = '';
      for (let p = 0; p < 6; p++) {
        const params = Array.from({ length: 1 + Math.floor(next() * 5) }, () => pick(next, junk)).join(next() < 0.7 ? ';' : '');
        raw += `${ESC}[${params}m${pick(next, TEXT)}`;
      }
      for (const span of ansiSpans(raw)) {
        for (const cls of span.classes.split(' ').filter(Boolean)) expect(cls, JSON.stringify(raw)).toMatch(CLASS);
        for (const rule of span.style.split('; ').filter(Boolean)) expect(rule, JSON.stringify(raw)).toMatch(STYLE);
      }
    }
  });
});

describe('cleanTerminalText and ansiSpans: carriage returns', () => {
  it('\\r overwrites the line: a progress bar keeps only its last state', () => {
    expect(cleanTerminalText('10%\r50%\r100%\n')).toBe('100%\n');
    expect(textOf(ansiSpans('10%\r50%\r100%'))).toBe('100%');
  });

  it('the whole line is replaced by the last write, even a shorter one', () => {
    expect(cleanTerminalText('abcdef\rXY')).toBe('XY');
  });

  it('CRLF is a newline', () => {
    expect(cleanTerminalText('a\r\nb\r\n')).toBe('a\nb\n');
  });

  it('several \\r before a newline are a newline', () => {
    expect(cleanTerminalText('a\r\r\nb')).toBe('a\nb');
  });

  it('a \\r at the very end overwrites nothing', () => {
    expect(cleanTerminalText('done\r')).toBe('done');
  });

  it('several \\r at the very end overwrite nothing either', () => {
    expect(cleanTerminalText('done\r\r')).toBe('done');
    expect(textOf(ansiSpans('50%\r100%\r\r'))).toBe('100%');
  });

  it('each line is overwritten on its own', () => {
    expect(cleanTerminalText('a\rb\nc\rd')).toBe('b\nd');
  });

  it('a colour set before the \\r still colours the last write', () => {
    expect(ansiSpans(`${sgr('31')}10%\r${sgr('32')}done`)).toEqual([{ text: 'done', classes: 'fg-green', style: '' }]);
    expect(ansiSpans(`${sgr('31')}working\rdone`)).toEqual([{ text: 'done', classes: 'fg-red', style: '' }]);
  });

  it('a reset before the \\r is kept too: the last write is plain', () => {
    expect(ansiSpans(`${sgr('32')}ok${RESET}\rdone`)).toEqual([{ text: 'done', classes: '', style: '' }]);
  });

  it('a long run of carriage returns is handled in linear time', () => {
    const started = performance.now();
    expect(cleanTerminalText(`${'\r'.repeat(200_000)}x`)).toBe('x');
    expect(cleanTerminalText(`x${'\r'.repeat(200_000)}`)).toBe('x');
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('cleanTerminalText and ansiSpans: escapes that are not colours are dropped', () => {
  it.each([
    ['erase line and column move', `${ESC}[2K${ESC}[1Gline`],
    ['cursor up and erase to end', `${ESC}[3A${ESC}[Kline`],
    ['cursor position', `${ESC}[1;1Hline`],
    ['hide and show the cursor', `${ESC}[?25lline${ESC}[?25h`],
    ['alternate screen', `${ESC}[?1049hline${ESC}[?1049l`],
    ['bracketed paste mode', `${ESC}[?2004hline`],
    ['device status request', `${ESC}[6nline`],
  ])('a cursor or mode escape (%s) leaves only the text', (_, raw) => {
    expect(textOf(ansiSpans(raw))).toBe('line');
  });

  it('an OSC window title ended by BEL is dropped', () => {
    expect(cleanTerminalText(`${ESC}]0;my title\x07text`)).toBe('text');
  });

  it('an OSC 8 hyperlink ended by ST is dropped, its visible text kept', () => {
    expect(cleanTerminalText(`${ESC}]8;;https://example.com${ESC}\\link${ESC}]8;;${ESC}\\ after`)).toBe('link after');
  });

  it('an unterminated OSC drops the rest of the text rather than show it', () => {
    expect(cleanTerminalText(`before${ESC}]0;title never ended`)).toBe('before');
  });

  it('charset switches are dropped', () => {
    expect(cleanTerminalText(`${ESC}(Bx${ESC})0y`)).toBe('xy');
  });

  it('a lone ESC with its one-character command (ESC M, ESC 7) is dropped', () => {
    expect(cleanTerminalText(`${ESC}Mx${ESC}7y${ESC}8`)).toBe('xy');
  });

  it('a trailing lone ESC is dropped', () => {
    expect(textOf(ansiSpans(`abc${ESC}`))).toBe('abc');
  });

  it('control bytes with no visible form are dropped; tab and newline stay', () => {
    expect(cleanTerminalText('a\x00b\x07c\x0bd\x0ce\x7ff\tg\nh')).toBe('abcdef\tg\nh');
  });

  it('colour codes are kept by cleanTerminalText, for ansiSpans to read', () => {
    const raw = `${sgr('31')}red${RESET} plain`;
    expect(cleanTerminalText(raw)).toBe(raw);
  });
});

describe('cleanTerminalText: backspace', () => {
  it('a backspace takes back the character before it', () => {
    expect(cleanTerminalText('ab\x08c')).toBe('ac');
  });

  it('man-page overstrike (bold X\\bX, underline _\\bX) reads as the plain word', () => {
    expect(cleanTerminalText('N\x08NA\x08AM\x08ME\x08E')).toBe('NAME');
    expect(cleanTerminalText('_\x08f_\x08i_\x08l_\x08e')).toBe('file');
  });

  it('a backspace at the start of a line or after a newline erases nothing', () => {
    expect(cleanTerminalText('\x08a\n\x08b')).toBe('a\nb');
  });

  it('a backspace never eats part of a colour code (a spinner: green | then \\b /)', () => {
    expect(ansiSpans(`${sgr('32')}|${RESET}\x08/`)).toEqual([{ text: '/', classes: '', style: '' }]);
  });

  it('a backspace right after a colour code takes back the character before the code, and the code stays', () => {
    expect(ansiSpans(`${sgr('31')}ab${RESET}\x08c`)).toEqual([
      { text: 'a', classes: 'fg-red', style: '' },
      { text: 'c', classes: '', style: '' },
    ]);
  });

  it('a backspace right after a colour code at the start of a line keeps the colour', () => {
    expect(ansiSpans(`${sgr('31')}\x08x`)).toEqual([{ text: 'x', classes: 'fg-red', style: '' }]);
  });
});

describe('looksLikeTerminal', () => {
  it('colour codes make text look like a terminal', () => {
    expect(looksLikeTerminal(`${sgr('31')}red${RESET}`)).toBe(true);
  });

  it('cursor escapes make text look like a terminal', () => {
    expect(looksLikeTerminal(`${ESC}[2Kprogress`)).toBe(true);
  });

  it('a carriage return (progress bar, CRLF) makes text look like a terminal', () => {
    expect(looksLikeTerminal('10%\r20%')).toBe(true);
    expect(looksLikeTerminal('a\r\nb')).toBe(true);
  });

  it('plain text, with newlines, tabs, HTML or a literal "[31m", does not', () => {
    expect(looksLikeTerminal('')).toBe(false);
    expect(looksLikeTerminal('line 1\n\tline 2')).toBe(false);
    expect(looksLikeTerminal('<b>bold</b> [31m')).toBe(false);
  });
});

import Anser from 'anser';

/**
 * One run of terminal text with its look. Rendered as a text node inside a span, never as HTML: terminal output is
 * whatever a command printed, so it is attacker-controlled text.
 */
export interface AnsiSpan {
  text: string;
  /** Class names for the 16 standard colours and decorations (`fg-red`, `bg-bright-blue`, `bold`…). */
  classes: string;
  /** Inline colours for 256-colour and true-colour codes (`color: rgb(…)`), else empty. */
  style: string;
}

const STANDARD = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'];

// OSC (window titles, hyperlinks), charset switches and other escapes that are not colours: dropped, not shown.
const OSC = /\x1b\][\s\S]*?(?:\x07|\x1b\\|$)/g;
const CHARSET = /\x1b[()*+][0-9A-Za-z]/g;
const LONE_ESC = /\x1b(?!\[)[\s\S]?/g;
const SGR = /\x1b\[[0-9;]*m/g;
// A backspace takes back the character before it (man-page overstrike, spinners), never part of an escape: escapes
// are matched whole first, and the ones between the character and the backspace stay.
const BACKSPACE = /\x1b\[[0-?]*[ -\/]*[@-~]|[^\n\x08\x1b]((?:\x1b\[[0-?]*[ -\/]*[@-~])*)\x08/g;
// Control bytes other than tab, newline, carriage return and ESC have no visible form.
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]/g;

/**
 * Terminal output as the eye saw it: CRLF becomes a newline, a carriage return inside a line means the rest was
 * written over it (progress bars), so only the last write stays — keeping the colour codes that came before.
 */
export function cleanTerminalText(raw: string): string {
  const text = raw
    .replace(OSC, '')
    .replace(CHARSET, '')
    .replace(LONE_ESC, '')
    .replace(BACKSPACE, (match, between: string | undefined) => between ?? match)
    .replace(CONTROL, '');
  return text
    .split('\n')
    .map((line) => {
      // Carriage returns at the end of a line (CRLF, "\r\r\n", a final "\r") overwrite nothing. Trimmed by a loop:
      // a regex like /\r+\n/ is quadratic on a long run of carriage returns.
      let end = line.length;
      while (end > 0 && line[end - 1] === '\r') end--;
      const body = line.slice(0, end);
      const cut = body.lastIndexOf('\r');
      if (cut < 0) return body;
      const colours = body.slice(0, cut).match(SGR)?.join('') ?? '';
      return colours + body.slice(cut + 1);
    })
    .join('\n');
}

/** An xterm 256-colour palette entry above the standard 16, as CSS. */
function paletteColour(index: number): string {
  if (index >= 232) {
    const grey = 8 + (index - 232) * 10;
    return `rgb(${grey}, ${grey}, ${grey})`;
  }
  const cube = index - 16;
  const level = (n: number) => (n === 0 ? 0 : 55 + n * 40);
  return `rgb(${level(Math.floor(cube / 36))}, ${level(Math.floor(cube / 6) % 6)}, ${level(cube % 6)})`;
}

/** Anser's colour name to our class, or an inline colour for palette and true colours. */
function colour(name: string | null, truecolor: string | null, layer: 'fg' | 'bg'): { cls?: string; css?: string } {
  if (!name) return {};
  if (name === 'ansi-truecolor') return truecolor ? { css: `rgb(${truecolor})` } : {};
  const palette = /^ansi-palette-(\d+)$/.exec(name);
  if (palette) {
    const index = Number(palette[1]);
    if (index < 8) return { cls: `${layer}-${STANDARD[index]}` };
    if (index < 16) return { cls: `${layer}-bright-${STANDARD[index - 8]}` };
    return index < 256 ? { css: paletteColour(index) } : {};
  }
  return { cls: `${layer}-${name.replace(/^ansi-/, '')}` };
}

/** Splits terminal output into coloured runs; colour codes become classes or inline colours, the rest plain text. */
export function ansiSpans(raw: string): AnsiSpan[] {
  const entries = Anser.ansiToJson(cleanTerminalText(raw), { use_classes: true, remove_empty: true });
  return entries.map((entry) => {
    const fg = colour(entry.fg, entry.fg_truecolor, 'fg');
    const bg = colour(entry.bg, entry.bg_truecolor, 'bg');
    const classes = [fg.cls, bg.cls, ...entry.decorations].filter(Boolean).join(' ');
    const style = [fg.css && `color: ${fg.css}`, bg.css && `background-color: ${bg.css}`].filter(Boolean).join('; ');
    return { text: entry.content, classes, style };
  });
}

/** Whether text holds colour codes or other escapes worth rendering as a terminal. */
export function looksLikeTerminal(text: string): boolean {
  return text.includes('\x1b[') || text.includes('\r');
}

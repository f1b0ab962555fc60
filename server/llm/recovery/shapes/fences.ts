/** Markdown code fences: fenced shapes are read from them, and bare shapes ignore what is inside them. */

export interface Fence {
  /** The opening backticks to just past the closing ones (or the end of the text when the fence never closes). */
  start: number;
  end: number;
  /** The language tag, lowercase; '' when there is none. */
  lang: string;
  body: string;
}

const OPEN = /^[ \t]*(`{3,})[ \t]*([\w+.-]*)[ \t]*\r?\n/gm;

export function findFences(text: string): Fence[] {
  if (!text.includes('```')) return [];
  const fences: Fence[] = [];
  OPEN.lastIndex = 0;
  let open: RegExpExecArray | null;
  while ((open = OPEN.exec(text))) {
    const ticks = open[1]!;
    const start = open.index + open[0].indexOf(ticks);
    const bodyStart = open.index + open[0].length;
    const close = new RegExp(`^[ \\t]*${ticks}\`*[ \\t\\r]*$`, 'gm');
    close.lastIndex = bodyStart;
    const closing = close.exec(text);
    const bodyEnd = closing ? closing.index : text.length;
    const end = closing ? closing.index + closing[0].trimEnd().length : text.length;
    fences.push({ start, end, lang: open[2]!.toLowerCase(), body: text.slice(bodyStart, bodyEnd) });
    OPEN.lastIndex = Math.max(end, bodyStart);
  }
  return fences;
}

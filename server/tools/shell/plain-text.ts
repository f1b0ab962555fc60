// CSI, OSC, DCS/PM/APC strings, two-byte escapes and charset selections.
const ANSI = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|[()*+][0-9A-Za-z]|[@-Z\\-_=>])|\x9b[0-?]*[ -/]*[@-~]/g;

/** Terminal output as a model should read it: no escape sequences, and a line shows what a carriage return left. */
export function plainText(text: string): string {
  return text
    .replace(ANSI, '')
    .split('\n')
    .map((line) => {
      const trimmed = line.replace(/\r+$/, '');
      return trimmed.slice(trimmed.lastIndexOf('\r') + 1);
    })
    .join('\n')
    .replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '');
}

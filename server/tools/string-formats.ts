import * as ajvFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { compileLinear, PatternRefusal } from './linear-regexp.js';

type FormatDefinition = (typeof fullFormats)[keyof typeof fullFormats];

// ajv-formats is CommonJS with `exports.default`; under NodeNext its function arrives as `.default`.
const formatsPlugin = ajvFormats.default as unknown as { get(name: string): FormatDefinition };

/**
 * `url`'s three lookaheads refuse private IPv4 hosts (10/8, 127/8, 169.254/16, 192.168/16, 172.16/12). Without them
 * the expression runs on the linear-time engine; with them JavaScript's engine took seconds on long crafted strings
 * (its `\S+(?::\S*)?@` is quadratic). So `url` (deprecated by ajv-formats) accepts private addresses: whether a tool
 * may reach one is the URL policy's business, not a schema's.
 */
const URL_LOOKAHEADS = [
  '(?!(?:10|127)(?:\\.\\d{1,3}){3})',
  '(?!(?:169\\.254|192\\.168)(?:\\.\\d{1,3}){2})',
  '(?!172\\.(?:1[6-9]|2\\d|3[0-1])(?:\\.\\d{1,3}){2})',
];

/**
 * The string formats (ajv-formats' full set) as Pincer checks them, so that no format check can stall the gateway.
 *
 * Security: a format is checked on any string a client sends, up to the body limit. The formats that ajv-formats
 * writes as one regular expression run here on the linear-time engine instead (the same expression, with the `u`
 * flag added: they are ASCII classes, which it reads the same way). Those it keeps as code are not replaced:
 * `date`, `time`, `date-time`, `iso-*`, `uri`, `byte` and `regex` (which only parses its string, never runs it) use
 * anchored expressions without overlapping repetition, linear on crafted input; `duration`'s lookaheads look one
 * character ahead, and `hostname`'s caps the string at 254 characters before anything else runs.
 */
export function linearFormats(): Record<string, FormatDefinition> {
  compiled ??= compileFormats();
  return compiled;
}

let compiled: Record<string, FormatDefinition> | undefined;

function compileFormats(): Record<string, FormatDefinition> {
  const formats: Record<string, FormatDefinition> = {};
  for (const name of Object.keys(fullFormats)) {
    const format = formatsPlugin.get(name);
    const expression = format instanceof RegExp ? format : typeof format === 'object' && format.validate instanceof RegExp ? format.validate : undefined;
    if (!expression) continue;
    const source = name === 'url' ? URL_LOOKAHEADS.reduce((text, lookahead) => text.replace(lookahead, ''), expression.source) : expression.source;
    let linear: (input: string) => boolean;
    try {
      const compiled = compileLinear(source, expression.flags.includes('u') ? expression.flags : `${expression.flags}u`);
      linear = (input) => compiled.test(input);
    } catch (error) {
      if (error instanceof PatternRefusal) continue; // a lookahead: kept as ajv-formats has it (see above)
      throw error;
    }
    formats[name] = format instanceof RegExp ? linear : { ...(format as object), validate: linear } as FormatDefinition;
  }
  return formats;
}

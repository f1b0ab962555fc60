import { isPlainObject, parseUntrustedJson } from '../../../util/json.js';

/** Deepest nesting accepted in model-written JSON, as for request bodies. */
const MAX_DEPTH = 64;

/**
 * Parses model-written JSON, or says it does not parse. Security: goes through parseUntrustedJson, so a
 * "__proto__" key or a 100k-deep document is refused like a syntax error.
 */
export function tryParseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: parseUntrustedJson(text, MAX_DEPTH, 'arguments') };
  } catch {
    return undefined;
  }
}

/**
 * Arguments written as text: the object when it parses, else the text as written (argument repair mends it later,
 * or refuses). Empty text is a call without arguments.
 */
export function parseArguments(raw: string): unknown {
  const text = raw.trim();
  if (text === '') return {};
  const parsed = tryParseJson(text);
  return parsed && isPlainObject(parsed.value) ? parsed.value : text;
}

/** Arguments found as a JSON value: an object stays, a string is parsed, nothing is no arguments. */
export function normalizeArguments(value: unknown): unknown {
  if (value === undefined || value === null) return {};
  if (typeof value === 'string') return parseArguments(value);
  return isPlainObject(value) ? value : JSON.stringify(value);
}

/**
 * An arguments object built from the model's key/value pairs, or undefined when a key is "__proto__" or repeats.
 * Security: assigning a "__proto__" key would set the object's prototype instead of adding a key.
 */
export function argumentsFrom(entries: Iterable<readonly [string, unknown]>): Record<string, unknown> | undefined {
  const args: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    if (key === '__proto__' || Object.hasOwn(args, key)) return undefined;
    args[key] = value;
  }
  return args;
}

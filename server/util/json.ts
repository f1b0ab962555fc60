import secureJsonParse from 'secure-json-parse';
import { GatewayError } from '../errors.js';

/** The message secure-json-parse throws for a "__proto__" or "constructor.prototype" key. */
const FORBIDDEN_PROTOTYPE = 'Object contains forbidden prototype property';

/**
 * Parses untrusted JSON text.
 * Security: keys "__proto__" and "constructor.prototype" (also \u-escaped) are refused, so a body can never
 * plant a prototype on objects the gateway or a tool later merges; nesting is capped before parsing because a
 * 100k-deep document parses fine but then overflows the stack in JSON.stringify, structuredClone or a validator.
 */
export function parseUntrustedJson(text: string, maxDepth: number, what = 'The request body'): unknown {
  const depth = nestingDepth(text);
  if (depth > maxDepth) {
    throw new GatewayError('INVALID_JSON', `${what} is nested ${depth} levels deep; at most ${maxDepth} are accepted.`);
  }
  try {
    return secureJsonParse.parse(text, null, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const message = (error as Error).message;
    // Only secure-json-parse's own refusal; a syntax error that merely quotes the word "prototype" is not one.
    if (message === FORBIDDEN_PROTOTYPE) {
      throw new GatewayError('INVALID_JSON', `${what} contains a "__proto__" or "constructor.prototype" key, which is not accepted.`);
    }
    const reason = withoutQuotedInput(message);
    throw new GatewayError('INVALID_JSON', `${what} is not valid JSON${reason ? `: ${reason}` : ''}.`);
  }
}

/**
 * Security: V8 quotes the text around a syntax error (`Unexpected token 'h', ..."password": hunter2..." is not
 * valid JSON`); that text can be a secret, and the message is recorded in call history. Keep only the reason.
 */
function withoutQuotedInput(message: string): string {
  const match = /^(Unexpected token '.+?'|[^"]*?),?\s*(?:\.\.\.)?".*is not valid JSON$/s.exec(message);
  return match ? match[1]! : message;
}

/** Deepest bracket nesting in JSON text, skipping strings; stops early once it is clearly too deep. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) max = depth;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return max;
}

/** A JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

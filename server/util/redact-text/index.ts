import { TOKEN_SHAPES } from '../secret-shapes.js';
import { LOGIN_CODE, pathRule, schemeRule, urlRule, userOptionRule, WEBHOOK_PATH } from './credentials.js';
import { keyValueRule } from './key-value.js';
import { type Rule, Scan } from './scan.js';
import { jwtRule, pemRule, tokenRule } from './shapes.js';

/**
 * Finding secrets by shape inside any string: token formats, `Bearer …` / `Basic …`, JWTs, PEM private keys, URLs
 * with a password, webhook URLs, and `KEY=value` / `key: value` / `"key": "value"` / `--key value` pairs whose key
 * names a secret. The replacement keeps the context: `Authorization: Bearer [REDACTED]`, `OPENAI_API_KEY=[REDACTED]`,
 * `https://ann:[REDACTED]@host`.
 *
 * Security: this runs on every recorded call, on strings a client chose, so its cost must not depend on what they
 * hold. Every rule starts with a literal (a prefix, a keyword in each of its spellings); one pass over the string
 * looks up each position's two characters in a table of those literals, and only where one starts does its rule read
 * on, with sticky expressions that are bounded or a single greedy run of one class (nothing to backtrack into). The
 * scan resumes past what the rule read, so every character is read a bounded number of times. (One regular
 * expression of all the rules did the same work two to four times slower in V8; re2js was fifty times slower.)
 */

/** Strings shorter than this cannot hold anything the scanner finds ("pass=abc" is 8). */
const MIN_LENGTH = 8;

// ---------- the scanner ----------

const RULES: readonly Rule[] = [
  pemRule,
  urlRule,
  pathRule(['hooks.slack.com/services/', 'hooks.slack.com/workflows/', 'hooks.slack.com/triggers/'], WEBHOOK_PATH, 10),
  pathRule(['discord.com/api/webhooks/', 'discordapp.com/api/webhooks/'], WEBHOOK_PATH, 10),
  // Pincer's own one-time owner login links, and its owner session cookie.
  pathRule(['/auth?code='], LOGIN_CODE, 10),
  pathRule(['pincer_session='], LOGIN_CODE, 20, true),
  jwtRule,
  schemeRule,
  userOptionRule,
  ...TOKEN_SHAPES.map(tokenRule),
  keyValueRule,
];

/** For each pair of ASCII characters, the literals starting with it (longest first) and their rules. */
const STARTS: { literal: string; rule: Rule }[][] = [];
/** 1 where STARTS has an entry: the scan's one lookup per position. */
const STARTS_HERE = new Uint8Array(128 * 128);
for (const rule of RULES) {
  for (const literal of rule.starts) {
    if (!/^[\x00-\x7f]{2,}$/.test(literal)) throw new Error(`a redaction rule starts with ${JSON.stringify(literal)}: two ASCII characters at least`);
    const slot = (literal.charCodeAt(0) << 7) | literal.charCodeAt(1);
    const list = (STARTS[slot] ??= []);
    list.push({ literal, rule });
    list.sort((a, b) => b.literal.length - a.literal.length);
    STARTS_HERE[slot] = 1;
  }
}

/** `text` with every secret found by shape replaced; the same string when there is none. */
export function redactText(text: string): string {
  if (text.length < MIN_LENGTH) return text;
  let scan: Scan | undefined;
  const last = text.length - 1;
  let second = text.charCodeAt(0);
  for (let at = 0; at < last; at++) {
    const first = second;
    second = text.charCodeAt(at + 1);
    if ((first | second) >= 128 || STARTS_HERE[(first << 7) | second] === 0) continue;
    const candidates = STARTS[(first << 7) | second]!;
    for (let i = 0; i < candidates.length; i++) {
      const { literal, rule } = candidates[i]!;
      if (!text.startsWith(literal, at)) continue;
      scan ??= new Scan(text);
      const next = rule.handle(scan, at, literal);
      if (next > at + 1) {
        at = next - 1;
        second = text.charCodeAt(at + 1);
      }
      break;
    }
  }
  return scan ? scan.result() : text;
}

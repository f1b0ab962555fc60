import { isPasswordName, isSecretName } from '../secret-names.js';
import { isReference, isWordChar, readAt, REDACTED, type Rule, runAt } from './scan.js';

/** `KEY=value`, `key: value`, `"key": "value"`, `--key value`: a value whose key names a secret. */

/** Words found in secret-looking keys, as written in code and headers; the whole key is then judged by isSecretName. */
const KEY_WORDS = ['pass', 'secret', 'token', 'key', 'auth', 'cookie', 'credential', 'session'].flatMap((word) => [
  word,
  `${word[0]!.toUpperCase()}${word.slice(1)}`,
  word.toUpperCase(),
]);

// ---------- KEY=value, key: value, "key": "value", --key value ----------

/**
 * After a key: an optional closing quote, then `=`, `:`, `=>` or `:=` with up to 8 spaces or tabs on either side, or
 * spaces alone. Where the value would start, and whether an operator was there; undefined for anything else.
 */
function separatorAt(text: string, at: number): { to: number; operator: boolean } | undefined {
  const quoted = afterQuote(text, at);
  let i = quoted < 0 ? at : quoted;
  i = afterSpaces(text, i);
  const code = text.charCodeAt(i);
  if (code === 61 || code === 58) {
    i += text.charCodeAt(i + 1) === (code === 61 ? 62 : 61) ? 2 : 1; // "=>" or ":="
    return { to: afterSpaces(text, i), operator: true };
  }
  return i > at ? { to: i, operator: false } : undefined;
}

/** Past up to 8 spaces or tabs. */
function afterSpaces(text: string, from: number): number {
  let i = from;
  while (i - from < 8 && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
  return i;
}

/** A quote, escaped any number of times (`"`, `\\"`, `\\\\\\"` in JSON text inside JSON text): where it ends, or -1. */
function afterQuote(text: string, at: number): number {
  let i = at;
  while (i - at < 16 && text.charCodeAt(i) === 92) i++;
  const code = text.charCodeAt(i);
  return code === 34 || code === 39 ? i + 1 : -1;
}

/**
 * A quoted value's text, at most 4096 characters: up to its quote, or to an escaped quote (which closes it in JSON
 * text inside a string); other backslash escapes are read as a pair.
 */
const DOUBLE_QUOTED = /(?:[^"\\\r\n]|\\[^"\r\n]){0,4096}/y;
const SINGLE_QUOTED = /(?:[^'\\\r\n]|\\[^'\r\n]){0,4096}/y;
const BARE_VALUE = /[^\s"'`,;&<>(){}[\]\\]{1,4096}/y;
/** A cookie header's value is the whole rest of its line: `Cookie: a=1; session=…`. */
const LINE_VALUE = /[^\r\n"'\\]{1,8192}/y;
const SCHEME = /^(?:bearer|basic|token|digest|bot|negotiate)(?:[ \t]+|$)/i;
const TOKEN_AFTER_SCHEME = /[ \t]+[^\s"'`,;&<>(){}[\]\\]{1,4096}/y;

/** Letters, digits, "_", "." and "-": what a key is made of. */
function isKeyChar(code: number): boolean {
  return isWordChar(code) || code === 95 || code === 46 || code === 45;
}

/** Each keyword alone as a key: most keys are just the word ("token", "key"), which need no other look-up. */
const BARE_WORD_IS_SECRET = new Map(KEY_WORDS.map((word) => [word, isSecretName(word)]));

export const keyValueRule: Rule = {
  starts: KEY_WORDS,
  handle(scan, start, word) {
    const text = scan.text;
    let end = start + word.length;
    while (end < text.length && isKeyChar(text.charCodeAt(end))) end++;
    // Most words like these are followed by neither a separator nor a quote: the cheap test first.
    const after = text.charCodeAt(end);
    if (!(after === 61 || after === 58 || after === 32 || after === 9 || after === 34 || after === 39 || after === 92)) return end;
    const separator = separatorAt(text, end);
    if (!separator) return end;
    const keyStart = walkBackOverKey(text, start);
    // Without `=` or `:`, only a long option takes the next word as its value ("--password hunter2"); in prose
    // ("reset your password now") the next word is no value, nor after a closing quote ("'token' is").
    const flag = text.startsWith('--', keyStart);
    if (!separator.operator && !(flag && isBlank(text, end, separator.to))) return end;
    let nameStart = keyStart;
    while (text.charCodeAt(nameStart) === 45) nameStart++;
    const name = text.slice(nameStart, end);
    if (!(nameStart === start && end === start + word.length ? BARE_WORD_IS_SECRET.get(word)! : isSecretName(name))) return end;
    const spacesOnly = !separator.operator;
    const at = separator.to;
    // `$TOKEN`, `${TOKEN}`, `$(cat token)`: the name of a secret kept elsewhere, shown as it is.
    if (text.charCodeAt(at) === 36) return at;

    const value = readValue(text, at, /cookie/i.test(name));
    if (!value || (spacesOnly && text[value.from] === '-')) return end;
    let { from, to } = value;
    const scheme = SCHEME.exec(text.slice(from, Math.min(to, from + 12)));
    if (scheme) {
      if (from + scheme[0].length < to) from += scheme[0].length;
      else if (!value.quoted) {
        const credential = readAt(TOKEN_AFTER_SCHEME, text, to);
        if (!credential) return to;
        from = to + credential[0].length - credential[0].trimStart().length;
        to += credential[0].length;
      } else return to;
    }
    const content = text.slice(from, to);
    if (content.startsWith('-----BEGIN')) return from; // the PEM rule redacts the key and keeps its lines
    if (!isSecretValue(content, name, value.quoted, text.charCodeAt(to))) return to;
    scan.replace(from, to, REDACTED);
    return to;
  },
};

function isBlank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text.charCodeAt(i) !== 32 && text.charCodeAt(i) !== 9) return false;
  return to > from;
}

/** Where the key that contains the keyword at `start` begins: "OPENAI_API_KEY" for its "KEY". */
function walkBackOverKey(text: string, start: number): number {
  let at = start;
  while (at > 0 && start - at < 64) {
    if (!isKeyChar(text.charCodeAt(at - 1))) break;
    // "\npassword=…" in JSON text: the "n" belongs to the escape, not to the key.
    if (at >= 2 && text.charCodeAt(at - 2) === 92 && /[nrt]/.test(text[at - 1]!)) break;
    at--;
  }
  return at;
}

function readValue(text: string, at: number, wholeLine: boolean): { from: number; to: number; quoted: boolean } | undefined {
  const from = afterQuote(text, at);
  if (from >= 0) {
    const length = runAt(text[from - 1] === '"' ? DOUBLE_QUOTED : SINGLE_QUOTED, text, from);
    // A value that ends in escaped backslashes before its quote (`\\\"` in JSON text inside JSON text) keeps them.
    let to = from + length;
    while (to > from && text.charCodeAt(to - 1) === 92) to--;
    return to === from ? undefined : { from, to, quoted: true };
  }
  const found = readAt(wholeLine ? LINE_VALUE : BARE_VALUE, text, at);
  if (!found) return undefined;
  const content = wholeLine ? found[0].trimEnd() : found[0];
  return content === '' ? undefined : { from: at, to: at + content.length, quoted: false };
}

function isSecretValue(value: string, key: string, quoted: boolean, next: number): boolean {
  if (value === REDACTED || isReference(value)) return false;
  if (value.length <= 9 && /^(?:true|false|null|none|nil|undefined|yes|no|on|off)$/i.test(value)) return false;
  // Counts and sizes ("max_tokens": 256, "session_timeout=30"); a password of digits is still a password.
  if (/^\d+(?:\.\d+)?$/.test(value)) return isPasswordName(key);
  if (!quoted) {
    // Code, not a value: `token = getToken()`, `secret = config.secret`, `key = keys[0]`.
    if (next === 40 || next === 91) return false;
    if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value)) return false;
  }
  return true;
}

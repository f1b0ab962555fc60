import { isPasswordName, isSecretName } from './secret-names.js';
import { TOKEN_SHAPES, looksRandom, type TokenShape } from './secret-shapes.js';

export const REDACTED = '[REDACTED]';

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

/** Words found in secret-looking keys, as written in code and headers; the whole key is then judged by isSecretName. */
const KEY_WORDS = ['pass', 'secret', 'token', 'key', 'auth', 'cookie', 'credential', 'session'].flatMap((word) => [
  word,
  `${word[0]!.toUpperCase()}${word.slice(1)}`,
  word.toUpperCase(),
]);
/** Strings shorter than this cannot hold anything the scanner finds ("pass=abc" is 8). */
const MIN_LENGTH = 8;
/** A PEM block's END line is looked for this far after its BEGIN line. */
const PEM_REACH = 64 * 1024;

class Scan {
  readonly #parts: string[] = [];
  /** text[0, copied) is in the parts already. */
  #copied = 0;
  /** The next "-----END" and "@" at or after where they were last looked for (-1: none), so no rule rescans. */
  pemEnd = -2;
  nextAt = -2;
  constructor(readonly text: string) {}

  replace(from: number, to: number, replacement: string): void {
    if (from < this.#copied) return;
    this.#parts.push(this.text.slice(this.#copied, from), replacement);
    this.#copied = to;
  }

  result(): string {
    if (this.#parts.length === 0) return this.text;
    this.#parts.push(this.text.slice(this.#copied));
    return this.#parts.join('');
  }
}

interface Rule {
  /** The literals an occurrence starts with, each at least two characters of ASCII. */
  starts: readonly string[];
  /** Reads from `start`, where `literal` was found; redacts what it should; answers where the scan goes on. */
  handle(scan: Scan, start: number, literal: string): number;
}

/** Reads with a sticky expression at `at`; null when it does not match there. */
function readAt(pattern: RegExp, text: string, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(text);
}

/** The length of the run a sticky `[…]*` expression reads at `at`. */
function runAt(pattern: RegExp, text: string, at: number): number {
  pattern.lastIndex = at;
  pattern.test(text);
  return pattern.lastIndex - at;
}

function isWordChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/**
 * Whether a token may start at `at`: not inside a word, or right after a `\n`-style escape of JSON text. Checked here
 * rather than with a lookbehind in the scanner, which would make V8 try every alternative at every position.
 */
function startsWord(text: string, at: number): boolean {
  if (at === 0 || !isWordChar(text.charCodeAt(at - 1))) return true;
  return at >= 2 && text.charCodeAt(at - 2) === 92 && /[nrt]/.test(text[at - 1]!);
}

// ---------- token shapes ----------

function tokenRule(shape: TokenShape): Rule {
  const bodyRun = new RegExp(`${shape.body}*`, 'y');
  return {
    starts: shape.prefixes,
    handle(scan, start, prefix) {
      const text = scan.text;
      const end = start + prefix.length + runAt(bodyRun, text, start + prefix.length);
      // The run is consumed whatever is decided: a token cannot start inside it.
      if (!startsWord(text, start)) return end;
      const body = text.slice(start + prefix.length, end);
      const fits =
        body.length >= shape.min &&
        body.length <= (shape.max ?? Infinity) &&
        // A longer word that only starts like a token ("AKIA…" followed by lower-case letters) is not one.
        !isWordChar(text.charCodeAt(end)) &&
        (shape.check?.(body) ?? true) &&
        !shape.examples?.includes(text.slice(start, end));
      if (fits) scan.replace(start, end, REDACTED);
      return end;
    },
  };
}

// ---------- JWTs ----------

const JWT = /eyJ[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*)?)?/y;
const jwtRule: Rule = {
  starts: ['eyJ'],
  handle(scan, start) {
    const end = start + runAt(JWT, scan.text, start);
    const token = scan.text.slice(start, end);
    const parts = token.split('.');
    if (startsWord(scan.text, start) && parts.length === 3 && parts[0]!.length >= 10 && parts[1]!.length >= 10 && isJoseHeader(parts[0]!)) {
      scan.replace(start, end, REDACTED);
      return end;
    }
    // Not a JWT: what follows its first dot is scanned as ordinary text.
    return start + parts[0]!.length;
  },
};

/** A JWT's first part is a JSON header naming its algorithm (base64url of `{"alg":…}`). */
function isJoseHeader(part: string): boolean {
  if (part.length > 2048) return false;
  return /"(?:alg|enc|typ)"\s*:/.test(Buffer.from(part, 'base64url').toString('utf8'));
}

// ---------- PEM private keys ----------

const PEM_HEADER_AT = /-----BEGIN[ A-Z0-9]{0,40}?PRIVATE KEY(?: BLOCK)?-----/y;
/** Base64 lines of a key whose END line is missing (cut off), literal `\n` escapes of JSON text included. */
const PEM_BODY = /(?:[A-Za-z0-9+/=\s]|\\[nr])*/y;
const LEADING_SPACE = /^(?:\s|\\[nr])*/;
const TRAILING_SPACE = /(?:\s|\\[nr])*$/;

const pemRule: Rule = {
  starts: ['-----BEGIN'],
  handle(scan, start, literal) {
    const text = scan.text;
    const header = readAt(PEM_HEADER_AT, text, start);
    if (!header) return start + literal.length;
    const end = start + header[0].length;
    if (scan.pemEnd !== -1 && scan.pemEnd < end) scan.pemEnd = text.indexOf('-----END', end);
    const footer = scan.pemEnd;
    if (footer !== -1 && footer - end <= PEM_REACH) {
      const body = text.slice(end, footer);
      if (body.trim() === '') return end;
      const lead = LEADING_SPACE.exec(body)![0];
      const trail = body.length > lead.length ? TRAILING_SPACE.exec(body)![0] : '';
      scan.replace(end, footer, `${lead}${REDACTED}${trail}`);
      return footer + 8;
    }
    const bodyEnd = end + readAt(PEM_BODY, text, end)![0].length;
    const body = text.slice(end, bodyEnd);
    if (body.trim().replace(/\\[nr]/g, '') === '') return end;
    scan.replace(end, bodyEnd, `${LEADING_SPACE.exec(body)![0]}${REDACTED}`);
    return bodyEnd;
  },
};

/** Whether `line` opens a private key block it does not close (the next lines are the key). */
export function opensPrivateKey(line: string): boolean {
  const begin = line.lastIndexOf('-----BEGIN');
  return begin >= 0 && readAt(PEM_HEADER_AT, line, begin) !== null && line.indexOf('-----END', begin) < 0;
}

// ---------- Bearer / Basic credentials in text ----------

const CREDENTIAL_AFTER_SCHEME = /[ \t]+([A-Za-z0-9._~+/=-]+)/y;

const schemeRule: Rule = {
  starts: ['Bearer', 'bearer', 'BEARER', 'Basic', 'basic', 'BASIC'],
  handle(scan, start, scheme) {
    const text = scan.text;
    const end = start + scheme.length;
    if (!startsWord(text, start)) return end;
    const found = readAt(CREDENTIAL_AFTER_SCHEME, text, end);
    if (!found) return end;
    const credential = found[1]!;
    const from = end + found[0].length - credential.length;
    const to = end + found[0].length;
    const basic = scheme.toLowerCase() === 'basic';
    const whole = start === 0 && to === text.length;
    const secret = basic ? isBasicCredential(credential) : credential.length >= 8 && (whole || /\d/.test(credential) || (credential.length >= 20 && looksRandom(credential)));
    if (!secret) return end;
    scan.replace(from, to, REDACTED);
    return to;
  },
};

/** `Basic` credentials are base64 of "user:password"; prose after the word "basic" is not. */
function isBasicCredential(text: string): boolean {
  if (text.length < 8 || text.length > 4096 || !/^[A-Za-z0-9+/]+=*$/.test(text)) return false;
  const decoded = Buffer.from(text, 'base64').toString('latin1');
  return /^[\x20-\x7e]+$/.test(decoded) && decoded.indexOf(':') > 0;
}

// ---------- URLs with a password, webhook URLs, login links ----------

const URL_CREDENTIALS = /([^\s:@/?#"'<>\\]{0,256}):([^\s@/?#"'<>\\]{1,256})@/y;

const urlRule: Rule = {
  starts: ['://'],
  handle(scan, start, literal) {
    const end = start + literal.length;
    if (scan.nextAt !== -1 && scan.nextAt < end) scan.nextAt = scan.text.indexOf('@', end);
    if (scan.nextAt === -1 || scan.nextAt - end > 514) return end;
    const found = readAt(URL_CREDENTIALS, scan.text, end);
    if (!found) return end;
    const [whole, user, password] = found as unknown as [string, string, string];
    if (password === REDACTED || isReference(password)) return end + whole.length;
    // GitHub's old form puts the token in the user part: https://<token>:x-oauth-basic@github.com/
    if (password === 'x-oauth-basic') scan.replace(end, end + user.length, REDACTED);
    else scan.replace(end + user.length + 1, end + whole.length - 1, REDACTED);
    return end + whole.length;
  },
};

/** A rule that redacts the run of `body` characters after a literal anchor, when it is at least `min` long. */
function pathRule(starts: string[], body: RegExp, min: number, wordStart = false): Rule {
  return {
    starts,
    handle(scan, start, literal) {
      const end = start + literal.length;
      if (wordStart && !startsWord(scan.text, start)) return end;
      const length = runAt(body, scan.text, end);
      if (length >= min) scan.replace(end, end + length, REDACTED);
      return end + length;
    },
  };
}

const WEBHOOK_PATH = /[A-Za-z0-9_/-]*/y;
const LOGIN_CODE = /[A-Za-z0-9_.-]*/y;

// ---------- curl -u user:password ----------

const USER_OPTION = /(?:[ \t]+|=)["']?([^\s:"']{1,128}):([^\s"']{1,256})/y;

const userOptionRule: Rule = {
  starts: ['--user', '-u'],
  handle(scan, start, option) {
    const end = start + option.length;
    if (start > 0 && /[A-Za-z0-9_-]/.test(scan.text[start - 1]!)) return end;
    const found = readAt(USER_OPTION, scan.text, end);
    if (!found) return end;
    const password = found[2]!;
    const to = end + found[0].length;
    // "-u 1000:1000" is a uid:gid (docker, sudo), not a password.
    if (/^\d+$/.test(password) || isReference(password) || password === REDACTED) return to;
    scan.replace(to - password.length, to, REDACTED);
    return to;
  },
};

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

const keyValueRule: Rule = {
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

/** `$TOKEN`, `${TOKEN}`, `%TOKEN%`, `{{ token }}`: a name for a secret kept elsewhere, shown as it is. */
function isReference(value: string): boolean {
  const first = value.charCodeAt(0);
  if (first === 36) return /^\$\{?[A-Za-z_]/.test(value);
  if (first === 37) return /^%[A-Za-z_]\w*%$/.test(value);
  return first === 123 && value.startsWith('{{');
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

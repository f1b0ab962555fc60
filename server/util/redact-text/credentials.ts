import { looksRandom } from '../secret-shapes.js';
import { isReference, readAt, REDACTED, type Rule, runAt, startsWord } from './scan.js';

/** Credentials known by what stands before them: `Bearer …`, a URL's password, a webhook path, `curl -u`. */

// ---------- Bearer / Basic credentials in text ----------

const CREDENTIAL_AFTER_SCHEME = /[ \t]+([A-Za-z0-9._~+/=-]+)/y;

export const schemeRule: Rule = {
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

export const urlRule: Rule = {
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
export function pathRule(starts: string[], body: RegExp, min: number, wordStart = false): Rule {
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

export const WEBHOOK_PATH = /[A-Za-z0-9_/-]*/y;
export const LOGIN_CODE = /[A-Za-z0-9_.-]*/y;

// ---------- curl -u user:password ----------

const USER_OPTION = /(?:[ \t]+|=)["']?([^\s:"']{1,128}):([^\s"']{1,256})/y;

export const userOptionRule: Rule = {
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

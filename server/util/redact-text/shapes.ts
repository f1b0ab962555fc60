import { type TokenShape } from '../secret-shapes.js';
import { isWordChar, readAt, REDACTED, type Rule, runAt, startsWord } from './scan.js';

/** Secrets known by their own shape: provider token formats, JWTs, PEM private keys. */

/** A PEM block's END line is looked for this far after its BEGIN line. */
const PEM_REACH = 64 * 1024;

// ---------- token shapes ----------

export function tokenRule(shape: TokenShape): Rule {
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
export const jwtRule: Rule = {
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

export const pemRule: Rule = {
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

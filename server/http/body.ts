import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { GatewayError } from '../errors.js';
import { readBody } from '../security/read-body.js';
import { parseUntrustedJson } from '../util/json.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Set on a request whose body a reader has taken. */
const BODY_TAKEN = Symbol('pincer.bodyTaken');
type Marked = IncomingMessage & { [BODY_TAKEN]?: true };

/**
 * Reads a JSON body with a size cap, refusing every other content type.
 * Security: a text/plain or form body is how a web page sends a "simple" cross-site request without a CORS
 * preflight; refusing them (instead of ignoring the body and running the tool with no arguments) closes that door.
 * An empty form or text/plain body is refused too: it would otherwise run a tool whose arguments are all optional.
 */
export function jsonBody(limitBytes: number, maxDepth: number) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    // Parsed once: the first parser's result stands.
    if ((req as Marked)[BODY_TAKEN]) return next();
    const declared = req.headers['content-length'];
    const chunked = req.headers['transfer-encoding'] !== undefined;
    const type = req.headers['content-type'];
    const empty = !chunked && (declared === undefined || declared === '0');
    if (empty && (type === undefined || READ_METHODS.has(req.method))) return next();
    if (declared !== undefined && Number(declared) > limitBytes) return next(tooLarge(limitBytes));
    if (!type || !JSON_TYPE.test(type)) {
      return next(
        new GatewayError(
          'UNSUPPORTED_MEDIA_TYPE',
          `Send the body as JSON with "Content-Type: application/json"${type ? `, not "${type.split(';')[0]}"` : ''}.`,
        ),
      );
    }
    const charset = /charset\s*=\s*"?([\w-]+)/i.exec(type)?.[1]?.toLowerCase();
    if (charset && charset !== 'utf-8' && charset !== 'utf8') {
      return next(new GatewayError('UNSUPPORTED_MEDIA_TYPE', `JSON bodies must be UTF-8, not ${charset}.`));
    }
    if (empty) return next();

    void readRequestBody(req, limitBytes).then((read) => {
      if (read === 'too-large') return next(tooLarge(limitBytes));
      if (read === 'unreadable') return next(new GatewayError('INVALID_JSON', 'The request body could not be read.'));
      if (read.text.trim() === '') return next();
      try {
        req.body = parseUntrustedJson(read.text, maxDepth);
        next();
      } catch (error) {
        next(error);
      }
    });
  };
}

/**
 * Reads a request's whole body up to `limitBytes`: its text, or why not. Past the limit the rest is drained
 * unread, so the connection can still carry the answer.
 */
export async function readRequestBody(req: IncomingMessage, limitBytes: number): Promise<{ text: string } | 'too-large' | 'unreadable'> {
  // Security: a second reader would wait for ever for data already gone, holding the connection: it is told at once.
  if ((req as Marked)[BODY_TAKEN] || req.readableEnded) return 'unreadable';
  (req as Marked)[BODY_TAKEN] = true;
  try {
    const read = await readBody(req, { maxBytes: limitBytes, rest: 'drain' });
    return read.truncated ? 'too-large' : { text: read.body.toString('utf8') };
  } catch {
    return 'unreadable';
  }
}

function tooLarge(limitBytes: number): GatewayError {
  return new GatewayError('PAYLOAD_TOO_LARGE', `The request body is larger than the ${limitBytes}-byte limit.`, {
    limit_bytes: limitBytes,
  });
}

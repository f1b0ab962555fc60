import type { NextFunction, Request, Response } from 'express';
import { DEFAULT_CLIENT, OWNER, SESSION_COOKIE, type Credentials } from '../auth/credentials.js';
import { GatewayError, refuse } from '../errors.js';

export type Identity = { kind: 'owner'; name: typeof OWNER } | { kind: 'client'; name: string };

declare module 'express-serve-static-core' {
  interface Locals {
    identity?: Identity;
  }
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The token a client presented: a Bearer token, else X-API-Key; '' when what was sent is malformed or empty. */
function presentedToken(req: Request): string | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  if (bearer) return bearer;
  const key = req.headers['x-api-key'];
  if (typeof key === 'string' && key.trim() !== '') return key.trim();
  return req.headers.authorization !== undefined || key !== undefined ? '' : undefined;
}

/**
 * Works out who is calling: the owner (dashboard session cookie) or a client (token). Every route past this point
 * has an identity; routes then say whether a client may do what it asks.
 */
export function identify(credentials: Credentials, clientAuth: boolean, ownOrigins: () => Set<string>) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const session = readCookie(req.headers.cookie, SESSION_COOKIE);
    if (session && credentials.isOwnerSession(session)) {
      // Security: CSRF. SameSite=Strict already keeps the cookie off cross-site requests; a state change must also
      // prove it comes from the dashboard's own origin.
      const origin = req.headers.origin?.toLowerCase();
      if (STATE_CHANGING.has(req.method) && (!origin || !ownOrigins().has(origin))) {
        return next(
          new GatewayError('ORIGIN_NOT_ALLOWED', 'Changes made with the dashboard session must come from the dashboard itself (Origin header).'),
        );
      }
      res.locals.identity = { kind: 'owner', name: OWNER };
      return next();
    }
    const token = presentedToken(req);
    if (token === undefined || token === '') {
      if (!clientAuth) {
        res.locals.identity = { kind: 'client', name: DEFAULT_CLIENT };
        return next();
      }
      return next(
        new GatewayError(
          'AUTH_MISSING',
          token === ''
            ? 'The token is malformed or empty: send "Authorization: Bearer <token>" or "X-API-Key: <token>".'
            : 'A client token is required: send "Authorization: Bearer <token>" or "X-API-Key: <token>" (the token is in the data directory\'s "token" file, or run `pincer token create <name>`).',
        ),
      );
    }
    const client = credentials.clientForToken(token);
    if (!client) return next(new GatewayError('AUTH_FAILED', 'The token is not valid (unknown or revoked).'));
    res.locals.identity = { kind: 'client', name: client };
    next();
  };
}

/** The identity of a request that passed `identify`. */
export function identityOf(res: Response): Identity {
  const identity = res.locals.identity;
  if (!identity) throw new Error('identify() middleware did not run');
  return identity;
}

/** Owner-only routes: a client must never approve, toggle or reconfigure anything. */
export function requireOwner(_req: Request, res: Response, next: NextFunction): void {
  next(identityOf(res).kind === 'owner' ? undefined : refuse.ownerOnly());
}

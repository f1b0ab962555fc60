import type { NextFunction, Request, Response } from 'express';
import { GatewayError } from '../errors.js';

export interface Origins {
  /** Host header values this gateway answers to, lower-case with port. */
  hosts: Set<string>;
  /** Origins of this gateway's own pages (the dashboard). */
  origins: Set<string>;
}

/** The names this gateway is reached by: its loopback names, its bind address, and configured extras. */
export function gatewayOrigins(bindHost: string, port: number, extraHosts: readonly string[]): Origins {
  const names = new Set(['127.0.0.1', 'localhost', '[::1]']);
  if (bindHost !== '0.0.0.0' && bindHost !== '::') names.add(bindHost.includes(':') ? `[${bindHost}]` : bindHost);
  const hosts = new Set<string>();
  for (const name of names) hosts.add(`${name}:${port}`);
  for (const extra of extraHosts) hosts.add(extra.toLowerCase());
  const origins = new Set([...hosts].map((h) => `http://${h}`));
  return { hosts, origins };
}

/**
 * Security: DNS rebinding. A web page on attacker.example can re-point its name at 127.0.0.1 and then talk to the
 * gateway as a "same-origin" page; its requests still carry `Host: attacker.example`, so only our own names pass.
 * A missing Host (HTTP/1.0) is refused too.
 */
export function hostGuard(origins: () => Origins) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const host = req.headers.host?.toLowerCase();
    if (host && origins().hosts.has(host)) return next();
    next(
      new GatewayError(
        'HOST_NOT_ALLOWED',
        host
          ? `Requests for host "${host}" are not accepted; use http://127.0.0.1:<port>/ or add the name to allowed_hosts.`
          : 'Requests without a Host header are not accepted.',
      ),
    );
  };
}

/**
 * Security: cross-site requests. Browsers attach `Origin` to cross-origin requests; any origin other than the
 * gateway's own dashboard (including the opaque "null" of sandboxed frames and file pages) is refused, and no
 * CORS headers are ever sent, so no other page can read an answer either.
 */
export function originGuard(origins: () => Origins) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const origin = req.headers.origin;
    if (origin === undefined || origins().origins.has(origin.toLowerCase())) return next();
    next(new GatewayError('ORIGIN_NOT_ALLOWED', `Requests from origin "${origin}" are not accepted.`));
  };
}

/** Headers every answer carries. */
export function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Cache-Control', 'no-store');
  // The gateway's own pages load nothing from elsewhere and run no script; JSON answers are unaffected.
  res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
  next();
}

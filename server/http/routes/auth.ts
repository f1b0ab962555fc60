import { Router } from 'express';
import { SESSION_COOKIE, type Credentials } from '../../auth/credentials.js';
import { readCookie } from '../identity.js';

/**
 * The owner's one-time login link: `/auth?code=…` sets an HttpOnly, SameSite=Strict session cookie.
 * Mounted at /auth, so other requests (every call) pass it on a path check without entering the router.
 */
export function authRoutes(credentials: Credentials): Router {
  const router = Router();

  router.get('/', (req, res) => {
    const code = typeof req.query.code === 'string' ? req.query.code : '';
    const outcome = code ? credentials.redeemLoginCode(code) : { problem: 'This login link has no code.' };
    if ('problem' in outcome) {
      res.status(401).type('html').send(loginProblemPage(outcome.problem));
      return;
    }
    res.cookie(SESSION_COOKIE, outcome.session, {
      httpOnly: true,
      sameSite: 'strict',
      path: '/',
      maxAge: outcome.maxAgeS * 1000,
    });
    // Drop the code from the address bar and history.
    res.redirect(303, '/');
  });

  router.post('/logout', (req, res) => {
    const session = readCookie(req.headers.cookie, SESSION_COOKIE);
    if (session) credentials.endOwnerSession(session);
    res.clearCookie(SESSION_COOKIE, { path: '/' });
    res.json({ success: true });
  });

  return router;
}

/**
 * Where to get a fresh link: the dashboard's login screen, which shows the command that works on this machine. An
 * error answer names no path of the installation (it would tell any caller where Pincer's code lives).
 */
function loginProblemPage(problem: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Pincer — login link not accepted</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}
@media (prefers-color-scheme: dark){body{background:#161616;color:#eee}} code{background:#8882;padding:.1em .3em;border-radius:4px}</style>
</head><body><h1>Login link not accepted</h1><p>${problem}</p>
<p>Each link works once and for 15 minutes. Get a fresh one with the command <a href="/">the login screen</a> shows, or from the tray menu.</p>
</body></html>`;
}

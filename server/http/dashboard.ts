import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Express, type Response } from 'express';
import type { SessionInfo } from '../contract/clients.js';
import { SESSION_COOKIE, type Credentials } from '../auth/credentials.js';
import { builtPath } from '../util/package-files.js';
import { readCookie } from './identity.js';

/** The dashboard built with this package (`vite build` writes it to dist/renderer). */
export function builtDashboardDir(): string {
  return builtPath('renderer');
}

/**
 * Security: the dashboard runs only its own bundled script and talks only to this gateway. Inline styles are
 * allowed for Svelte's style directives; images may be data: URLs (the favicon carries the pending count).
 */
const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/**
 * `GET /`, `GET /popup/{id}` (one approval, in a window of its own) and their assets (no auth: they are the same
 * for everyone and hold no data), and `GET /session`, which tells a page whether this browser holds an owner
 * session. Everything the pages show comes from the authenticated API. Registered on the app itself rather than as
 * a Router: a router in front of the API would be entered by every call.
 */
export function dashboardRoutes(app: Express, credentials: Credentials, version: string, dir = builtDashboardDir(), loginCommand?: string): void {
  const dashboardHeaders = (res: Response) => res.setHeader('Content-Security-Policy', DASHBOARD_CSP);

  app.get('/session', (req, res) => {
    const session = readCookie(req.headers.cookie, SESSION_COOKIE);
    res.json({ owner: session !== undefined && credentials.isOwnerSession(session), version, ...(loginCommand && { login_command: loginCommand }) } satisfies SessionInfo);
  });

  // Checked on each page load, not once at start: the fallback page says "build and reload", so a build made
  // while the gateway runs must show on the next reload.
  const page = (file: string) => (_req: unknown, res: Response) => {
    const path = join(dir, file);
    if (!existsSync(path)) {
      res.type('html').send(notBuiltPage(version));
      return;
    }
    dashboardHeaders(res);
    res.sendFile(path);
  };
  app.get('/', page('index.html'));
  // The page reads the approval's id from its own address: the id is never put into what is served.
  app.get('/popup/:id', page('popup.html'));
  // Mounted even with no build yet (a missing file is a 404), for the same reason. Hashed file names: the content
  // of a URL never changes, so browsers may keep them.
  app.use(
    '/assets',
    express.static(join(dir, 'assets'), {
      index: false,
      fallthrough: false,
      setHeaders: (res) => {
        res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
        dashboardHeaders(res);
      },
    }),
  );
}

function notBuiltPage(version: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pincer</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem}
@media (prefers-color-scheme: dark){body{background:#161616;color:#eee}} code{background:#8882;padding:.1em .3em;border-radius:4px}</style>
</head><body><h1>Pincer ${version}</h1><p>The gateway is running, but the dashboard has not been built: run
<code>npm run build</code> and reload. Assistants list tools at <code>/tools/openai</code>, <code>/tools/anthropic</code> or
<code>/openapi.json</code> and call them at <code>/tools/&lt;name&gt;/execute</code>.</p></body></html>`;
}

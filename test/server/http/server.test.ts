import { IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createAppServer } from '../../../server/http/server.js';

/**
 * The gateway's HTTP server creates requests and responses with the Express app's prototypes, so Express's
 * per-request Object.setPrototypeOf changes nothing (a swapped prototype makes V8 promote every request's objects).
 */

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function listen(app: express.Express): Promise<{ url: string; seen: { request: object | null; response: object | null }[] }> {
  server = createAppServer(app);
  const seen: { request: object | null; response: object | null }[] = [];
  // Runs before Express's handler: what the objects are as Node created them.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    seen.push({ request: Object.getPrototypeOf(req) as object | null, response: Object.getPrototypeOf(res) as object | null });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe('createAppServer', () => {
  it('creates each request and response with the app prototypes already in place', async () => {
    const app = express();
    app.get('/ping', (_req, res) => {
      res.json({ pong: true });
    });
    const { url, seen } = await listen(app);
    await fetch(`${url}/ping`);
    await fetch(`${url}/ping`);
    expect(seen).toHaveLength(2);
    for (const objects of seen) {
      expect(objects.request).toBe(app.request);
      expect(objects.response).toBe(app.response);
    }
  });

  it('keeps Node and Express behaviour: instanceof, req.get, params, query, res.status().json, routers, error handlers', async () => {
    const app = express();
    app.set('query parser', 'simple');
    const router = express.Router();
    router.get('/items/:id', (req, res) => {
      res.status(201).json({
        id: req.params.id,
        q: req.query.q,
        host: req.get('host'),
        nodeRequest: req instanceof IncomingMessage,
        nodeResponse: res instanceof ServerResponse,
        hasExpressMethods: typeof req.accepts === 'function' && typeof res.sendStatus === 'function',
      });
    });
    router.get('/boom', () => {
      throw new Error('boom');
    });
    app.use(router);
    app.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).type('text/plain').send(`caught ${error.message}`);
    });
    const { url } = await listen(app);

    const answer = await fetch(`${url}/items/42?q=x`);
    expect(answer.status).toBe(201);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await answer.json()).toEqual({
      id: '42',
      q: 'x',
      host: new URL(url).host,
      nodeRequest: true,
      nodeResponse: true,
      hasExpressMethods: true,
    });

    const failed = await fetch(`${url}/boom`);
    expect(failed.status).toBe(500);
    expect(await failed.text()).toBe('caught boom');

    const missing = await fetch(`${url}/nowhere`);
    expect(missing.status).toBe(404);
  });

  it('gives each app its own classes: two apps in one process do not share prototypes', async () => {
    const first = express();
    const second = express();
    const firstServer = createAppServer(first);
    const secondServer = createAppServer(second);
    try {
      expect(first.request).not.toBe(second.request);
      expect(Object.getPrototypeOf(first.request)).not.toBe(Object.getPrototypeOf(second.request));
      expect(first.request).toBeInstanceOf(IncomingMessage);
      expect(second.response).toBeInstanceOf(ServerResponse);
    } finally {
      firstServer.close();
      secondServer.close();
    }
  });
});

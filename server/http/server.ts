import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Express } from 'express';

/**
 * The HTTP server for an Express app, with requests and responses born with the app's prototypes.
 *
 * Express gives each request and response its app's prototype by calling Object.setPrototypeOf on them as they
 * arrive. V8 handles objects whose prototype changed after creation badly: every request's objects then survive
 * young-generation collections and are promoted, each scavenge takes several milliseconds instead of a few
 * hundred microseconds, and old-space collections come every second or so. That is the tail of every call's
 * latency. Built as subclasses whose prototype already is `app.request` / `app.response`, the objects are the
 * same and Express's swap finds nothing to change (V8 returns early when the prototype is unchanged).
 *
 * Mounting another Express app (app.use(subApp)) would swap prototypes again for its requests; routers do not.
 */
export function createAppServer(app: Express): Server {
  class AppRequest extends IncomingMessage {}
  class AppResponse extends ServerResponse<AppRequest> {}
  // Once per app, on the classes' prototype objects: the chain becomes AppRequest.prototype → Express's request
  // methods → IncomingMessage.prototype, so nothing of Express's or Node's is lost.
  Object.setPrototypeOf(AppRequest.prototype, app.request);
  Object.setPrototypeOf(AppResponse.prototype, app.response);
  app.request = AppRequest.prototype as unknown as Express['request'];
  app.response = AppResponse.prototype as unknown as Express['response'];
  return createServer({ IncomingMessage: AppRequest, ServerResponse: AppResponse }, app);
}

import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How a route of a RouteStub answers. */
export type Route = (res: ServerResponse) => void;

/**
 * A small HTTP server on one loopback address answering fixed routes (the path, without its query), recording
 * every path it is asked for: what a test needs to see where a client went, and where it did not.
 */
export class RouteStub {
  readonly seen: string[] = [];
  server!: Server;
  port = 0;
  constructor(
    readonly host: string,
    readonly routes: Record<string, Route>,
  ) {}

  get origin(): string {
    return `http://${this.host}:${this.port}`;
  }

  async listen(): Promise<void> {
    this.server = createServer((req, res) => {
      this.seen.push(req.url ?? '');
      const route = this.routes[(req.url ?? '/').split('?')[0]!];
      if (route) route(res);
      else res.writeHead(404).end('not here');
    });
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, this.host, () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A route answering 302 to where `location` says when asked (the stubs' ports are known only once they listen). */
export const redirect =
  (location: () => string): Route =>
  (res) =>
    res.writeHead(302, { location: location() }).end();

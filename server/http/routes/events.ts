import { Router } from 'express';
import type { Credentials } from '../../auth/credentials.js';
import type { EventBus, GatewayEvents } from '../../events/bus.js';
import { identityOf } from '../identity.js';

const HEARTBEAT_MS = 15_000;

/** The events a stream carries, each under its own SSE event name. */
const STREAMED = ['call', 'approval', 'tools', 'rules', 'output', 'notify'] as const satisfies readonly (keyof GatewayEvents)[];

/** Server-Sent Events: calls, tool changes, live output and notifications as they happen. */
export function eventRoutes(events: EventBus, version: string, credentials: Credentials): Router {
  const router = Router();

  router.get('/events', (req, res) => {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.write(`retry: 2000\nevent: hello\ndata: ${JSON.stringify({ version })}\n\n`);

    const listeners = STREAMED.map((name) => {
      const listener = (data: unknown) => res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
      events.on(name, listener);
      return [name, listener] as const;
    });
    const onClosing = () => res.end();
    events.once('closing', onClosing);

    // Security: a token's rights are checked when a request starts, and a stream lasts for days. When the client's
    // token is revoked (here, or by the CLI, seen at the next heartbeat), its stream ends.
    const who = identityOf(res);
    const issue = who.kind === 'client' ? credentials.clientIssue(who.name) : undefined;
    const revoked = () => who.kind === 'client' && credentials.clientIssue(who.name) !== issue;
    const onClients = ({ reason }: { reason: string }) => {
      if (reason === `client:${who.name}` && revoked()) res.end();
    };
    if (who.kind === 'client') events.on('tools', onClients);
    // Comments keep proxies and idle timers from closing a quiet stream.
    const heartbeat = setInterval(() => (revoked() ? res.end() : res.write(': keep-alive\n\n')), HEARTBEAT_MS);
    heartbeat.unref();

    req.socket.setTimeout(0);
    res.once('close', () => {
      clearInterval(heartbeat);
      for (const [name, listener] of listeners) events.off(name, listener);
      events.off('closing', onClosing);
      events.off('tools', onClients);
    });
  });

  return router;
}

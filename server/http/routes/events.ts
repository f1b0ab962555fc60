import { Router } from 'express';
import type { Credentials } from '../../auth/credentials.js';
import { GatewayError } from '../../errors.js';
import type { StreamEvents } from '../../contract/events.js';
import type { EventBus } from '../../events/bus.js';
import { callView, type ScopesOf } from '../call-privacy.js';
import type { EventStreams } from '../event-streams.js';
import { identityOf } from '../identity.js';

/** Server-Sent Events: calls, tool changes, live output and notifications as they happen. */
export function eventRoutes(
  events: EventBus,
  streams: EventStreams,
  version: string,
  credentials: Credentials,
  scopesOf: ScopesOf,
): Router {
  const router = Router();

  router.get('/events', (req, res, next) => {
    const who = identityOf(res);
    if (who.kind === 'client' && streams.openBy(who.name) >= streams.limits.maxPerClient) {
      const most = streams.limits.maxPerClient;
      next(new GatewayError('TOO_MANY_STREAMS', `Client "${who.name}" already has ${most} event streams open, the most one client may; close one first.`, { limit: most }));
      return;
    }
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });

    // Security: a token's rights are checked when a request starts, and a stream lasts for days. When the client's
    // token is revoked (here, or by the CLI, seen at the next heartbeat), its stream ends.
    const issue = who.kind === 'client' ? credentials.clientIssue(who.name) : undefined;
    const revoked = () => who.kind === 'client' && credentials.clientIssue(who.name) !== issue;
    // Subscribed before "hello" is written: a reader that has seen hello misses nothing after it.
    // Security: a client limited to its own calls gets no event about another client's call, and one limited to its
    // own memories gets other clients' memory calls without their arguments preview, as GET /calls shows them;
    // asked at every batch, so a change of its scopes applies at once.
    const end = streams.add(res, revoked, () => callView(who, scopesOf));
    res.write(`retry: 2000\nevent: hello\ndata: ${JSON.stringify({ version } satisfies StreamEvents['hello'])}\n\n`);

    if (who.kind === 'client') {
      const onClients = ({ reason }: { reason: string }) => {
        if (reason === `client:${who.name}` && revoked()) end();
      };
      events.on('tools', onClients);
      res.once('close', () => events.off('tools', onClients));
    }
    // The server's idle timeout is for connections between requests; a quiet stream is not idle.
    req.socket.setTimeout(0);
  });

  return router;
}

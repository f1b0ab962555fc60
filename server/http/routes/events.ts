import { Router } from 'express';
import type { EventBus, GatewayEvents } from '../../events/bus.js';

const HEARTBEAT_MS = 15_000;

/** Server-Sent Events: `call` and `tools` as they happen. */
export function eventRoutes(events: EventBus, version: string): Router {
  const router = Router();

  router.get('/events', (req, res) => {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.write(`retry: 2000\nevent: hello\ndata: ${JSON.stringify({ version })}\n\n`);

    const send = (event: keyof GatewayEvents, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    const onCall = (data: GatewayEvents['call'][0]) => send('call', data);
    const onTools = (data: GatewayEvents['tools'][0]) => send('tools', data);
    const onClosing = () => res.end();
    events.on('call', onCall);
    events.on('tools', onTools);
    events.once('closing', onClosing);
    // Comments keep proxies and idle timers from closing a quiet stream.
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
    heartbeat.unref();

    req.socket.setTimeout(0);
    res.once('close', () => {
      clearInterval(heartbeat);
      events.off('call', onCall);
      events.off('tools', onTools);
      events.off('closing', onClosing);
    });
  });

  return router;
}

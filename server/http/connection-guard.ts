import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Security: connections that never send a request must not crowd out the ones that do.
 *
 * Node's maxConnections alone refuses every new connection once the cap is reached, so a flood of silent sockets
 * would lock everyone out until its sockets time out, and could start again. Here, when the connections come near
 * the cap, the oldest connection that has not sent a complete request head yet is closed to make room for the new
 * one. Connections that are answering a request or carrying a stream are never touched (nor those between requests
 * on keep-alive: they close after the keep-alive timeout); only when none is silent does the cap refuse newcomers.
 */
export function makeRoomForNewConnections(server: Server, maxConnections: number): void {
  // Evicted sockets close a moment later: this many places stay free for the connections arriving meanwhile.
  const headroom = Math.max(1, Math.min(64, Math.floor(maxConnections / 10)));
  const room = maxConnections - headroom;
  /** Connections without a complete request head yet, oldest first (a Set keeps insertion order). */
  const silent = new Set<Socket>();
  const evicted = new WeakSet<Socket>();
  let open = 0;

  server.on('connection', (socket: Socket) => {
    open++;
    socket.once('close', () => {
      if (!evicted.has(socket)) open--;
      silent.delete(socket);
    });
    while (open > room && silent.size > 0) {
      const oldest: Socket = silent.values().next().value!;
      silent.delete(oldest);
      evicted.add(oldest);
      open--;
      oldest.destroy();
    }
    silent.add(socket);
  });
  server.on('request', (req: { socket: Socket }) => {
    silent.delete(req.socket);
  });
}

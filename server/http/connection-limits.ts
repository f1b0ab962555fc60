import { readFileSync } from 'node:fs';

/**
 * How many connections the gateway holds, and for how long one may take to say what it wants.
 *
 * Every connection is a file descriptor, and so are the database, the pipes of every tool process, outgoing
 * requests and plugin files. Idle sockets must never use them all up: then nothing works, not even for the owner.
 */
export interface ConnectionLimits {
  /**
   * Node's server.maxConnections: beyond it new connections are closed as they arrive. Near it, the oldest
   * connection that has not sent a request yet is closed to make room instead (connection-guard.ts).
   */
  maxConnections: number;
  /** A connection that has not sent a complete request head within this is answered 408 and closed. */
  headersTimeoutMs: number;
  /** The same for the whole request, head and body (a body is at most the body limit, 1 MiB by default). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** How often the server looks for connections past those timeouts. */
  checkIntervalMs: number;
}

/**
 * Where the open-file limit cannot be read (macOS, Windows: no /proc). Node raises its soft limit to the hard one
 * at start on POSIX (to about ten thousand on macOS); Windows has no such limit on sockets. A thousand connections
 * stays well below either, and is far more than a desktop's assistants open.
 */
const FALLBACK_MAX_CONNECTIONS = 1024;
/** Descriptors kept for everything that is not an HTTP connection, at the least. */
const MIN_RESERVED_FDS = 64;

/**
 * The soft limit on open files of this process, from /proc/self/limits (Linux); undefined where it cannot be read.
 *
 * Node has no setrlimit, and does not need one here: at start it raises its own soft limit to the hard limit, so
 * the soft limit read here already is the highest this process may have (raising the hard limit takes privileges
 * the gateway should not have; `ulimit -Hn` before starting it is the way). So the cap is sized from the limit as
 * it is rather than by trying to change it.
 */
export function openFileLimit(read: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number | undefined {
  let text: string;
  try {
    text = read();
  } catch {
    return undefined;
  }
  const line = text.split('\n').find((l) => l.startsWith('Max open files'));
  const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
  if (soft === 'unlimited') return Number.MAX_SAFE_INTEGER;
  const n = Number(soft);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** Half the descriptors for connections, the other half for the database, tools and everything else. */
export function maxConnectionsFor(fdLimit: number | undefined): number {
  if (fdLimit === undefined) return FALLBACK_MAX_CONNECTIONS;
  return Math.max(1, Math.min(Math.floor(fdLimit / 2), fdLimit - MIN_RESERVED_FDS));
}

export function defaultConnectionLimits(fdLimit = openFileLimit()): ConnectionLimits {
  return {
    maxConnections: maxConnectionsFor(fdLimit),
    // Security: a connection that says nothing (or a header a second, slowloris) holds a descriptor; it gets 10 s
    // to send its request head, checked every second, instead of Node's 60 s checked every 30 s.
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    // Node's default. Undici (fetch) drops idle connections after 4 s itself, so it never reuses one closed here.
    keepAliveTimeoutMs: 5_000,
    checkIntervalMs: 1_000,
  };
}

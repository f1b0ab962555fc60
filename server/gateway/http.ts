/** The gateway's HTTP side: the app with its routes and streams, opening the port, and the ordered stop. */
import type { AddressInfo } from 'node:net';
import { loginCommand } from '../config/pincer-command.js';
import { urlHost } from '../config/config.js';
import { EventBus } from '../events/bus.js';
import { Executor } from '../executor/executor.js';
import { createHttpApp, type HttpDeps } from '../http/app.js';
import { createAppServer } from '../http/server.js';
import { defaultConnectionLimits } from '../http/connection-limits.js';
import { EventStreams } from '../http/event-streams.js';
import { gatewayOrigins } from '../http/guards.js';
import { ProcessRunner } from '../process/index.js';
import { DataDirLock, HistoryRetention, type Store } from '../store/index.js';
import { McpSessions } from '../mcp/sessions.js';
import { VERSION } from '../version.js';
import type { GatewayOptions } from './options.js';
import { RevocationWatch } from './revocations.js';
import type { DataFolder, Endpoint, Tools } from './parts.js';
import type { ToolSources } from './sources.js';

export type HttpApp = ReturnType<typeof createHttpApp>;

/** The HTTP app: its routes, the GET /events streams and the MCP endpoint. The port opens in listen(). */
export function buildHttp(
  options: GatewayOptions,
  parts: Omit<HttpDeps, 'version' | 'sandbox' | 'clientAuth' | 'bodyLimitBytes' | 'chatBodyLimitBytes' | 'ollamaProxy' | 'jsonMaxDepth' | 'dashboardDir' | 'origins' | 'streams' | 'mcp' | 'mcpServers' | 'sources'>,
  tools: Tools,
  sources: ToolSources,
  endpoint: Endpoint,
) {
  const { config } = options;
  const streams = new EventStreams(parts.events, options.streamLimits, (callId) => parts.executor.clientOf(callId));
  const mcp = new McpSessions(
    {
      registry: parts.registry,
      executor: parts.executor,
      access: parts.access,
      resources: sources.mcpServers,
      version: VERSION,
      ...(options.mcpProgressIntervalMs && { progressIntervalMs: options.mcpProgressIntervalMs }),
      ...(options.mcpTaskTtlMs && { taskTtlMs: options.mcpTaskTtlMs }),
    },
    parts.events,
  );
  // Security: what a client's token started ends when the token is revoked.
  new RevocationWatch({ clients: parts.store.clients, executor: parts.executor, approvals: parts.approvals, mcp, llm: parts.llm, events: parts.events });
  const { app, direct } = createHttpApp({
    ...parts,
    streams,
    version: VERSION,
    sandbox: tools.builtins.sandbox,
    clientAuth: config.clientAuth,
    bodyLimitBytes: config.bodyLimitBytes,
    chatBodyLimitBytes: config.chatBodyLimitBytes,
    ollamaProxy: () => config.ollamaProxy,
    jsonMaxDepth: config.jsonMaxDepth,
    dashboardDir: config.dashboardDir,
    loginCommand: loginCommand(config.dataDir),
    origins: () => endpoint.origins,
    mcp,
    mcpServers: sources.mcpServers,
    sources: sources.all,
  });
  return { app, direct, streams };
}

/** Opens the port (once); the address is published in the data folder's lock for `pincer` commands to find. */
export async function listen(options: GatewayOptions, http: HttpApp, folder: DataFolder, endpoint: Endpoint): Promise<{ host: string; port: number; url: string }> {
  if (endpoint.address) return endpoint.address;
  const { config } = options;
  // Receiving a request (headers and body, at most 1 MiB) is bounded, so a client that never stops sending
  // cannot hold a connection; answering is not: a slow tool or an approval can take minutes.
  const server = createAppServer(http.app, { ...defaultConnectionLimits(), ...options.connectionLimits }, http.direct);
  endpoint.server = server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  endpoint.port = port;
  endpoint.origins = gatewayOrigins(config.host, port, config.allowedHosts);
  endpoint.address = { host: config.host, port, url: `http://${urlHost(config.host)}:${port}` };
  folder.lock.publish(endpoint.address.url);
  return endpoint.address;
}

/**
 * Stops in order: no new calls, running ones finish (or are recorded cancelled), tool sources and every child
 * process end, answers still being written go out, the port closes, then the database, and last the folder's lock.
 */
export async function closeGateway(
  graceMs: number,
  parts: {
    endpoint: Endpoint;
    executor: Executor;
    sources: ToolSources;
    processes: ProcessRunner;
    stopSweeping: () => void;
    retention: HistoryRetention;
    events: EventBus;
    store: Store;
    lock: DataDirLock;
  },
): Promise<void> {
  const { server } = parts.endpoint;
  const serverClosed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
  server?.closeIdleConnections();
  await parts.executor.shutdown(graceMs);
  await parts.sources.all.stop();
  // Whatever is still running was not started for a call (or outlived it): it ends with the gateway.
  await parts.processes.stopAll();
  parts.stopSweeping();
  parts.retention.stop();
  // Answers to the calls that just finished are still being written: let them go out, end the event streams,
  // and only then cut whatever connection is left.
  parts.events.emit('closing');
  server?.closeIdleConnections();
  let cutOff: NodeJS.Timeout | undefined;
  await Promise.race([serverClosed, new Promise((resolve) => (cutOff = setTimeout(resolve, 1000)))]);
  clearTimeout(cutOff);
  server?.closeAllConnections();
  await serverClosed;
  try {
    parts.store.close();
  } finally {
    // Last: until the database is closed, the folder is still this gateway's.
    parts.lock.release();
  }
}

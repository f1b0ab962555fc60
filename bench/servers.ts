/**
 * The servers the benchmark measures, one per child process so the load generator never shares their event loop.
 *
 *   node dist/bench/servers.js http                 bare Node http answering fixed JSON (the ceiling)
 *   node dist/bench/servers.js express              bare Express 5 + express.json() answering fixed JSON (the bar)
 *   node dist/bench/servers.js pincer <data-dir>    a real gateway (createGateway) on that data directory
 *   node dist/bench/servers.js http-tools <data-dir> bare Node http answering GET /tools/openai with the list the
 *                                                    default client gets from Pincer, built (mapped and serialised)
 *                                                    on every request: the ceiling for Pincer's tool list
 *
 * Protocol (stdout, one JSON object per line):
 *   on ready:    {"ready":true,"mode":…,"port":N,"pid":N[,"token":"…"]}
 *   on SIGTERM:  pincer: {"history_rows":N,"succeeded":N,"failed":N,"denied":N} (counted after the gateway closed,
 *                from the database reopened), others: {"stopped":true}; then exit 0.
 * Extra modes for `bench/pieces.ts` (the pipeline measured in pieces):
 *   node dist/bench/servers.js express-mw <data-dir>            Express + Pincer's HTTP middleware (security
 *                                                                headers, host/origin guards, JSON body, token auth)
 *                                                                answering fixed JSON: no executor, no recording
 *   node dist/bench/servers.js pincer <data-dir> --no-record     the real gateway with store.calls.save a no-op
 *   node dist/bench/servers.js pincer <data-dir> --stub-executor the real HTTP app, executor.execute answering a
 *                                                                fixed outcome (routing + execute route only)
 * The child exits by itself when its stdin closes, so a crashed parent never leaves a server behind.
 * Every server listens on 127.0.0.1 only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { createGateway, loadConfig, type Gateway } from '../server/index.js';
import { Credentials } from '../server/auth/credentials.js';
import { jsonBody } from '../server/http/body.js';
import { createAppServer } from '../server/http/server.js';
import { gatewayOrigins, hostGuard, originGuard, securityHeaders, type Origins } from '../server/http/guards.js';
import { identify } from '../server/http/identity.js';
import { openStore } from '../server/store/index.js';
import { toOpenAITool } from '../server/tools/formats.js';
import { BENCH_PATH, FIXED_RESULT, LOOPBACK, TOOLS_PATH } from './common.js';

function send(message: Record<string, unknown>, then?: () => void): void {
  process.stdout.write(`${JSON.stringify(message)}\n`, then);
}

function fail(message: string): never {
  process.stderr.write(`bench server: ${message}\n`);
  process.exit(1);
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

async function bareHttp(): Promise<() => Promise<Record<string, unknown>>> {
  const body = Buffer.from(JSON.stringify(FIXED_RESULT));
  const server = createServer((_req, res) => {
    // The request body is left to Node, which discards what the handler does not read.
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
  const port = await listen(server);
  send({ ready: true, mode: 'http', port, pid: process.pid });
  return async () => {
    await closeServer(server);
    return { stopped: true };
  };
}

async function bareExpress(): Promise<() => Promise<Record<string, unknown>>> {
  const app = express();
  app.use(express.json());
  app.post(BENCH_PATH, (_req, res) => {
    res.json(FIXED_RESULT);
  });
  // Stock Express, as its guide starts a server: each request's prototype is swapped by app.handle. Pincer creates
  // its requests with the app's prototypes instead (server/http/server.ts); the bar compares against the stock way.
  const server = createServer(app);
  const port = await listen(server);
  send({ ready: true, mode: 'express', port, pid: process.pid });
  return async () => {
    await closeServer(server);
    return { stopped: true };
  };
}

async function bareHttpToolList(dataDir: string | undefined): Promise<() => Promise<Record<string, unknown>>> {
  if (!dataDir) fail('http-tools mode needs a data directory argument');
  // A gateway that never listens, only to hold the same registered tools the Pincer target lists.
  const gateway = createGateway({ config: loadConfig({ flags: { dataDir, port: 0 }, env: {} }) });
  const { tools } = gateway.access.visible(gateway.registry, 'default', false);
  const server = createServer((req, res) => {
    if (req.url !== TOOLS_PATH) {
      res.writeHead(404).end();
      return;
    }
    const body = Buffer.from(JSON.stringify({ tools: tools.map(toOpenAITool) }));
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
  const port = await listen(server);
  send({ ready: true, mode: 'http-tools', port, pid: process.pid });
  return async () => {
    await closeServer(server);
    await gateway.close(1000);
    return { stopped: true };
  };
}

async function expressWithPincerMiddleware(dataDir: string | undefined): Promise<() => Promise<Record<string, unknown>>> {
  if (!dataDir) fail('express-mw mode needs a data directory argument');
  // A folder to share: started from the package folder, the gateway shares none, and run_shell would be refused.
  const root = mkdtempSync(join(tmpdir(), 'pincer-bench-root-'));
  const config = loadConfig({ flags: { dataDir, port: 0 }, env: { PINCER_ROOTS: root } });
  const store = openStore(join(dataDir, 'pincer.db'));
  const credentials = new Credentials({ dataDir, store, token: undefined });
  let origins: Origins = { hosts: new Set(), origins: new Set() };
  // The same app settings and middleware, in the same order, as server/http/app.ts up to the routes (a replica:
  // keep it in step when app.ts changes its middleware).
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(securityHeaders);
  app.use(hostGuard(() => origins));
  app.use(originGuard(() => origins));
  app.use(identify(credentials, true, () => origins.origins));
  app.use(jsonBody(config.bodyLimitBytes, config.jsonMaxDepth));
  app.post(BENCH_PATH, (_req, res) => {
    res.json(FIXED_RESULT);
  });
  const server = createAppServer(app);
  const port = await listen(server);
  origins = gatewayOrigins(LOOPBACK, port, []);
  send({ ready: true, mode: 'express-mw', port, pid: process.pid, token: credentials.defaultToken });
  return async () => {
    await closeServer(server);
    store.close();
    return { stopped: true };
  };
}

async function pincer(dataDir: string | undefined, flags: string[]): Promise<() => Promise<Record<string, unknown>>> {
  if (!dataDir) fail('pincer mode needs a data directory argument');
  // Measurement only: the same gateway without the OS sandbox around run_shell and run_python.
  if (flags.includes('--no-sandbox')) process.env.PINCER_SANDBOX = 'off';
  // A folder to share: started from the package folder, the gateway shares none, and run_shell would be refused.
  const root = mkdtempSync(join(tmpdir(), 'pincer-bench-root-'));
  const config = loadConfig({ flags: { dataDir, port: 0 }, env: { PINCER_ROOTS: root } });
  if (config.host !== LOOPBACK) fail(`refusing to listen on ${config.host}: the benchmark stays on ${LOOPBACK}`);
  const gateway: Gateway = createGateway({ config });
  if (flags.includes('--no-record')) {
    // Measurement only: everything but the SQLite write (a call is written once when it finishes, and once more
    // before that only if it runs long or waits for the owner).
    gateway.store.calls.save = () => {};
    gateway.store.calls.saveSoon = () => Promise.resolve();
  }
  if (flags.includes('--stub-executor')) {
    // Measurement only: the whole HTTP app and the execute route, with the executor answering a fixed outcome.
    let n = 0;
    gateway.executor.execute = async () => {
      const callId = `c_bench${++n}`;
      return {
        callId,
        status: 'succeeded',
        httpStatus: 200,
        envelope: { success: true, result: FIXED_RESULT.result, duration_ms: 0.01, cached: false, call_id: callId },
      };
    };
  }
  const { port } = await gateway.listen();
  send({ ready: true, mode: 'pincer', port, pid: process.pid, token: gateway.credentials.defaultToken });
  return async () => {
    // Close first (running calls finish and are recorded), then count from the database as a new reader sees it.
    await gateway.close(5000);
    rmSync(root, { recursive: true, force: true });
    const store = openStore(join(dataDir, 'pincer.db'));
    try {
      const stats = store.calls.toolStats('calculate');
      return { history_rows: store.calls.count(), succeeded: stats.succeeded, failed: stats.failed, denied: stats.denied };
    } finally {
      store.close();
    }
  };
}

const [mode, dataDir, ...flags] = process.argv.slice(2);
const modes: Record<string, () => Promise<() => Promise<Record<string, unknown>>>> = {
  http: bareHttp,
  'http-tools': () => bareHttpToolList(dataDir),
  express: bareExpress,
  'express-mw': () => expressWithPincerMiddleware(dataDir),
  pincer: () => pincer(dataDir, flags),
};
const start = mode === undefined ? undefined : modes[mode];
if (!start) fail(`unknown mode "${mode ?? ''}"; use ${Object.keys(modes).join(', ')}`);

process.stdin.on('end', () => process.exit(1));
process.stdin.on('error', () => process.exit(1));
process.stdin.resume();

start().then(
  (stop) => {
    let stopping = false;
    process.on('SIGTERM', () => {
      if (stopping) return;
      stopping = true;
      stop().then(
        (report) => send(report, () => process.exit(0)),
        (error: unknown) => fail(`error while stopping: ${(error as Error).stack ?? String(error)}`),
      );
    });
  },
  (error: unknown) => fail(`could not start ${mode}: ${(error as Error).stack ?? String(error)}`),
);

/**
 * The live-event and tool-list parts of `npm run bench` (docs/development.md, "Benchmarks": live events):
 *
 *   events  one Pincer child: calculate @32 with no viewer, then with 20 GET /events viewers open (the ratio of the
 *           two is the bar); then 200 viewers while calls come at a steady 200/s (open loop): every viewer must get
 *           every call's two events, and the calls' p99 stays under the bar.
 *   tools   GET /tools/openai @32 against a bare Node http server that builds the same list on every request.
 *
 * The viewers run in their own child (dist/bench/viewers.js), so reading the streams takes neither the server's
 * nor the load generator's event loop; on a 2-core machine they still share the cores, as a browser would.
 */
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { makeTempDir, removeTempDir, spawnTracked, startServer, stopChild, type ServerChild } from './children.js';
import { BENCH_BODY, BENCH_PATH, cleanEnv, sleep, TOOLS_PATH } from './common.js';
import { probe, runAutocannon, runPaced, withServerCpu, type Counts, type LoadResult, type LoadTarget, type PacedResult, type WithCpu } from './load.js';

export interface BenchTiming {
  duration: number;
  warmup: number;
}

const progress = (line: string) => process.stderr.write(`bench: ${line}\n`);

// ---------- the viewers child ----------

export interface ViewerCounts {
  bytes: number;
  calls: number;
  succeeded: number;
  resets: number;
  ended: boolean;
}

const VIEWERS_SCRIPT = fileURLToPath(new URL('./viewers.js', import.meta.url));

interface Viewers {
  pid: number;
  report(): Promise<ViewerCounts[]>;
  stop(): Promise<void>;
}

async function openViewers(server: ServerChild, count: number, mode: 'bytes' | 'events'): Promise<Viewers> {
  const child: ChildProcess = spawnTracked(process.execPath, [VIEWERS_SCRIPT, String(server.port), server.token ?? '', String(count), mode], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: cleanEnv(),
  });
  const waiting: ((message: Record<string, unknown>) => boolean)[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
    } catch {
      process.stderr.write(`[viewers] ${line}\n`);
      return;
    }
    const index = waiting.findIndex((accept) => accept(message));
    if (index >= 0) waiting.splice(index, 1);
  });
  const next = <T>(key: string, timeoutMs: number) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`viewers: no "${key}" line within ${timeoutMs} ms`)), timeoutMs);
      const onExit = (code: number | null) => {
        clearTimeout(timer);
        reject(new Error(`viewers exited (code ${code}) before "${key}"`));
      };
      child.once('close', onExit);
      waiting.push((message) => {
        if (!(key in message)) return false;
        clearTimeout(timer);
        child.removeListener('close', onExit);
        resolve(message[key] as T);
        return true;
      });
    });
  try {
    await next('ready', 30_000);
  } catch (error) {
    await stopChild(child, 'SIGKILL', 1000);
    throw error;
  }
  return {
    pid: child.pid!,
    report() {
      const answer = next<ViewerCounts[]>('report', 10_000);
      child.stdin!.write('report\n');
      return answer;
    },
    async stop() {
      child.stdin!.end();
      await stopChild(child, 'SIGTERM', 5000);
    },
  };
}

function calculateTarget(server: ServerChild): LoadTarget {
  return {
    port: server.port,
    path: BENCH_PATH,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}` },
    body: BENCH_BODY,
  };
}

async function expectCalculate(target: LoadTarget, label: string): Promise<void> {
  const first = await probe(target);
  const answer = first.body as { success?: unknown; result?: { result?: unknown } } | undefined;
  if (first.status !== 200 || answer?.success !== true || answer.result?.result !== 9) {
    throw new Error(`${label}: the probe request got ${first.status} ${JSON.stringify(first.body)}`);
  }
}

// ---------- events ----------

export interface ViewersSummary {
  viewers: number;
  /** Calls answered 2xx while the viewers were open: each must reach every viewer as started + succeeded. */
  expectedCalls: number;
  minBytes: number;
  minCallEvents: number;
  minSucceeded: number;
  maxCallEvents: number;
  resets: number;
  ended: number;
  /** Every viewer got every call's two events, none was reset or ended. */
  complete: boolean;
  /** How long after the last answer the last event reached the last viewer (at most the wait limit). */
  settleMs: number;
}

export interface EventsResult {
  warmup: WithCpu<LoadResult>;
  noViewers: WithCpu<LoadResult>;
  withViewers: WithCpu<LoadResult>;
  viewers20: ViewersSummary;
  paced: WithCpu<PacedResult>;
  viewers200: ViewersSummary;
  exit: { code: number | null; signal: string | null; killed: boolean };
}

function summarizeViewers(counts: ViewerCounts[], expectedCalls: number, settleMs: number, eventsCounted: boolean): ViewersSummary {
  const min = (f: (c: ViewerCounts) => number) => Math.min(...counts.map(f));
  const resets = counts.reduce((n, c) => n + c.resets, 0);
  const ended = counts.filter((c) => c.ended).length;
  const summary = {
    viewers: counts.length,
    expectedCalls,
    minBytes: min((c) => c.bytes),
    minCallEvents: min((c) => c.calls),
    minSucceeded: min((c) => c.succeeded),
    maxCallEvents: Math.max(...counts.map((c) => c.calls)),
    resets,
    ended,
    settleMs,
  };
  const complete = eventsCounted
    ? counts.every((c) => c.calls === 2 * expectedCalls && c.succeeded === expectedCalls) && resets === 0 && ended === 0
    : summary.minBytes > 0 && resets === 0 && ended === 0;
  return { ...summary, complete };
}

/** Live events: 0 vs 20 viewers at 32 clients, then 200 viewers at a steady 200 calls/s. */
export async function benchEvents(timing: BenchTiming, pacedRate = 200): Promise<EventsResult> {
  const dataDir = makeTempDir('pincer-bench-events-');
  const server = await startServer('pincer', [dataDir]);
  let stopped: Awaited<ReturnType<ServerChild['stop']>> | undefined;
  try {
    const target = calculateTarget(server);
    await expectCalculate(target, 'events');
    const cpu = <T extends Counts>(run: () => Promise<T>, viewers?: Viewers) => withServerCpu(server.pid, run, viewers ? [viewers.pid] : []);
    progress(`events (pid ${server.pid}): warm-up ${timing.warmup} s @32`);
    const warmup = await cpu(() => runAutocannon(target, 32, timing.warmup));
    progress(`events: ${timing.duration} s @32, no viewer`);
    const noViewers = await cpu(() => runAutocannon(target, 32, timing.duration));

    const twenty = await openViewers(server, 20, 'bytes');
    let viewers20: ViewersSummary;
    let withViewers: WithCpu<LoadResult>;
    try {
      progress(`events: ${timing.duration} s @32, 20 viewers open`);
      withViewers = await cpu(() => runAutocannon(target, 32, timing.duration), twenty);
      await sleep(200);
      viewers20 = summarizeViewers(await twenty.report(), withViewers.ok2xx, 200, false);
    } finally {
      await twenty.stop();
    }

    // The last batch of the run before goes out before the new viewers connect.
    await sleep(300);
    const many = await openViewers(server, 200, 'events');
    let viewers200: ViewersSummary;
    let paced: WithCpu<PacedResult>;
    try {
      progress(`events: ${timing.duration} s of calls at ${pacedRate}/s, 200 viewers open`);
      paced = await cpu(() => runPaced(target, pacedRate, timing.duration), many);
      const t0 = Date.now();
      let counts = await many.report();
      while (!counts.every((c) => c.succeeded >= paced.ok2xx) && Date.now() - t0 < 10_000) {
        await sleep(100);
        counts = await many.report();
      }
      viewers200 = summarizeViewers(counts, paced.ok2xx, Date.now() - t0, true);
    } finally {
      await many.stop();
    }
    const result = { warmup, noViewers, withViewers, viewers20, paced, viewers200 };
    stopped = await server.stop();
    return { ...result, exit: stopped.exit };
  } finally {
    if (!stopped) await server.stop();
    removeTempDir(dataDir);
  }
}

// ---------- tool lists ----------

export interface ToolListResult {
  bytes: number;
  ceiling: { warmup: WithCpu<LoadResult>; c32: WithCpu<LoadResult> };
  pincer: { warmup: WithCpu<LoadResult>; c32: WithCpu<LoadResult> };
}

/** GET /tools/openai @32: Pincer against bare Node http building the same list on every request. */
export async function benchToolList(timing: BenchTiming): Promise<ToolListResult> {
  const ceilingDir = makeTempDir('pincer-bench-tools-http-');
  const pincerDir = makeTempDir('pincer-bench-tools-');
  const ceiling = await startServer('http-tools', [ceilingDir]);
  const pincer = await startServer('pincer', [pincerDir]).catch(async (error: unknown) => {
    await ceiling.stop();
    throw error;
  });
  try {
    const targets = [ceiling, pincer].map((server) => ({
      server,
      target: {
        port: server.port,
        path: TOOLS_PATH,
        // Same request bytes for both: the bare server ignores the token.
        headers: { authorization: `Bearer ${pincer.token}` },
        body: undefined,
      } satisfies LoadTarget,
    }));
    const [fromCeiling, fromPincer] = await Promise.all(targets.map(({ target }) => probe(target)));
    if (fromPincer!.status !== 200 || JSON.stringify(fromPincer!.body) !== JSON.stringify(fromCeiling!.body)) {
      throw new Error(`tools: the two servers list different tools (${fromPincer!.status}, ${fromPincer!.bytes} vs ${fromCeiling!.bytes} bytes)`);
    }
    const runs = [];
    for (const { server, target } of targets) {
      const label = server === pincer ? 'Pincer' : 'bare http';
      const cpu = <T extends Counts>(run: () => Promise<T>) => withServerCpu(server.pid, run);
      progress(`tools: ${label} GET ${TOOLS_PATH}: warm-up ${timing.warmup} s, then ${timing.duration} s @32`);
      const warmup = await cpu(() => runAutocannon(target, 32, timing.warmup));
      const c32 = await cpu(() => runAutocannon(target, 32, timing.duration));
      runs.push({ warmup, c32 });
    }
    return { bytes: fromPincer!.bytes, ceiling: runs[0]!, pincer: runs[1]! };
  } finally {
    await Promise.all([ceiling.stop(), pincer.stop()]);
    removeTempDir(ceilingDir);
    removeTempDir(pincerDir);
  }
}

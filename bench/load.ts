/**
 * Load generation: autocannon for concurrent load, a plain sequential http.request loop for one-client latency.
 *
 * Exact accounting: autocannon normally ends a run by destroying its sockets, which drops the requests still in
 * flight (the server may well have executed them). Here the run is ended by draining instead: when the measurement
 * window closes, every client is told to stop after the response it is waiting for, so every request sent is
 * answered (or shows up as an error) and the client-side counts can be compared exactly with the server's history.
 * Throughput counts only responses inside the window; latencies are taken from every response at full hrtime
 * precision (autocannon's own histogram has 1 ms resolution, kept alongside for reference).
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { cpuTimeMs, LOOPBACK, machineBusyMs, summarize, type LatencySummary } from './common.js';

export interface LoadTarget {
  port: number;
  path: string;
  headers: Record<string, string>;
  /** The request body; undefined makes the request a GET. */
  body: string | undefined;
}

export interface Counts {
  /** Requests written to the server. */
  sent: number;
  /** Responses received, any status. */
  responses: number;
  ok2xx: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  /** Connection errors and timeouts. */
  errors: number;
  /** sent − responses: requests whose fate the client never learnt (0 after a clean drain). */
  unanswered: number;
}

export interface LoadResult extends Counts {
  kind: 'autocannon';
  connections: number;
  /** The measurement window in seconds (the drain after it is not counted). */
  windowSeconds: number;
  /** Responses completed inside the window, per second. */
  requestsPerSecond: number;
  latencyMs: LatencySummary;
  /** autocannon's own histogram (integer milliseconds), for reference. */
  autocannonLatencyMs: { p50: number; p99: number; max: number };
  timeouts: number;
  drainMs: number;
}

interface DrainableClient {
  reqsMade: number;
  responseMax: number | undefined;
}

function emptyCounts(): Counts {
  return { sent: 0, responses: 0, ok2xx: 0, non2xx: 0, statusCodes: {}, errors: 0, unanswered: 0 };
}

/** Loads `target` with `connections` keep-alive connections for `seconds`, then drains. */
export function runAutocannon(target: LoadTarget, connections: number, seconds: number): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const clients: DrainableClient[] = [];
    const latencies: number[] = [];
    const counts = emptyCounts();
    let windowResponses = 0;
    let windowOpen = true;
    let windowEnd = 0;
    let drainTimer: NodeJS.Timeout | undefined;

    const started = performance.now();
    const instance = autocannon(
      {
        url: `http://${LOOPBACK}:${target.port}${target.path}`,
        method: target.body === undefined ? 'GET' : 'POST',
        headers: target.headers,
        ...(target.body !== undefined && { body: target.body }),
        connections,
        pipelining: 1,
        // The run is ended by the drain below; autocannon's own clock is only a backstop.
        duration: seconds + 60,
        sampleInt: 100,
        timeout: 10,
        setupClient: (client) => {
          clients.push(client as unknown as DrainableClient);
        },
      },
      (error, result) => {
        clearTimeout(windowTimer);
        clearTimeout(drainTimer);
        if (error) return reject(error instanceof Error ? error : new Error(String(error)));
        if (windowOpen) {
          windowOpen = false;
          windowEnd = performance.now();
        }
        const windowSeconds = (windowEnd - started) / 1000;
        counts.sent = result.requests.sent;
        counts.errors = result.errors;
        counts.unanswered = counts.sent - counts.responses;
        resolve({
          kind: 'autocannon',
          connections,
          windowSeconds,
          requestsPerSecond: windowResponses / windowSeconds,
          latencyMs: summarize(latencies),
          autocannonLatencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
          timeouts: result.timeouts,
          drainMs: performance.now() - windowEnd,
          ...counts,
        });
      },
    );

    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      counts.responses++;
      if (windowOpen) windowResponses++;
      if (statusCode >= 200 && statusCode < 300) counts.ok2xx++;
      else counts.non2xx++;
      const key = String(statusCode);
      counts.statusCodes[key] = (counts.statusCodes[key] ?? 0) + 1;
      latencies.push(responseTime);
    });

    const windowTimer = setTimeout(() => {
      windowOpen = false;
      windowEnd = performance.now();
      // Each client stops after the response it is waiting for; autocannon ends once every client is done.
      for (const client of clients) client.responseMax = Math.max(1, client.reqsMade);
      // Backstop: a client stuck on a dead connection must not hold the run; its request counts as unanswered.
      drainTimer = setTimeout(() => instance.stop(), 12_000);
    }, seconds * 1000);
  });
}

export interface SequentialResult extends Counts {
  kind: 'sequential';
  connections: 1;
  windowSeconds: number;
  requestsPerSecond: number;
  latencyMs: LatencySummary;
}

/**
 * One client, one keep-alive connection, one request at a time with Node's own http client, timed with
 * performance.now() from request start to the end of the response body: sub-millisecond one-client latency.
 */
export async function runSequential(target: LoadTarget, seconds: number): Promise<SequentialResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const { method, body, headers } = requestParts(target);
  const latencies: number[] = [];
  const counts = emptyCounts();
  const started = performance.now();
  const end = started + seconds * 1000;
  try {
    while (performance.now() < end) {
      const t0 = performance.now();
      counts.sent++;
      try {
        const status = await new Promise<number>((resolve, reject) => {
          const req = request({ host: LOOPBACK, port: target.port, path: target.path, method, headers, agent }, (res) => {
            res.resume();
            res.once('end', () => resolve(res.statusCode ?? 0));
            res.once('error', reject);
          });
          req.once('error', reject);
          req.setTimeout(10_000, () => req.destroy(new Error('request timed out')));
          req.end(body);
        });
        latencies.push(performance.now() - t0);
        counts.responses++;
        if (status >= 200 && status < 300) counts.ok2xx++;
        else counts.non2xx++;
        counts.statusCodes[String(status)] = (counts.statusCodes[String(status)] ?? 0) + 1;
      } catch {
        counts.errors++;
      }
    }
  } finally {
    agent.destroy();
  }
  const windowSeconds = (performance.now() - started) / 1000;
  counts.unanswered = counts.sent - counts.responses;
  return {
    kind: 'sequential',
    connections: 1,
    windowSeconds,
    requestsPerSecond: counts.responses / windowSeconds,
    latencyMs: summarize(latencies),
    ...counts,
  };
}

export interface PacedResult extends Counts {
  kind: 'paced';
  /** Requests scheduled per second. */
  rate: number;
  windowSeconds: number;
  requestsPerSecond: number;
  /** From each request's start to the end of its response. */
  latencyMs: LatencySummary;
  /** How late the generator sent requests behind their schedule (its own event loop), in ms: p99 and max. */
  lateMs: { p99: number; max: number };
}

/**
 * An open-loop load: one request every 1/rate seconds for `seconds`, each sent when its time comes whether or not
 * the earlier ones were answered (on a keep-alive pool of up to `sockets` connections), then waits for the last
 * answers. Unlike autocannon's closed loop, a slow server does not slow the requests down: it shows in the latency.
 */
export async function runPaced(target: LoadTarget, rate: number, seconds: number, sockets = 64): Promise<PacedResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const { method, body, headers } = requestParts(target);
  const latencies: number[] = [];
  const counts = emptyCounts();
  const total = Math.round(rate * seconds);
  const started = performance.now();
  const answers: Promise<void>[] = [];
  const late: number[] = [];
  const one = (due: number) =>
    new Promise<void>((resolve) => {
      const t0 = performance.now();
      late.push(t0 - due);
      counts.sent++;
      const req = request({ host: LOOPBACK, port: target.port, path: target.path, method, headers, agent }, (res) => {
        res.resume();
        res.once('end', () => {
          latencies.push(performance.now() - t0);
          counts.responses++;
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) counts.ok2xx++;
          else counts.non2xx++;
          counts.statusCodes[String(status)] = (counts.statusCodes[String(status)] ?? 0) + 1;
          resolve();
        });
        res.once('error', () => {
          counts.errors++;
          resolve();
        });
      });
      req.once('error', () => {
        counts.errors++;
        resolve();
      });
      req.setTimeout(10_000, () => req.destroy(new Error('request timed out')));
      req.end(body);
    });
  try {
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      answers.push(one(due));
    }
    await Promise.all(answers);
  } finally {
    agent.destroy();
  }
  const windowSeconds = (performance.now() - started) / 1000;
  counts.unanswered = counts.sent - counts.responses - counts.errors;
  return {
    kind: 'paced',
    rate,
    windowSeconds,
    requestsPerSecond: counts.responses / windowSeconds,
    latencyMs: summarize(latencies),
    lateMs: (({ p99, max }) => ({ p99, max }))(summarize(late)),
    ...counts,
  };
}

/** Method, body bytes and headers (with the body's length) of a target's request. */
function requestParts(target: LoadTarget): { method: string; body: Buffer | undefined; headers: Record<string, string> } {
  if (target.body === undefined) return { method: 'GET', body: undefined, headers: target.headers };
  const body = Buffer.from(target.body);
  return { method: 'POST', body, headers: { ...target.headers, 'content-length': String(body.length) } };
}

/** One request, its status and parsed body: the sanity check before loading a target. */
export function probe(target: LoadTarget): Promise<{ status: number; body: unknown; bytes: number }> {
  return new Promise((resolve, reject) => {
    const { method, body, headers } = requestParts(target);
    const req = request(
      {
        host: LOOPBACK,
        port: target.port,
        path: target.path,
        method,
        headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.once('end', () => {
          const bytes = Buffer.concat(chunks);
          const text = bytes.toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // keep the text
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, bytes: bytes.length });
        });
        res.once('error', reject);
      },
    );
    req.once('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('probe timed out')));
    req.end(body);
  });
}

/**
 * A run plus the server's own CPU time during it (from /proc), per response: the cost of one request. Also how
 * busy the rest of the machine was meanwhile (all CPU time but the server's and this process's, in cores): on a
 * shared 2-core machine that is the noise behind the numbers.
 */
export type WithCpu<T> = T & { serverCpuMs: number | null; serverCpuUsPerRequest: number | null; otherLoadCores: number | null };

/** `helpers`: processes of the benchmark's own besides this one (the /events viewers), not counted as noise. */
export async function withServerCpu<T extends Counts>(pid: number, run: () => Promise<T>, helpers: number[] = []): Promise<WithCpu<T>> {
  const before = cpuTimeMs(pid);
  const helpersBefore = helpers.map(cpuTimeMs);
  const machineBefore = machineBusyMs();
  const selfBefore = process.cpuUsage();
  const t0 = performance.now();
  const result = await run();
  const wallMs = performance.now() - t0;
  const self = process.cpuUsage(selfBefore);
  const machineAfter = machineBusyMs();
  const after = cpuTimeMs(pid);
  const helpersMs = helpers.reduce((sum, helper, i) => sum + (cpuTimeMs(helper) ?? 0) - (helpersBefore[i] ?? 0), 0);
  const serverCpuMs = before === null || after === null ? null : after - before;
  const otherMs =
    serverCpuMs === null || machineBefore === null || machineAfter === null
      ? null
      : machineAfter - machineBefore - serverCpuMs - helpersMs - (self.user + self.system) / 1000;
  return {
    ...result,
    serverCpuMs,
    serverCpuUsPerRequest: serverCpuMs === null || result.responses === 0 ? null : (serverCpuMs * 1000) / result.responses,
    otherLoadCores: otherMs === null ? null : Math.max(0, otherMs / wallMs),
  };
}

/** A server's resident memory over a run, from /proc (KiB). */
export interface RssUnderLoad {
  /** The largest sample taken during the run. */
  peakKiB: number | null;
  /** The median of the samples in the run's second half, once the heap has settled into its working size. */
  steadyKiB: number | null;
  samples: number;
}

function rssKiB(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Runs `run` while sampling the server's RSS every `everyMs`. */
export async function withServerRss<T>(pid: number, run: () => Promise<T>, everyMs = 100): Promise<{ result: T; rss: RssUnderLoad }> {
  const samples: number[] = [];
  const take = () => {
    const kib = rssKiB(pid);
    if (kib !== null) samples.push(kib);
  };
  take();
  const timer = setInterval(take, everyMs);
  try {
    const result = await run();
    take();
    const second = samples.slice(Math.floor(samples.length / 2)).sort((a, b) => a - b);
    return {
      result,
      rss: {
        peakKiB: samples.length ? Math.max(...samples) : null,
        steadyKiB: second.length ? second[Math.floor(second.length / 2)]! : null,
        samples: samples.length,
      },
    };
  } finally {
    clearInterval(timer);
  }
}

/**
 * `npm run bench`: the quality bars of docs/development.md ("Benchmarks") measured as ratios in one run, on 127.0.0.1 only.
 *
 *   A  bare Node http answering fixed JSON                       (the ceiling)
 *   B  bare Express 5 + express.json() answering fixed JSON       (the baseline the bar compares to)
 *   C  Pincer: POST /tools/calculate/execute {"expression":"(1+2)*3"} with the client token, through auth,
 *      validation, policy and recording in SQLite, on a fresh data directory
 *
 * Each server runs in its own child process (dist/bench/servers.js); the load generator (autocannon) runs here.
 * Per target: a warm-up at 32 connections, then the fixed duration at 32 connections and at 1 connection, then a
 * sequential one-client loop with Node's http client for sub-millisecond p99. After Pincer: history rows must equal
 * the calls it answered; Pincer's @32 is also set against bare Node http, and its RSS is sampled during that run
 * (steady: the median of the second half; peak: the largest sample). Then live events (bench/events.ts): calculate @32 with 0 and with 20 GET /events viewers
 * open, and 200 viewers while calls come at a steady 200/s (every viewer must get every event; call p99); and
 * GET /tools/openai @32 against bare Node http building the same list each time. Then the start-up bar:
 * `pincer serve` → /health, idle RSS, SIGINT → exit 0. Then memory search (bench/memory.ts, in this process): bulk add,
 * query latency per method and the naive full scan at 10,000 and 100,000 memories, and a labelled retrieval set.
 *
 * Options: --duration N (seconds, default 5, or BENCH_DURATION), --warmup N (default 1), --sequential N (seconds of
 * the one-client loop, default 5: a p99 over some ten thousand calls), --profile (run the server children under
 * --cpu-prof; the profiles go to bench/results/ and a summary is printed), --only http,express,pincer,sandbox,startup,llm,recovery,search,memory (run
 * some parts; the ratios need the targets they compare), --memory-sizes 10000,100000 (the memory part's corpus sizes).
 * Results: printed, and written to bench/results/latest.json. The exit code is 0 even when a bar is missed (this
 * is a measurement); it is 1 only when the benchmark itself could not run. The machine is shared: the server's CPU
 * per request and the CPU other processes used meanwhile are printed, and verdicts resting on a disturbed run are
 * marked "?".
 * Diagnosis: `node dist/bench/pieces.js` measures the pipeline in pieces; `node dist/bench/profile-summary.js`
 * summarizes a .cpuprofile.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { GATEWAY_NODE_FLAGS, killAllChildren, ROOT, makeTempDir, removeTempDir, startServer, type ServerMode } from './children.js';
import { BENCH_BODY, BENCH_PATH, TOOLS_PATH, type Verdict } from './common.js';
import { benchEvents, benchToolList, type EventsResult, type ToolListResult } from './events.js';
import { benchSandbox, sandboxLines, type SandboxResult } from './sandbox.js';
import {
  probe,
  runAutocannon,
  runSequential,
  withServerCpu,
  withServerRss,
  type Counts,
  type LoadResult,
  type LoadTarget,
  type RssUnderLoad,
  type SequentialResult,
  type WithCpu,
} from './load.js';
import { summarizeProfile } from './profile-summary.js';
import { measureStartup, type StartupResult } from './startup.js';
import { benchMemory, defaultMemoryOptions, memoryLines, memoryVerdicts, type MemoryBenchResult } from './memory.js';
import { benchLlm, llmLines, llmVerdicts, type LlmBenchResult } from './llm.js';
import { benchRecovery, recoveryLines, recoveryVerdicts, type RecoveryBenchResult } from './recovery.js';
import { benchToolSearch, toolSearchLines, toolSearchVerdicts, type ToolSearchBenchResult } from './tool-search.js';

const RESULTS_DIR = join(ROOT, 'bench', 'results');
const PINCER_BIN = join(ROOT, 'bin', 'pincer.js');

/** Other processes using more than this many cores during a measured run make it noisy. */
const NOISE_CORES = 0.25;

const BARS = {
  throughputVsExpress: 0.6,
  p99At1Ms: 2,
  healthMs: 1000,
  idleRssMiB: 150,
  /** calculate @32 as a share of bare Node http in the same run. */
  throughputVsHttp: 0.4,
  /** The gateway's RSS while calculate runs @32 (steady and peak are both printed; the bar is on steady). */
  loadRssMiB: 150,
  /** calculate @32 with 20 /events viewers open, as a share of the same with none. */
  viewers20VsNone: 0.5,
  /** Call p99 with 200 viewers open and calls at a steady 200/s. */
  viewers200P99Ms: 20,
  /** GET /tools/openai @32, as a share of bare Node http building the same list on every request. */
  toolListVsHttp: 0.75,
} as const;

interface Options {
  duration: number;
  warmup: number;
  sequential: number;
  profile: boolean;
  /** Parts to run (default all): http, express, pincer, events, tools, sandbox, startup, memory. */
  only: Set<string>;
  /** Corpus sizes of the memory part. */
  memorySizes: number[];
}

function positiveSeconds(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > 600) throw new Error(`${name} must be a number of seconds in (0, 600], got "${value}"`);
  return n;
}

const PARTS = ['http', 'express', 'pincer', 'events', 'tools', 'sandbox', 'startup', 'llm', 'recovery', 'search', 'memory'];

function parseSizes(value: string | undefined): number[] {
  if (value === undefined) return [10_000, 100_000];
  const sizes = value.split(',').map((s) => Number(s.trim().replaceAll('_', '')));
  if (sizes.length === 0 || sizes.some((n) => !Number.isInteger(n) || n < 100 || n > 1_000_000)) {
    throw new Error(`--memory-sizes takes a comma list of corpus sizes in [100, 1000000]; got "${value}"`);
  }
  return sizes;
}

function parseOnly(value: string | undefined): Set<string> {
  if (value === undefined) return new Set(PARTS);
  const parts = value.split(',').map((p) => p.trim()).filter(Boolean);
  const unknown = parts.filter((p) => !PARTS.includes(p));
  if (unknown.length || parts.length === 0) throw new Error(`--only takes a comma list of ${PARTS.join(', ')}; got "${value}"`);
  return new Set(parts);
}

function parseOptions(argv: string[], env: NodeJS.ProcessEnv): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string' },
      warmup: { type: 'string' },
      sequential: { type: 'string' },
      profile: { type: 'boolean' },
      only: { type: 'string' },
      'memory-sizes': { type: 'string' },
    },
    strict: true,
  });
  return {
    duration: positiveSeconds(values.duration ?? env.BENCH_DURATION, '--duration', 5),
    warmup: positiveSeconds(values.warmup, '--warmup', 1),
    sequential: positiveSeconds(values.sequential, '--sequential', 5),
    profile: values.profile === true,
    only: parseOnly(values.only),
    memorySizes: parseSizes(values['memory-sizes']),
  };
}

interface TargetSpec {
  key: ServerMode;
  label: string;
}

const TARGETS: TargetSpec[] = [
  { key: 'http', label: 'A bare http' },
  { key: 'express', label: 'B bare Express' },
  { key: 'pincer', label: 'C Pincer calculate' },
];

interface TargetResult {
  key: ServerMode;
  label: string;
  probe: { status: number; body: unknown };
  warmup: WithCpu<LoadResult>;
  c32: WithCpu<LoadResult>;
  /** The server's RSS during the @32 run. */
  rss32: RssUnderLoad;
  c1: WithCpu<LoadResult>;
  sequential: WithCpu<SequentialResult>;
  stopReport: Record<string, unknown> | undefined;
  exit: { code: number | null; signal: string | null; killed: boolean };
}

const progress = (line: string) => process.stderr.write(`bench: ${line}\n`);

async function benchTarget(spec: TargetSpec, options: Options, profileDir: string | undefined): Promise<TargetResult> {
  const dataDir = spec.key === 'pincer' ? makeTempDir('pincer-bench-') : undefined;
  const nodeFlags = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-name', `${spec.key}.cpuprofile`] : [];
  const server = await startServer(spec.key, dataDir ? [dataDir] : [], nodeFlags);
  let measured: Omit<TargetResult, 'stopReport' | 'exit'>;
  let stopped: Awaited<ReturnType<typeof server.stop>>;
  try {
    // Same request bytes for every target: the bare servers get a token-shaped header they ignore.
    const token = server.token ?? `pk_${'x'.repeat(43)}`;
    const target: LoadTarget = {
      port: server.port,
      path: BENCH_PATH,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: BENCH_BODY,
    };
    const first = await probe(target);
    const answer = first.body as { success?: unknown; result?: { result?: unknown } } | undefined;
    if (first.status !== 200 || answer?.success !== true || answer.result?.result !== 9) {
      throw new Error(`${spec.label}: the probe request got ${first.status} ${JSON.stringify(first.body)}`);
    }
    progress(`${spec.label} (pid ${server.pid}, port ${server.port}): warm-up ${options.warmup} s @32`);
    const cpu = <T extends Counts>(run: () => Promise<T>) => withServerCpu(server.pid, run);
    const warmup = await cpu(() => runAutocannon(target, 32, options.warmup));
    progress(`${spec.label}: ${options.duration} s @32`);
    const { result: c32, rss: rss32 } = await withServerRss(server.pid, () => cpu(() => runAutocannon(target, 32, options.duration)));
    progress(`${spec.label}: ${options.duration} s @1`);
    const c1 = await cpu(() => runAutocannon(target, 1, options.duration));
    progress(`${spec.label}: ${options.sequential} s sequential http.request @1`);
    const sequential = await cpu(() => runSequential(target, options.sequential));
    measured = { key: spec.key, label: spec.label, probe: first, warmup, c32, rss32, c1, sequential };
  } finally {
    stopped = await server.stop();
    if (dataDir) removeTempDir(dataDir);
  }
  return { ...measured, stopReport: stopped.report, exit: stopped.exit };
}

// ---------- accounting ----------

interface Accounting {
  /** Every request Pincer answered in this run: probe + warm-up + @32 + @1 + sequential. */
  callsAnswered: number;
  calls2xx: number;
  callsNon2xx: number;
  unanswered: number;
  errors: number;
  historyRows: number | null;
  succeededRows: number | null;
  exact: boolean;
}

function account(result: TargetResult): Accounting {
  const parts: Counts[] = [result.warmup, result.c32, result.c1, result.sequential];
  const sum = (f: (c: Counts) => number) => parts.reduce((n, c) => n + f(c), 0);
  const probeOk = result.probe.status >= 200 && result.probe.status < 300 ? 1 : 0;
  const callsAnswered = 1 + sum((c) => c.responses);
  const calls2xx = probeOk + sum((c) => c.ok2xx);
  const unanswered = sum((c) => c.unanswered);
  const errors = sum((c) => c.errors);
  const rows = result.stopReport?.history_rows;
  const succeeded = result.stopReport?.succeeded;
  const historyRows = typeof rows === 'number' ? rows : null;
  const succeededRows = typeof succeeded === 'number' ? succeeded : null;
  return {
    callsAnswered,
    calls2xx,
    callsNon2xx: callsAnswered - calls2xx,
    unanswered,
    errors,
    historyRows,
    succeededRows,
    exact: historyRows === callsAnswered && succeededRows === calls2xx && unanswered === 0 && errors === 0,
  };
}

// ---------- printing ----------

const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US');
const fmtMs = (n: number) => (Number.isFinite(n) ? (n < 10 ? n.toFixed(3) : n.toFixed(1)) : '-');
const fmtPct = (n: number) => (Number.isFinite(n) ? `${(n * 100).toFixed(1)} %` : '-');
const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');

function table(header: string[], rows: string[][], rightAligned: Set<number>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (rightAligned.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...rows.map(line)].join('\n');
}

type Row = { target: string; conns: string; run: WithCpu<LoadResult | SequentialResult>; baseHttp: number; baseExpress: number };

function resultsTable(results: TargetResult[]): string {
  const by = (key: ServerMode) => results.find((r) => r.key === key);
  const http = by('http');
  const express = by('express');
  const rows: Row[] = [];
  for (const r of results) {
    rows.push({ target: r.label, conns: '32', run: r.c32, baseHttp: http?.c32.requestsPerSecond ?? NaN, baseExpress: express?.c32.requestsPerSecond ?? NaN });
    rows.push({ target: r.label, conns: '1', run: r.c1, baseHttp: http?.c1.requestsPerSecond ?? NaN, baseExpress: express?.c1.requestsPerSecond ?? NaN });
    rows.push({
      target: r.label,
      conns: '1 seq',
      run: r.sequential,
      baseHttp: http?.sequential.requestsPerSecond ?? NaN,
      baseExpress: express?.sequential.requestsPerSecond ?? NaN,
    });
  }
  return table(
    ['target', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'lost', 'vs http', 'vs Express', 'srv CPU/req', 'other load'],
    rows.map(({ target, conns, run, baseHttp, baseExpress }) => [
      target,
      conns,
      fmtInt(run.requestsPerSecond),
      fmtMs(run.latencyMs.p50),
      fmtMs(run.latencyMs.p99),
      String(run.non2xx),
      String(run.errors),
      String(run.unanswered),
      fmtPct(run.requestsPerSecond / baseHttp),
      fmtPct(run.requestsPerSecond / baseExpress),
      run.serverCpuUsPerRequest === null ? '-' : `${fmtInt(run.serverCpuUsPerRequest)} µs`,
      run.otherLoadCores === null ? '-' : run.otherLoadCores.toFixed(2),
    ]),
    new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]),
  );
}

/** The events and tools runs, each against the run it is compared with. */
function extrasTable({ events, tools }: Extras): string | undefined {
  type ExtraRow = { name: string; conns: string; run: WithCpu<LoadResult | SequentialResult | EventsResult['paced']>; base: number | null };
  const rows: ExtraRow[] = [];
  if (events) {
    rows.push({ name: 'calculate, no viewer', conns: '32', run: events.noViewers, base: null });
    rows.push({ name: 'calculate, 20 viewers', conns: '32', run: events.withViewers, base: events.noViewers.requestsPerSecond });
    rows.push({ name: `calculate at ${events.paced.rate}/s, 200 viewers`, conns: 'paced', run: events.paced, base: null });
  }
  if (tools) {
    rows.push({ name: `bare http ${TOOLS_PATH}`, conns: '32', run: tools.ceiling.c32, base: null });
    rows.push({ name: `Pincer ${TOOLS_PATH}`, conns: '32', run: tools.pincer.c32, base: tools.ceiling.c32.requestsPerSecond });
  }
  if (rows.length === 0) return undefined;
  return table(
    ['run', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'lost', 'vs row above', 'srv CPU/req', 'other load'],
    rows.map(({ name, conns, run, base }) => [
      name,
      conns,
      fmtInt(run.requestsPerSecond),
      fmtMs(run.latencyMs.p50),
      fmtMs(run.latencyMs.p99),
      String(run.non2xx),
      String(run.errors),
      String(run.unanswered),
      base === null ? '' : fmtPct(run.requestsPerSecond / base),
      run.serverCpuUsPerRequest === null ? '-' : `${fmtInt(run.serverCpuUsPerRequest)} µs`,
      run.otherLoadCores === null ? '-' : run.otherLoadCores.toFixed(2),
    ]),
    new Set([2, 3, 4, 5, 6, 7, 8, 9, 10]),
  );
}

const isNoisy = (...runs: (WithCpu<Counts> | undefined)[]) =>
  runs.some((run) => run !== undefined && run.otherLoadCores !== null && run.otherLoadCores > NOISE_CORES);

interface Extras {
  events: EventsResult | undefined;
  tools: ToolListResult | undefined;
}

/** Every load run of the events and tools parts, for the non-2xx / error / lost totals. */
function extraRuns({ events, tools }: Extras): Counts[] {
  return [
    ...(events ? [events.warmup, events.noViewers, events.withViewers, events.paced] : []),
    ...(tools ? [tools.ceiling.warmup, tools.ceiling.c32, tools.pincer.warmup, tools.pincer.c32] : []),
  ];
}

function verdicts(results: TargetResult[], accounting: Accounting | undefined, startup: StartupResult | undefined, extras: Extras): Verdict[] {
  const by = (key: ServerMode) => results.find((r) => r.key === key);
  const out: Verdict[] = [];
  const pincer = by('pincer');
  const express = by('express');
  if (pincer && express) {
    const ratio = pincer.c32.requestsPerSecond / express.c32.requestsPerSecond;
    out.push({
      name: 'throughput_vs_express_at_32',
      value: ratio,
      bar: `>= ${BARS.throughputVsExpress * 100} %`,
      ok: ratio >= BARS.throughputVsExpress,
      noisy: isNoisy(pincer.c32, express.c32),
      text: `Pincer calculate @32 = ${(ratio * 100).toFixed(1)} % of bare Express (bar ≥ ${BARS.throughputVsExpress * 100} %)  [${fmtInt(pincer.c32.requestsPerSecond)} vs ${fmtInt(express.c32.requestsPerSecond)} req/s]`,
    });
  }
  const http = by('http');
  if (pincer && http) {
    const ratio = pincer.c32.requestsPerSecond / http.c32.requestsPerSecond;
    out.push({
      name: 'throughput_vs_http_at_32',
      value: ratio,
      bar: `>= ${BARS.throughputVsHttp * 100} %`,
      ok: ratio >= BARS.throughputVsHttp,
      noisy: isNoisy(pincer.c32, http.c32),
      text: `Pincer calculate @32 = ${(ratio * 100).toFixed(1)} % of bare Node http (bar ≥ ${BARS.throughputVsHttp * 100} %)  [${fmtInt(pincer.c32.requestsPerSecond)} vs ${fmtInt(http.c32.requestsPerSecond)} req/s]`,
    });
  }
  if (pincer) {
    const { steadyKiB, peakKiB, samples } = pincer.rss32;
    const mib = (kib: number | null) => (kib === null ? '?' : (kib / 1024).toFixed(1));
    out.push({
      name: 'load_rss_mib',
      value: steadyKiB === null ? null : steadyKiB / 1024,
      bar: `<= ${BARS.loadRssMiB} MiB`,
      ok: steadyKiB !== null && steadyKiB / 1024 <= BARS.loadRssMiB,
      text: `Pincer RSS under calculate @32 = ${mib(steadyKiB)} MiB steady (bar ≤ ${BARS.loadRssMiB} MB)  [peak ${mib(peakKiB)} MiB; ${samples} samples, steady = median of the second half]`,
    });
  }
  if (pincer) {
    const p99 = pincer.sequential.latencyMs.p99;
    out.push({
      name: 'p99_at_1_ms',
      value: p99,
      bar: `<= ${BARS.p99At1Ms} ms`,
      ok: p99 <= BARS.p99At1Ms,
      noisy: isNoisy(pincer.sequential),
      text: `Pincer p99 @1 = ${fmtMs(p99)} ms (bar ≤ ${BARS.p99At1Ms} ms)  [sequential http.request loop, ${fmtInt(pincer.sequential.latencyMs.samples)} calls; autocannon @1: p99 ${fmtMs(pincer.c1.latencyMs.p99)} ms]`,
    });
  }
  const { events, tools } = extras;
  if (events) {
    const ratio = events.withViewers.requestsPerSecond / events.noViewers.requestsPerSecond;
    const v = events.viewers20;
    out.push({
      name: 'viewers_20_vs_none_at_32',
      value: ratio,
      bar: `>= ${BARS.viewers20VsNone * 100} % (and every viewer fed, none reset)`,
      ok: ratio >= BARS.viewers20VsNone && v.complete,
      noisy: isNoisy(events.noViewers, events.withViewers),
      text:
        `calculate @32 with 20 /events viewers = ${(ratio * 100).toFixed(1)} % of none (bar ≥ ${BARS.viewers20VsNone * 100} %)` +
        `  [${fmtInt(events.withViewers.requestsPerSecond)} vs ${fmtInt(events.noViewers.requestsPerSecond)} req/s; least a viewer read ${fmtInt(v.minBytes / 1024)} KiB; resets ${v.resets}, ended ${v.ended}]`,
    });
    const m = events.viewers200;
    out.push({
      name: 'viewers_200_every_event',
      value: m.minCallEvents,
      bar: `= 2 × calls for every viewer (started + succeeded), none reset`,
      ok: m.complete,
      text:
        `200 viewers, calls at ${events.paced.rate}/s: every viewer got every event: ${m.complete ? 'yes' : 'NO'}` +
        `  [${fmtInt(m.expectedCalls)} calls → ${fmtInt(2 * m.expectedCalls)} call events each; viewers got ${fmtInt(m.minCallEvents)}–${fmtInt(m.maxCallEvents)}; resets ${m.resets}, ended ${m.ended}; last event ${fmtInt(m.settleMs)} ms after the last answer]`,
    });
    const p99 = events.paced.latencyMs.p99;
    out.push({
      name: 'viewers_200_call_p99_ms',
      value: p99,
      bar: `<= ${BARS.viewers200P99Ms} ms`,
      ok: p99 <= BARS.viewers200P99Ms,
      noisy: isNoisy(events.paced),
      text:
        `200 viewers, calls at ${events.paced.rate}/s: call p99 = ${fmtMs(p99)} ms (bar ≤ ${BARS.viewers200P99Ms} ms)` +
        `  [p50 ${fmtMs(events.paced.latencyMs.p50)} ms, max ${fmtMs(events.paced.latencyMs.max)} ms; ${fmtInt(events.paced.responses)} calls; generator late p99 ${fmtMs(events.paced.lateMs.p99)} ms]`,
    });
  }
  if (tools) {
    const ratio = tools.pincer.c32.requestsPerSecond / tools.ceiling.c32.requestsPerSecond;
    out.push({
      name: 'tool_list_vs_http_at_32',
      value: ratio,
      bar: `>= ${BARS.toolListVsHttp * 100} %`,
      ok: ratio >= BARS.toolListVsHttp,
      noisy: isNoisy(tools.pincer.c32, tools.ceiling.c32),
      text:
        `GET ${TOOLS_PATH} @32 = ${(ratio * 100).toFixed(1)} % of bare http building the list each time (bar ≥ ${BARS.toolListVsHttp * 100} %)` +
        `  [${fmtInt(tools.pincer.c32.requestsPerSecond)} vs ${fmtInt(tools.ceiling.c32.requestsPerSecond)} req/s; ${fmtInt(tools.bytes)} bytes]`,
    });
  }
  const all = [...results.flatMap((r) => [r.warmup, r.c32, r.c1, r.sequential]), ...extraRuns(extras)];
  const non2xx = all.reduce((n, c) => n + c.non2xx, 0) + results.filter((r) => r.probe.status < 200 || r.probe.status >= 300).length;
  const errors = all.reduce((n, c) => n + c.errors, 0);
  const lost = all.reduce((n, c) => n + c.unanswered, 0);
  out.push({
    name: 'non_2xx',
    value: non2xx,
    bar: '= 0 (and no errors, no request left unanswered)',
    ok: non2xx === 0 && errors === 0 && lost === 0,
    text: `non-2xx: ${non2xx}  [all targets, warm-ups included; errors ${errors}, requests left unanswered ${lost}]`,
  });
  if (accounting) {
    const a = accounting;
    out.push({
      name: 'history_rows_equal_calls',
      value: a.historyRows,
      bar: '= calls answered',
      ok: a.exact,
      text:
        `history rows = calls made: ${a.historyRows ?? '?'} = ${a.callsAnswered}` +
        `  [succeeded rows ${a.succeededRows ?? '?'} = 2xx ${a.calls2xx}; unanswered ${a.unanswered}, errors ${a.errors}]`,
    });
  }
  if (startup) {
    const s = startup;
    out.push({
      name: 'startup_health_ms',
      value: s.healthMs,
      bar: `<= ${BARS.healthMs} ms`,
      ok: s.healthMs !== null && s.healthMs <= BARS.healthMs,
      text: `pincer serve → first 200 on /health = ${s.healthMs === null ? 'never' : `${fmtInt(s.healthMs)} ms`} (bar ≤ ${fmtInt(BARS.healthMs)} ms)${s.error ? `  [${s.error}]` : ''}`,
    });
    const mib = s.idleRssKiB === null ? null : s.idleRssKiB / 1024;
    out.push({
      name: 'idle_rss_mib',
      value: mib,
      bar: `<= ${BARS.idleRssMiB} MiB`,
      ok: mib !== null && mib <= BARS.idleRssMiB,
      text: `idle RSS after ${s.idleMs / 1000} s = ${mib === null ? '?' : mib.toFixed(1)} MiB (bar ≤ ${BARS.idleRssMiB} MB)  [peak ${s.peakRssKiB === null ? '?' : (s.peakRssKiB / 1024).toFixed(1)} MiB]`,
    });
    out.push({
      name: 'sigint_exit_code',
      value: s.exitCode,
      bar: '= 0',
      ok: s.exitCode === 0 && !s.killed,
      text: `SIGINT → exit code ${s.exitCode ?? `none (signal ${s.exitSignal})`}${s.killed ? ' (had to be killed)' : ''} in ${s.stopMs === null ? '?' : fmtInt(s.stopMs)} ms (bar: exit 0)`,
    });
  }
  return out;
}

/** Runs behind the throughput and latency verdicts during which other processes used a noticeable share of the CPUs. */
function noiseWarnings(results: TargetResult[], { events, tools }: Extras): string[] {
  const watched: [string, WithCpu<Counts & { otherLoadCores?: number | null }> | undefined][] = [
    ['Express @32', results.find((r) => r.key === 'express')?.c32],
    ['Pincer @32', results.find((r) => r.key === 'pincer')?.c32],
    ['Pincer 1 seq', results.find((r) => r.key === 'pincer')?.sequential],
    ['calculate @32 no viewer', events?.noViewers],
    ['calculate @32 20 viewers', events?.withViewers],
    ['calculate paced 200 viewers', events?.paced],
    [`bare http ${TOOLS_PATH} @32`, tools?.ceiling.c32],
    [`Pincer ${TOOLS_PATH} @32`, tools?.pincer.c32],
  ];
  return watched.flatMap(([name, run]) =>
    run && run.otherLoadCores !== null && run.otherLoadCores > NOISE_CORES ? [`${name}: ${run.otherLoadCores.toFixed(2)} cores`] : [],
  );
}

// ---------- main ----------

async function main(): Promise<number> {
  let options: Options;
  try {
    options = parseOptions(process.argv.slice(2), process.env);
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\nusage: npm run bench -- [--duration N] [--warmup N] [--sequential N] [--profile] [--only http,express,pincer,events,tools,sandbox,startup,llm,recovery,search,memory] [--memory-sizes 10000,100000]\n`);
    return 2;
  }

  // Everything is bounded: a run that takes far longer than planned is stopped with its children.
  const plannedS =
    TARGETS.length * (options.warmup + 2 * options.duration + options.sequential) +
    (options.warmup + 3 * options.duration + 15) +
    2 * (options.warmup + options.duration) +
    (options.only.has('memory') ? 180 : 0) +
    (options.only.has('llm') ? 30 : 0) +
    (options.only.has('search') ? 60 : 0) +
    5;
  const budgetMs = (plannedS * 2 + 120) * 1000;
  const watchdog = setTimeout(() => {
    process.stderr.write(`bench: still running after ${budgetMs / 1000} s (planned ~${plannedS} s); stopping.\n`);
    killAllChildren();
    process.exit(1);
  }, budgetMs);
  watchdog.unref();

  const profileDir = options.profile ? join(RESULTS_DIR, `profile-${Date.now()}`) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });

  const startedAt = new Date();
  const loadBefore = loadavg();
  const cpuList = cpus();
  const header = [
    `Pincer gateway benchmark — ${startedAt.toISOString()}`,
    `node ${process.version}, ${cpuList.length} × ${cpuList[0]?.model.trim() ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`,
    `127.0.0.1 only; each server in its own process, autocannon in this one; POST ${BENCH_PATH} ${BENCH_BODY}`,
    `warm-up ${options.warmup} s @32, then ${options.duration} s @32 and ${options.duration} s @1 (autocannon), then ${options.sequential} s sequential http.request @1 (keep-alive)`,
  ];
  process.stdout.write(`${header.join('\n')}\n\n`);

  const results: TargetResult[] = [];
  for (const spec of TARGETS) if (options.only.has(spec.key)) results.push(await benchTarget(spec, options, profileDir));
  const extras: Extras = { events: undefined, tools: undefined };
  if (options.only.has('events')) extras.events = await benchEvents(options);
  if (options.only.has('tools')) extras.tools = await benchToolList(options);
  const sandbox: SandboxResult | undefined = options.only.has('sandbox') ? await benchSandbox(options) : undefined;
  let startup: StartupResult | undefined;
  if (options.only.has('startup')) {
    progress('start-up: pincer serve');
    startup = await measureStartup(PINCER_BIN, GATEWAY_NODE_FLAGS);
  }
  let llm: LlmBenchResult | undefined;
  if (options.only.has('llm')) {
    progress('llm: proxied turns against a model stand-in');
    llm = await benchLlm();
  }
  let recovery: RecoveryBenchResult | undefined;
  if (options.only.has('recovery')) {
    progress('recovery: a plain streamed answer through the stream gate and a pass-through');
    recovery = benchRecovery();
  }
  let search: ToolSearchBenchResult | undefined;
  if (options.only.has('search')) {
    progress('search: tool search at 120 and 2,000 tools against a linear scan');
    search = benchToolSearch();
  }
  // Last: it runs in this process and keeps both cores busy for a while.
  const memory: MemoryBenchResult | undefined = options.only.has('memory')
    ? await benchMemory(defaultMemoryOptions(ROOT, options.memorySizes))
    : undefined;
  const loadAfter = loadavg();

  const pincer = results.find((r) => r.key === 'pincer');
  const accounting = pincer ? account(pincer) : undefined;
  const checks = verdicts(results, accounting, startup, extras);
  if (memory) checks.push(...memoryVerdicts(memory));
  if (llm) checks.push(...llmVerdicts(llm));
  if (recovery) checks.push(...recoveryVerdicts(recovery));
  if (search) checks.push(...toolSearchVerdicts(search));

  const lines: string[] = [];
  lines.push(resultsTable(results));
  lines.push('');
  lines.push('req/s: responses inside the window ÷ window; p50/p99: every response timed at hrtime precision (client-side,');
  lines.push('so @32 includes queueing in the load generator); "1 seq": Node http.request one at a time; errors: connection errors');
  lines.push('and timeouts; lost: requests sent but never answered (0 means the drain was clean and the accounting exact);');
  lines.push('srv CPU/req: the server process\'s user+system CPU time during the run (/proc, 10 ms ticks) ÷ responses;');
  lines.push('other load: CPU used meanwhile by every process but the server and the load generator, in cores (of 2): noise.');
  const more = extrasTable(extras);
  if (more) {
    lines.push('');
    lines.push(more);
    lines.push('');
    lines.push('viewers: GET /events streams read by a separate process; paced: one call every 1/rate s, sent on time whether or');
    lines.push('not earlier ones were answered (open loop), p50/p99 from each call\'s start to the end of its answer.');
  }
  if (sandbox) {
    lines.push('');
    lines.push(...sandboxLines(sandbox));
  }
  if (llm) {
    lines.push('');
    lines.push(...llmLines(llm));
  }
  if (recovery) {
    lines.push('');
    lines.push(...recoveryLines(recovery));
  }
  if (search) {
    lines.push('');
    lines.push(...toolSearchLines(search));
  }
  if (memory) {
    lines.push('');
    lines.push(...memoryLines(memory));
  }
  lines.push(`load average after: ${loadAfter.map((l) => l.toFixed(2)).join(' ')}`);
  lines.push('');
  for (const check of checks) lines.push(`${`${verdict(check.ok)}${check.noisy ? '?' : ''}`.padEnd(7)}  ${check.text}${check.noisy ? '  (noisy run)' : ''}`);
  const noisy = noiseWarnings(results, extras);
  if (noisy.length) {
    lines.push('');
    lines.push(
      `NOISY: other processes were busy during runs the verdicts use (${noisy.join('; ')}); the verdicts marked "?" are unreliable, run again.`,
    );
  }
  const missed = checks.filter((c) => !c.ok);
  lines.push('');
  lines.push(missed.length === 0 ? 'All bars met.' : `MISSED ${missed.length} bar${missed.length > 1 ? 's' : ''}: ${missed.map((c) => c.name).join(', ')}`);
  if (profileDir) {
    const files = readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'));
    lines.push(`CPU profiles of the server children: ${files.map((f) => join(profileDir, f)).join(', ') || '(none written)'}`);
    for (const f of files) {
      const profile = JSON.parse(readFileSync(join(profileDir, f), 'utf8')) as Parameters<typeof summarizeProfile>[0];
      const target = results.find((r) => `${r.key}.cpuprofile` === f);
      const requests = target ? 1 + [target.warmup, target.c32, target.c1, target.sequential].reduce((n, c) => n + c.responses, 0) : 0;
      lines.push('', `=== ${target?.label ?? f} ===`, summarizeProfile(profile, 20, [], requests));
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);

  const json = {
    started_at: startedAt.toISOString(),
    finished_at: new Date().toISOString(),
    machine: { node: process.version, cpus: cpuList.length, cpu_model: cpuList[0]?.model.trim(), loadavg_before: loadBefore, loadavg_after: loadAfter },
    options: { ...options, only: [...options.only] },
    bars: BARS,
    targets: results,
    accounting: accounting ?? null,
    events: extras.events ?? null,
    tool_list: extras.tools ?? null,
    startup: startup ?? null,
    sandbox: sandbox ?? null,
    memory: memory ?? null,
    llm: llm ?? null,
    recovery: recovery ?? null,
    tool_search: search ?? null,
    verdicts: checks,
    all_bars_met: missed.length === 0,
  };
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, 'latest.json');
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
  process.stdout.write(`Results written to ${file}\n`);
  return 0;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`bench: ${signal}, stopping the servers\n`);
    killAllChildren();
    process.exit(130);
  });
}

main().then(
  (code) => {
    killAllChildren();
    process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`bench: failed: ${(error as Error).stack ?? String(error)}\n`);
    killAllChildren();
    process.exit(1);
  },
);

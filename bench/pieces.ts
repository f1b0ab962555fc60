/**
 * Where a Pincer `calculate` call spends its time, measured in pieces (a diagnosis aid next to `npm run bench`).
 *
 *   npm run build && node dist/bench/pieces.js [--duration N] [--rounds N] [--skip-http] [--skip-steps]
 *
 * 1. HTTP ladder (each rung its own child process, autocannon @32 on 127.0.0.1, server CPU per request from
 *    /proc): bare Express → + Pincer's HTTP middleware → full gateway with recording off → full gateway on tmpfs →
 *    full gateway on disk. Each step up the ladder adds one layer; its extra CPU per request is that layer's cost.
 *    Each rung also gets 2 s of one sequential client (p50/p99 at one connection).
 * 2. In-process steps (no HTTP): µs per operation of each stage of the executor pipeline and of the SQLite write,
 *    with variants of the write (tmpfs, no secondary indexes, batched commits, synchronous=OFF) to show what the
 *    write's cost is made of. Nothing under server/ is changed: variants are built next to it, on temp copies.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { createGateway, loadConfig, type Gateway } from '../server/index.js';
import { parseUntrustedJson } from '../server/util/json.js';
import { newCallId } from '../server/executor/executor.js';
import { RiskPolicy } from '../server/policy/policy.js';
import { CallStore, type CallRecord } from '../server/store/calls.js';
import { openDatabase } from '../server/store/db.js';
import { MIGRATIONS } from '../server/store/migrations/index.js';
import { redactSecrets } from '../server/util/redact.js';
import { killAllChildren, makeTempDir, startServer, type ServerMode } from './children.js';
import { BENCH_BODY, BENCH_PATH, summarize } from './common.js';
import { probe, runAutocannon, runSequential, withServerCpu } from './load.js';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    duration: { type: 'string' },
    rounds: { type: 'string' },
    'skip-http': { type: 'boolean' },
    'skip-steps': { type: 'boolean' },
  },
});
const DURATION = Number(values.duration ?? 3);
const ROUNDS = Math.max(1, Number(values.rounds ?? 1));
const SEQUENTIAL = 2;
const tempDir = (base = tmpdir()) => makeTempDir('pincer-pieces-', base);
const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

// ---------- 1. HTTP ladder ----------

interface Rung {
  label: string;
  mode: ServerMode;
  dataDir?: () => string;
  flags?: string[];
}

const SHM = '/dev/shm';
const RUNGS: Rung[] = [
  { label: 'bare Express + express.json()', mode: 'express' },
  { label: '+ Pincer HTTP middleware (headers, guards, JSON body, auth)', mode: 'express-mw', dataDir: () => tempDir() },
  { label: 'full HTTP app + execute route, executor stubbed', mode: 'pincer', dataDir: () => tempDir(), flags: ['--stub-executor'] },
  { label: 'full gateway, recording off (save = no-op)', mode: 'pincer', dataDir: () => tempDir(), flags: ['--no-record'] },
  { label: 'full gateway, data dir on tmpfs (/dev/shm)', mode: 'pincer', dataDir: () => tempDir(SHM) },
  { label: 'full gateway, data dir on disk (= bench target C)', mode: 'pincer', dataDir: () => tempDir() },
];

interface RungResult {
  rps: number;
  cpuUs: number | null;
  /** Cores used by other processes during the runs (the larger of @32 and sequential): noise. */
  otherLoad: number | null;
  non2xx: number;
  /** One client, sequential http.request: p50 and p99 in ms. */
  p50: number;
  p99: number;
}

async function rung(r: Rung): Promise<RungResult> {
  const dataDir = r.dataDir?.();
  const server = await startServer(r.mode, dataDir ? [dataDir, ...(r.flags ?? [])] : []);
  try {
    const target = {
      port: server.port,
      path: BENCH_PATH,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token ?? `pk_${'x'.repeat(43)}`}` },
      body: BENCH_BODY,
    };
    const first = await probe(target);
    if (first.status !== 200) throw new Error(`${r.label}: probe got ${first.status} ${JSON.stringify(first.body)}`);
    await runAutocannon(target, 32, 1);
    const run = await withServerCpu(server.pid, () => runAutocannon(target, 32, DURATION));
    const one = await withServerCpu(server.pid, () => runSequential(target, SEQUENTIAL));
    return {
      rps: run.requestsPerSecond,
      cpuUs: run.serverCpuUsPerRequest,
      otherLoad: run.otherLoadCores === null || one.otherLoadCores === null ? null : Math.max(run.otherLoadCores, one.otherLoadCores),
      non2xx: run.non2xx + run.errors + one.non2xx + one.errors,
      p50: one.latencyMs.p50,
      p99: one.latencyMs.p99,
    };
  } finally {
    await server.stop();
  }
}

async function ladder(): Promise<void> {
  const samples = RUNGS.map(() => [] as RungResult[]);
  for (let round = 0; round < ROUNDS; round++) {
    // Every other round runs the ladder top-down, so a drift in machine load does not favour one end.
    const order = [...RUNGS.keys()];
    if (round % 2 === 1) order.reverse();
    for (const i of order) {
      const r = RUNGS[i]!;
      process.stderr.write(`pieces: round ${round + 1}/${ROUNDS}: ${r.label}\n`);
      samples[i]!.push(await rung(r));
    }
  }
  const rows = RUNGS.map((r, i) => {
    const list = samples[i]!;
    // The quietest round: on a shared machine, other processes lower throughput and even raise CPU per request
    // (the two vCPUs share caches), so the round they disturbed least is the best estimate.
    const quietest = [...list].sort((a, b) => (a.otherLoad ?? Infinity) - (b.otherLoad ?? Infinity))[0]!;
    return {
      label: r.label,
      rps: quietest.rps,
      cpu: quietest.cpuUs ?? Number.NaN,
      non2xx: list.reduce((n, s) => n + s.non2xx, 0),
      p50: quietest.p50,
      p99: quietest.p99,
      other: quietest.otherLoad ?? Number.NaN,
    };
  });
  const base = rows[0]!;
  const width = Math.max(...rows.map((r) => r.label.length));
  console.log(
    `HTTP ladder: autocannon @32 for ${DURATION} s per rung after 1 s warm-up, then ${SEQUENTIAL} s of one sequential client; per rung the round of ${ROUNDS} with the least other load`,
  );
  console.log(
    `${'rung'.padEnd(width)}  ${'req/s@32'.padStart(8)}  ${'vs Express'.padStart(10)}  ${'CPU/req'.padStart(9)}  ${'Δ CPU/req'.padStart(10)}  ${'p50@1'.padStart(8)}  ${'p99@1'.padStart(8)}  non-2xx  other load`,
  );
  rows.forEach((r, i) => {
    const prev = rows[i - 1];
    console.log(
      `${r.label.padEnd(width)}  ${fmt(r.rps, 0).padStart(8)}  ${`${fmt((r.rps / base.rps) * 100)} %`.padStart(10)}  ${`${fmt(r.cpu, 0)} µs`.padStart(9)}  ${
        prev ? `${r.cpu - prev.cpu >= 0 ? '+' : ''}${fmt(r.cpu - prev.cpu, 0)} µs`.padStart(10) : ''.padStart(10)
      }  ${`${fmt(r.p50, 3)} ms`.padStart(8)}  ${`${fmt(r.p99, 3)} ms`.padStart(8)}  ${String(r.non2xx).padStart(7)}  ${fmt(r.other, 2)}`,
    );
  });
  console.log('');
}

// ---------- 2. in-process steps ----------

/** Best (lowest) over `rounds` of the mean µs per call of `fn` over `n` calls (after a warm-up of n/4). */
function time(n: number, fn: (i: number) => void, rounds = 5): number {
  for (let i = 0; i < n / 4; i++) fn(i);
  const results: number[] = [];
  let offset = n;
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) fn(offset + i);
    results.push(((performance.now() - t0) * 1000) / n);
    offset += n;
  }
  return Math.min(...results);
}

async function timeAsync(n: number, fn: (i: number) => Promise<unknown>, rounds = 5): Promise<number> {
  for (let i = 0; i < n / 4; i++) await fn(i);
  const results: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await fn(i);
    results.push(((performance.now() - t0) * 1000) / n);
  }
  return Math.min(...results);
}

function gatewayOn(dir: string): Gateway {
  return createGateway({ config: loadConfig({ flags: { dataDir: dir, port: 0 }, env: {} }) });
}

/** A database with the gateway's schema, optionally changed, opened with the gateway's pragmas. */
function variantDb(dir: string, options: { dropIndexes?: boolean; synchronous?: 'NORMAL' | 'OFF' }): Database.Database {
  const db = new Database(join(dir, 'variant.db'));
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
  db.pragma('foreign_keys = ON');
  for (const migration of MIGRATIONS) {
    const sql = options.dropIndexes ? migration.sql.replace(/^\s*CREATE INDEX[^;]*;/gm, '') : migration.sql;
    db.exec(sql);
  }
  return db;
}

let walNote = '';
const latencyNotes: string[] = [];

async function steps(): Promise<void> {
  const lines: [string, number][] = [];
  const add = (label: string, us: number) => {
    lines.push([label, us]);
    process.stderr.write(`pieces: ${label}: ${fmt(us, 2)} µs\n`);
  };

  const gw = gatewayOn(tempDir());
  const token = gw.credentials.defaultToken;
  const tool = gw.registry.get('calculate')!;
  const args = { expression: '(1+2)*3' };
  let template: CallRecord | undefined;
  gw.events.on('call', ({ phase, call }) => {
    if (phase === 'succeeded') template = call;
  });
  await gw.executor.execute({ tool: 'calculate', arguments: { ...args }, client: 'default', via: 'http' });
  if (!template) throw new Error('no call event seen');
  const record = template;
  gw.events.removeAllListeners('call');

  add('parse the JSON body (nesting check + secure-json-parse)', time(20_000, () => parseUntrustedJson(BENCH_BODY, 64)));
  add('auth: credentials.clientForToken (default token)', time(20_000, () => gw.credentials.clientForToken(token)));
  add('resolve + validate arguments (registry.get, isEnabled, ajv)', time(20_000, () => {
    const t = gw.registry.get('calculate')!;
    gw.registry.isEnabled('calculate');
    t.validate({ expression: '(1+2)*3' });
  }));
  const policy = new RiskPolicy();
  add('policy.decide (RiskPolicy)', time(20_000, () => policy.decide({ tool, arguments: args, client: 'default' })));
  const context = { signal: new AbortController().signal, callId: 'c', client: 'default' };
  add('the tool: calculate handler ("(1+2)*3")', time(20_000, () => tool.definition.handler(args, context)));
  const sink: unknown[] = [];
  add('one AbortController + its signal (2 per call: the route\'s callerSignal, #run\'s abort)', time(20_000, (i) => {
    sink[i & 1023] = new AbortController().signal; // the signal is created lazily, on first access
  }));
  add('newCallId (randomBytes(6))', time(20_000, (i) => {
    sink[i & 1023] = newCallId();
  }));
  add('publicRecord ×2 (spread + redactSecrets of arguments and result)', time(20_000, (i) => {
    for (let k = 0; k < 2; k++) sink[(i + k) & 1023] = { ...record, arguments: redactSecrets(record.arguments), result: redactSecrets(record.result) };
  }));
  add('per-call bookkeeping replica: 2 AbortControllers, setTimeout/clearTimeout, abort listeners', time(20_000, () => {
    const caller = new AbortController();
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), 1000);
    const onGone = () => abort.abort();
    caller.signal.addEventListener('abort', onGone, { once: true });
    abort.signal.addEventListener('abort', () => {}, { once: true });
    clearTimeout(timer);
    caller.signal.removeEventListener('abort', onGone);
  }));

  const exec = () => gw.executor.execute({ tool: 'calculate', arguments: { expression: '(1+2)*3' }, client: 'default', via: 'http' });
  add('executor.execute, full (recording on disk)', await timeAsync(3000, exec));
  const gwNoRecord = gatewayOn(tempDir());
  gwNoRecord.store.calls.save = () => {};
  gwNoRecord.store.calls.saveSoon = () => Promise.resolve();
  add('executor.execute, recording off (save = no-op)', await timeAsync(3000, () =>
    gwNoRecord.executor.execute({ tool: 'calculate', arguments: { expression: '(1+2)*3' }, client: 'default', via: 'http' }),
  ));

  // The SQLite write and what it is made of.
  const ids = (n: number) => Array.from({ length: n }, () => newCallId());
  const saveWith = (store: CallStore, n: number) => {
    const list = ids(n * 7);
    return time(n, (i) => store.save({ ...record, id: list[i]! }));
  };
  add('store.calls.save, data dir on disk (the gateway as it is)', saveWith(gw.store.calls, 3000));
  const shmDir = tempDir(SHM);
  const shmDb = openDatabase(join(shmDir, 'pincer.db'));
  add('store.calls.save, data dir on tmpfs (/dev/shm)', saveWith(new CallStore(shmDb), 3000));
  const noIdxDb = variantDb(tempDir(), { dropIndexes: true });
  add('save on disk, schema without the 5 secondary indexes', saveWith(new CallStore(noIdxDb), 3000));
  const offDb = variantDb(tempDir(), { synchronous: 'OFF' });
  add('save on disk, synchronous=OFF (no fsync at checkpoints)', saveWith(new CallStore(offDb), 3000));
  const batchDb = variantDb(tempDir(), {});
  const batchStore = new CallStore(batchDb);
  const batchIds = ids(32 * 300 * 7);
  const saveBatch = batchDb.transaction((start: number) => {
    for (let k = 0; k < 32; k++) batchStore.save({ ...record, id: batchIds[start * 32 + k]! });
  });
  add('save on disk, 32 rows per transaction (per row)', time(300, (i) => saveBatch(i)) / 32);

  // The write one at a time: a checkpoint (with its fsyncs) lands on one call in ~117 and blocks the event loop.
  const saveLatencies = (store: CallStore, n: number) => {
    const list = ids(n);
    const each: number[] = [];
    for (const id of list) {
      const t0 = performance.now();
      store.save({ ...record, id });
      each.push(performance.now() - t0);
    }
    const sum = summarize(each);
    const slow = each.filter((ms) => ms > 1);
    return (
      `p50 ${fmt(sum.p50 * 1000, 0)} µs, p99 ${fmt(sum.p99, 2)} ms, max ${fmt(sum.max, 1)} ms; ` +
      `${slow.length} of ${n} over 1 ms (1 in ${fmt(n / Math.max(1, slow.length), 0)}), averaging ${fmt(slow.reduce((a, b) => a + b, 0) / Math.max(1, slow.length), 1)} ms`
    );
  };
  latencyNotes.push(`one save at a time, disk:  ${saveLatencies(gw.store.calls, 5000)}`);
  latencyNotes.push(`one save at a time, tmpfs: ${saveLatencies(new CallStore(shmDb), 5000)}`);

  // What one call writes: WAL frames (pages) per insert, with automatic checkpoints off so every frame is counted.
  const framesPerCall = (dropIndexes: boolean) => {
    const db = variantDb(tempDir(), { dropIndexes });
    db.pragma('wal_autocheckpoint = 0');
    const store = new CallStore(db);
    const list = ids(1000);
    const before = (db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]!.log;
    for (const id of list) store.save({ ...record, id });
    const after = (db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]!.log;
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    return { frames: (after - before) / list.length, pageSize };
  };
  const withIdx = framesPerCall(false);
  const withoutIdx = framesPerCall(true);
  walNote =
    `WAL per recorded call: ${fmt(withIdx.frames, 2)} pages of ${withIdx.pageSize} B (${fmt((withIdx.frames * withIdx.pageSize) / 1024, 1)} KiB) ` +
    `with the gateway's schema, ${fmt(withoutIdx.frames, 2)} pages without the 5 secondary indexes; ` +
    `the default wal_autocheckpoint (1000 pages) therefore checkpoints (and fsyncs) every ~${fmt(1000 / withIdx.frames, 0)} calls.`;

  for (const db of [shmDb, noIdxDb, offDb, batchDb]) db.close();
  await gw.close(0);
  await gwNoRecord.close(0);

  const width = Math.max(...lines.map(([l]) => l.length));
  console.log('In-process steps of one calculate call (wall µs per operation, best of 5 rounds):');
  for (const [label, us] of lines) console.log(`  ${label.padEnd(width)}  ${fmt(us, 2).padStart(8)} µs`);
  for (const note of latencyNotes) console.log(note);
  console.log(walNote);
  console.log('');
}

async function main(): Promise<void> {
  try {
    if (!values['skip-http']) await ladder();
    if (!values['skip-steps']) await steps();
  } finally {
    killAllChildren();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`pieces: failed: ${(error as Error).stack ?? String(error)}\n`);
    killAllChildren();
    process.exit(1);
  },
);

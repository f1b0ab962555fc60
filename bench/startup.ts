/**
 * Start-up bar: `pincer serve` answers /health within 1 s of being spawned, idles at ≤ 150 MB RSS, and stops
 * cleanly (exit 0) on SIGINT.
 */
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { exited, makeTempDir, removeTempDir, spawnTracked, stopChild } from './children.js';
import { cleanEnv, LOOPBACK, sleep } from './common.js';

export interface StartupResult {
  port: number;
  /** From spawn() to the first 200 of GET /health. */
  healthMs: number | null;
  healthAttempts: number;
  /** VmRSS after idling, KiB; and the peak (VmHWM). */
  idleRssKiB: number | null;
  peakRssKiB: number | null;
  idleMs: number;
  exitCode: number | null;
  exitSignal: string | null;
  /** Milliseconds from SIGINT to exit. */
  stopMs: number | null;
  killed: boolean;
  listeningLine: string | null;
  error?: string;
}

/** A port nobody is listening on right now (there is a small window before the gateway takes it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function healthStatus(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = get({ host: LOOPBACK, port, path: '/health', agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
      res.once('error', () => resolve(0));
    });
    req.once('error', () => resolve(0));
    req.setTimeout(1000, () => req.destroy());
  });
}

function readVm(pid: number): { rss: number | null; hwm: number | null } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => {
      const match = new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
      return match ? Number(match[1]) : null;
    };
    return { rss: field('VmRSS'), hwm: field('VmHWM') };
  } catch {
    return { rss: null, hwm: null };
  }
}

export async function measureStartup(pincerBin: string, nodeFlags: readonly string[] = [], idleMs = 1000, healthTimeoutMs = 10_000): Promise<StartupResult> {
  const dataDir = makeTempDir('pincer-bench-startup-');
  const port = await freePort();
  const result: StartupResult = {
    port,
    healthMs: null,
    healthAttempts: 0,
    idleRssKiB: null,
    peakRssKiB: null,
    idleMs,
    exitCode: null,
    exitSignal: null,
    stopMs: null,
    killed: false,
    listeningLine: null,
  };
  const t0 = performance.now();
  const child = spawnTracked(
    process.execPath,
    [...nodeFlags, pincerBin, 'serve', '--data-dir', dataDir, '--host', LOOPBACK, '--port', String(port)],
    { stdio: ['ignore', 'pipe', 'pipe'], env: cleanEnv() },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let gone = false;
  void exited(child).then(() => (gone = true));
  try {
    while (performance.now() - t0 < healthTimeoutMs && !gone) {
      result.healthAttempts++;
      if ((await healthStatus(port)) === 200) {
        result.healthMs = performance.now() - t0;
        break;
      }
      await sleep(5);
    }
    if (result.healthMs === null) {
      result.error = gone ? `pincer serve exited before answering /health: ${output.trim()}` : `no /health answer within ${healthTimeoutMs} ms`;
      return result;
    }
    await sleep(idleMs);
    const vm = readVm(child.pid!);
    result.idleRssKiB = vm.rss;
    result.peakRssKiB = vm.hwm;
    const stopStart = performance.now();
    const exit = await stopChild(child, 'SIGINT', 10_000);
    result.stopMs = performance.now() - stopStart;
    result.exitCode = exit.code;
    result.exitSignal = exit.signal;
    result.killed = exit.killed;
    return result;
  } finally {
    result.listeningLine = /^.*listening on.*$/m.exec(output)?.[0] ?? null;
    await stopChild(child, 'SIGKILL', 2000);
    removeTempDir(dataDir);
  }
}

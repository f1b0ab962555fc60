import { request } from 'node:http';
import { makeTempDir, removeTempDir, startServer } from './children.js';
import { BENCH_BODY, BENCH_PATH, percentile } from './common.js';
import type { BenchTiming } from './events.js';
import { runAutocannon } from './load.js';

/**
 * The OS sandbox's cost (docs/security.md, "A second wall behind the policy"): the same gateway with and without it, in one run. A shell
 * command's start is where the sandbox adds work (bubblewrap sets up its namespaces and mounts); calculate never runs
 * a process, so its throughput should not move.
 */

export interface SandboxVariant {
  /** What the gateway found at start: bubblewrap, sandbox-exec or none. */
  kind: string;
  /** run_shell `true`, one call at a time: milliseconds from request to answer. */
  shellStartMs: { p50: number; p90: number };
  /** calculate at 32 connections, requests per second. */
  calculateRps: number;
}

export interface SandboxResult {
  on: SandboxVariant;
  off: SandboxVariant;
}

const SHELL_CALLS = 40;
const progress = (line: string) => process.stderr.write(`bench: ${line}\n`);

function post(port: number, path: string, token: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function variant(sandbox: boolean, timing: BenchTiming): Promise<SandboxVariant> {
  const dataDir = makeTempDir('pincer-bench-sandbox-');
  const server = await startServer('pincer', [dataDir, ...(sandbox ? [] : ['--no-sandbox'])]);
  try {
    const token = server.token!;
    const health = await new Promise<string>((resolve, reject) =>
      request({ host: '127.0.0.1', port: server.port, path: '/health' }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve(text));
      })
        .on('error', reject)
        .end(),
    );
    const kind = (JSON.parse(health) as { sandbox?: { kind: string } }).sandbox?.kind ?? 'unknown';
    const times: number[] = [];
    for (let i = 0; i < SHELL_CALLS + 3; i++) {
      const t0 = performance.now();
      const answer = await post(server.port, '/tools/run_shell/execute', token, JSON.stringify({ command: 'true' }));
      if (answer.status !== 200 || !answer.text.includes('"success":true')) throw new Error(`run_shell true failed: ${answer.status} ${answer.text.slice(0, 200)}`);
      if (i >= 3) times.push(performance.now() - t0); // the first calls warm up the interpreter probe and the JIT
    }
    times.sort((a, b) => a - b);
    const target = { port: server.port, path: BENCH_PATH, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: BENCH_BODY };
    await runAutocannon(target, 32, Math.max(1, Math.min(timing.warmup, 2)));
    const load = await runAutocannon(target, 32, timing.duration);
    return { kind, shellStartMs: { p50: percentile(times, 0.5), p90: percentile(times, 0.9) }, calculateRps: load.requestsPerSecond };
  } finally {
    await server.stop();
    removeTempDir(dataDir);
  }
}

export async function benchSandbox(timing: BenchTiming): Promise<SandboxResult> {
  progress('sandbox: run_shell start and calculate, with the OS sandbox');
  const on = await variant(true, timing);
  progress('sandbox: the same without it');
  const off = await variant(false, timing);
  return { on, off };
}

export function sandboxLines(result: SandboxResult): string[] {
  const { on, off } = result;
  return [
    `sandbox (${on.kind} vs ${off.kind}): run_shell "true" p50 ${on.shellStartMs.p50.toFixed(1)} ms vs ${off.shellStartMs.p50.toFixed(1)} ms ` +
      `(p90 ${on.shellStartMs.p90.toFixed(1)} vs ${off.shellStartMs.p90.toFixed(1)}); calculate @32 ${Math.round(on.calculateRps)} vs ` +
      `${Math.round(off.calculateRps)} req/s (${((100 * on.calculateRps) / off.calculateRps).toFixed(0)} %)`,
  ];
}

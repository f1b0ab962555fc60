/**
 * Child processes and temp directories of the benchmark: every one is tracked here, and killed or removed when the
 * parent ends, whatever the reason.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cleanEnv } from './common.js';

const live = new Set<ChildProcess>();

function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

const tempDirs = new Set<string>();

/** A fresh temp directory that is removed with removeTempDir or, at the latest, when the benchmark exits. */
export function makeTempDir(prefix: string, base = tmpdir()): string {
  const dir = mkdtempSync(join(base, prefix));
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/** SIGKILLs every child still running and removes the temp directories (used on errors, signals and at exit). */
export function killAllChildren(): void {
  for (const child of live) {
    if (alive(child)) child.kill('SIGKILL');
  }
  live.clear();
  for (const dir of [...tempDirs]) removeTempDir(dir);
}
process.on('exit', killAllChildren);

/** Spawns a tracked child; it leaves the set when it exits. */
export function spawnTracked(command: string, args: string[], options: SpawnOptions): ChildProcess {
  const child = spawn(command, args, options);
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

export type ExitInfo = { code: number | null; signal: NodeJS.Signals | null };

/** Resolves when the child exits (at once if it already has). */
export function exited(child: ChildProcess): Promise<ExitInfo> {
  if (!alive(child)) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Sends `signal`, waits up to `graceMs` for the exit, then SIGKILLs. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals, graceMs: number): Promise<ExitInfo & { killed: boolean }> {
  if (!alive(child)) return { ...(await exited(child)), killed: false };
  const exit = exited(child);
  child.kill(signal);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([
    exit.then(() => false),
    new Promise<true>((resolve) => (timer = setTimeout(() => resolve(true), graceMs))),
  ]);
  clearTimeout(timer);
  if (timedOut) child.kill('SIGKILL');
  return { ...(await exit), killed: timedOut };
}

export type ServerMode = 'http' | 'http-tools' | 'express' | 'express-mw' | 'pincer';

export interface ServerChild {
  mode: ServerMode;
  child: ChildProcess;
  port: number;
  pid: number;
  /** The gateway's default client token (pincer mode). */
  token: string | undefined;
  /** SIGTERMs the server and returns the report it prints while stopping (history rows for pincer). */
  stop(graceMs?: number): Promise<{ report: Record<string, unknown> | undefined; exit: ExitInfo & { killed: boolean } }>;
}

const SERVERS_SCRIPT = fileURLToPath(new URL('./servers.js', import.meta.url));

const here = dirname(fileURLToPath(import.meta.url));
/** The package folder, whether this runs from bench/ or from dist/bench/. */
export const ROOT = here.endsWith(`${sep}dist${sep}bench`) ? resolve(here, '..', '..') : resolve(here, '..');
/** Pincer is measured as it runs: with the V8 flags `pincer serve` and `npm start` give it (bin/pincer.js's first line). */
const { gatewayNodeFlags } = (await import(pathToFileURL(join(ROOT, 'scripts', 'node-flags.mjs')).href)) as typeof import('../scripts/node-flags.mjs');
export const GATEWAY_NODE_FLAGS: readonly string[] = gatewayNodeFlags(ROOT);

/**
 * Starts `dist/bench/servers.js <mode> [...args]` and waits for its ready line.
 * `nodeFlags` go before the script (e.g. --cpu-prof); a Pincer server also gets the gateway's own V8 flags.
 */
export async function startServer(mode: ServerMode, args: string[] = [], nodeFlags: string[] = [], readyTimeoutMs = 15_000): Promise<ServerChild> {
  const gatewayFlags = mode === 'pincer' ? GATEWAY_NODE_FLAGS : [];
  const child = spawnTracked(process.execPath, [...gatewayFlags, ...nodeFlags, SERVERS_SCRIPT, mode, ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: cleanEnv(),
  });
  const messages: Record<string, unknown>[] = [];
  const waiters: { test: (m: Record<string, unknown>) => boolean; resolve: (m: Record<string, unknown>) => void }[] = [];
  const lines = createInterface({ input: child.stdout! });
  lines.on('line', (line) => {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
    } catch {
      process.stderr.write(`[${mode} server] ${line}\n`);
      return;
    }
    messages.push(message);
    for (const waiter of [...waiters]) {
      if (waiter.test(message)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  });

  const waitFor = (test: (m: Record<string, unknown>) => boolean, timeoutMs: number, what: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const found = messages.find(test);
      if (found) return resolve(found);
      const timer = setTimeout(() => reject(new Error(`${mode} server: no ${what} within ${timeoutMs} ms`)), timeoutMs);
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        clearTimeout(timer);
        reject(new Error(`${mode} server exited (code ${code}, signal ${signal}) before ${what}`));
      };
      // 'close' (not 'exit'): it comes after stdout is drained, so a report printed just before exiting is seen.
      child.once('close', onExit);
      waiters.push({
        test,
        resolve: (m) => {
          clearTimeout(timer);
          child.removeListener('close', onExit);
          resolve(m);
        },
      });
    });

  let ready: Record<string, unknown>;
  try {
    ready = await waitFor((m) => m.ready === true, readyTimeoutMs, 'ready line');
  } catch (error) {
    await stopChild(child, 'SIGKILL', 1000);
    throw error;
  }
  const port = ready.port;
  if (typeof port !== 'number') throw new Error(`${mode} server: bad ready line ${JSON.stringify(ready)}`);

  return {
    mode,
    child,
    port,
    pid: child.pid!,
    token: typeof ready.token === 'string' ? ready.token : undefined,
    async stop(graceMs = 10_000) {
      const reportKey = mode === 'pincer' ? 'history_rows' : 'stopped';
      const report = waitFor((m) => reportKey in m, graceMs, 'stop report').catch(() => undefined);
      const exit = await stopChild(child, 'SIGTERM', graceMs);
      return { report: await report, exit };
    },
  };
}

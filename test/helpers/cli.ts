import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach } from 'vitest';
import { tempDir } from './gateway.js';

/** The real `pincer` command, as a person runs it (compiled by `npm test`'s pretest build). */
export const BIN = resolve(import.meta.dirname, '../../bin/pincer.js');
const run = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A loopback port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** Runs `pincer <args>`; never throws, so exit codes can be checked. */
export async function runPincer(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, timeout: 20_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

export interface Served {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** `pincer serve` in a child process, ready once it has printed its address and login link. */
export async function serve(dataDir: string, port: number, cwd?: string, env: NodeJS.ProcessEnv = {}): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', '--data-dir', dataDir, '--port', String(port)], {
    ...(cwd && { cwd }),
    env: { ...process.env, PINCER_TOKEN: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 15_000);
    child.stdout!.on('data', () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match && /login link/.test(output)) {
        clearTimeout(timer);
        resolveUrl(match[1]!);
      }
    });
    child.once('exit', () => reject(new Error(`serve exited early:\n${output}`)));
  });
  return { child, url, output: () => output, exited };
}

/** `npm start`'s launcher, run directly: it builds nothing then (`npm test` has built already). */
export const START = resolve(import.meta.dirname, '../../bin/start.js');

/**
 * `node bin/start.js ARGS` in a child process, ready once the headless gateway it fell back to has printed its
 * address and login link. `env` replaces the variables it names; a value of undefined removes one. `cwd`: where it
 * is started (default: here, the package's own folder, as `npm start` in a checkout).
 */
export async function startHeadless(args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<Served> {
  const merged: NodeJS.ProcessEnv = { ...process.env, PINCER_TOKEN: '' };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete merged[name];
    else merged[name] = value;
  }
  const child = spawn(process.execPath, [START, ...args], { env: merged, stdio: ['ignore', 'pipe', 'pipe'], ...(cwd && { cwd }) });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`start did not serve:\n${stdout}${stderr}`)), 20_000);
    child.stdout!.on('data', () => {
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match && /login link/.test(stdout)) {
        clearTimeout(timer);
        resolveUrl(match[1]!);
      }
    });
    child.once('exit', () => reject(new Error(`start exited early:\n${stdout}${stderr}`)));
  });
  // Standard output alone: the fallback line and the gateway's ready lines are checked in their order.
  return { child, url, output: () => stdout, exited };
}

/**
 * What a test of the command line leaves behind — temporary folders, loopback servers, started gateways — removed
 * after each test: `dir()` makes a folder, `servers` takes a server, `keep(served)` a started process.
 */
export function leftovers(prefix: string): { dir: () => string; servers: Server[]; keep: (served: Served) => Served } {
  const dirs: string[] = [];
  const servers: Server[] = [];
  const started: Served[] = [];
  afterEach(async () => {
    for (const served of started.splice(0)) {
      if (served.child.exitCode !== null) continue;
      served.child.kill('SIGKILL');
      await served.exited;
    }
    for (const server of servers.splice(0)) await new Promise((r) => server.close(r));
    for (const made of dirs.splice(0)) rmSync(made, { recursive: true, force: true });
  });
  return {
    dir: () => {
      const made = tempDir(prefix);
      dirs.push(made);
      return made;
    },
    servers,
    keep: (served) => {
      started.push(served);
      return served;
    },
  };
}

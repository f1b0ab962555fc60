import { statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { ChildHandle, ProcessRunner } from '../process/index.js';
import { scrubbedEnvironment } from '../process/index.js';
import type { PluginFetchInit } from '../plugin-api.js';
import { builtPath } from '../util/package-files.js';
import { unpackedPath } from '../util/unpacked.js';
import type { DeclaredTool, ToChild, ToParent } from './protocol.js';

/** The plugin process's script: always the build's (a plugin process runs plain JavaScript, even under tests). */
export function childScript(): string {
  return unpackedPath(builtPath('server', 'plugins', 'child.js'));
}

/** How long a plugin may take to load its entry and name its tools. */
const LOAD_TIMEOUT_MS = 15_000;
/** After a call is cancelled (timeout, caller gone), how long its plugin gets to notice before its process is killed. */
const CANCEL_GRACE_MS = 1_000;
const RESTART_DELAYS_MS = [1_000, 2_000, 5_000, 10_000, 30_000];
/** Up this long without a crash, a plugin's next crash counts as its first again. */
const HEALTHY_AFTER_MS = 60_000;
/** Largest line (one message) read from a plugin: a result bigger than this is refused, not buffered forever. */
const MAX_LINE_BYTES = 16 * 1024 * 1024;
const HEAP_MB = 256;

export interface HostLaunch {
  name: string;
  /** The folder the plugin runs in. */
  dir: string;
  /** The module to import (a file URL): the entry, or its build. */
  entryUrl: string;
  /** Paths the process may read (folders end with `/*`) and write; flags it gets. */
  read: string[];
  write: string[];
  childProcess: boolean;
  workers: boolean;
  addons: boolean;
  config: Record<string, unknown>;
}

export interface HostDeps {
  runner: ProcessRunner;
  /** Outgoing HTTP for the plugin, with the URL policy and its hosts applied; throws with a reason. */
  fetch(url: string, init: PluginFetchInit): Promise<{ status: number; url: string; headers: Record<string, string>; body: Buffer }>;
  log(level: 'debug' | 'info' | 'warn' | 'error', message: string): void;
  /** The process ended on its own while serving (crash, exit): the host restarts it after `delayMs`. */
  onCrash(reason: string, delayMs: number): void;
  /** It is back after a crash. */
  onRestarted(): void;
  /**
   * Asked before a restart after a crash: why it must not start again (its files no longer hash as accepted), or
   * null. A refusal leaves the process down; the caller decides what becomes of the plugin.
   */
  beforeRestart?(): string | null;
}

export class PluginCallError extends Error {
  constructor(
    readonly errorName: 'PLUGIN_ERROR' | 'PLUGIN_CRASHED' | 'PLUGIN_UNAVAILABLE',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Paths as Node's permission flags take them: a folder as `folder/*`, each path once. Node 20 aborts at start when
 * one path is given twice, or both as `folder` and `folder/*`.
 */
export function permissionPaths(paths: string[]): string[] {
  const byBase = new Map<string, boolean>();
  for (const path of paths) {
    const wildcard = path.endsWith('/*');
    const base = wildcard ? path.slice(0, -2) : path.replace(/\/+$/, '');
    const isFolder = wildcard || statSync(base, { throwIfNoEntry: false })?.isDirectory() === true;
    byBase.set(base, (byBase.get(base) ?? false) || isFolder);
  }
  return [...byBase].map(([base, folder]) => (folder ? `${base}/*` : base));
}

type LoadOutcome = Extract<ToParent, { type: 'loaded' | 'load-failed' }> | { type: 'exited'; reason: string };

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/**
 * One plugin's process: started under Node's permission model, loaded, asked to run calls, restarted with backoff
 * when it crashes, killed when a cancelled call does not stop. Nothing a plugin does can block the gateway: every
 * wait here has a bound, and the process is the plugin's alone.
 */
export class PluginHost {
  #child: ChildHandle | undefined;
  #calls = new Map<number, Pending>();
  /** Calls cancelled but not yet answered: the process is still busy with them. */
  readonly #abandoned = new Set<number>();
  #nextId = 1;
  #crashes = 0;
  /** Loaded at least once: a process that dies before that failed to load, it did not crash. */
  #ready = false;
  #startedAt = 0;
  #stopped = false;
  #restartTimer: NodeJS.Timeout | undefined;
  #loaded: ((outcome: LoadOutcome) => void) | undefined;

  constructor(
    private readonly launch: HostLaunch,
    private readonly deps: HostDeps,
  ) {}

  get running(): boolean {
    return this.#child !== undefined;
  }

  /** Starts the process and loads the plugin; resolves with its tools, rejects with why it did not load. */
  async start(): Promise<DeclaredTool[]> {
    const child = await this.deps.runner.start({
      kind: `plugin:${this.launch.name}`,
      command: process.execPath,
      args: [...this.#flags(), childScript()],
      cwd: this.launch.dir,
      env: {
        ...scrubbedEnvironment(),
        // Inside the desktop app, process.execPath is Electron: this makes it the Node runtime it carries.
        ...(process.versions.electron && { ELECTRON_RUN_AS_NODE: '1' }),
      },
    });
    this.#child = child;
    this.#startedAt = Date.now();
    this.#listen(child);
    const outcome = await new Promise<LoadOutcome>((resolve) => {
      const timer = setTimeout(() => resolve({ type: 'exited', reason: `it did not finish loading within ${LOAD_TIMEOUT_MS / 1000} s` }), LOAD_TIMEOUT_MS);
      this.#loaded = (message) => {
        clearTimeout(timer);
        this.#loaded = undefined;
        resolve(message);
      };
      this.#send({ type: 'load', entry: this.launch.entryUrl, name: this.launch.name, config: this.launch.config });
    });
    if (outcome.type === 'loaded') {
      this.#ready = true;
      return outcome.tools;
    }
    await this.#kill();
    throw new Error(outcome.type === 'load-failed' ? outcome.message : outcome.reason);
  }

  /** Runs one tool call; rejects at once when the signal fires, and kills the process if the plugin ignores it. */
  call(tool: string, args: unknown, context: { callId: string; client: string; signal: AbortSignal }): Promise<unknown> {
    if (!this.#child) {
      return Promise.reject(new PluginCallError('PLUGIN_UNAVAILABLE', `The plugin "${this.launch.name}" is restarting after a crash; try again in a few seconds.`));
    }
    const id = this.#nextId++;
    const { signal } = context;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#calls.delete(id);
        this.#send({ type: 'cancel', id });
        reject(signal.reason instanceof Error ? signal.reason : new Error('the call was cancelled'));
        // A plugin stuck in a loop cannot even read the cancel: its process goes, and comes back fresh.
        const child = this.#child;
        this.#abandoned.add(id);
        setTimeout(() => {
          if (child && this.#child === child && this.#abandoned.has(id)) void this.#crashed(child, 'a cancelled call did not stop', true);
        }, CANCEL_GRACE_MS).unref();
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#calls.set(id, {
        resolve: (value) => (signal.removeEventListener('abort', onAbort), resolve(value)),
        reject: (error) => (signal.removeEventListener('abort', onAbort), reject(error)),
      });
      this.#send({ type: 'call', id, tool, args, callId: context.callId, client: context.client });
    });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#restartTimer);
    await this.#kill();
    this.#failAll('PLUGIN_UNAVAILABLE', `The plugin "${this.launch.name}" was stopped.`);
  }

  #flags(): string[] {
    const { read, write, childProcess, workers, addons } = this.launch;
    // One flag per path: Node 20 reads a comma-separated list wrongly.
    return [
      '--experimental-permission',
      ...permissionPaths(read).map((path) => `--allow-fs-read=${path}`),
      ...permissionPaths(write).map((path) => `--allow-fs-write=${path}`),
      ...(childProcess ? ['--allow-child-process'] : []),
      ...(workers ? ['--allow-worker'] : []),
      ...(addons ? ['--allow-addons'] : []),
      `--max-old-space-size=${HEAP_MB}`,
      '--disable-warning=ExperimentalWarning',
    ];
  }

  #listen(child: ChildHandle): void {
    const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (line.length > MAX_LINE_BYTES) return this.deps.log('warn', 'dropped a message larger than 16 MiB');
      let message: ToParent;
      try {
        message = JSON.parse(line) as ToParent;
      } catch {
        return this.deps.log('debug', `stdout: ${line.slice(0, 500)}`);
      }
      this.#receive(message);
    });
    void child.exited.then(({ exitCode, signal }) => {
      if (this.#child !== child) return;
      const tail = child.stderr().trim().split('\n').slice(-3).join(' | ');
      const reason = `its process ended (${signal ?? `exit code ${exitCode}`})${tail ? `: ${tail.slice(-600)}` : ''}`;
      void this.#crashed(child, reason, false);
    });
  }

  #receive(message: ToParent): void {
    switch (message.type) {
      case 'loaded':
      case 'load-failed':
        this.#loaded?.(message);
        return;
      case 'result':
      case 'error': {
        this.#abandoned.delete(message.id);
        const pending = this.#calls.get(message.id);
        this.#calls.delete(message.id);
        if (message.type === 'result') pending?.resolve(message.value);
        else pending?.reject(new PluginCallError('PLUGIN_ERROR', message.message));
        return;
      }
      case 'log':
        this.deps.log(message.level, message.message);
        return;
      case 'fetch':
        void this.deps.fetch(message.url, message.init).then(
          (r) => this.#send({ type: 'fetched', id: message.id, status: r.status, url: r.url, headers: r.headers, body: r.body.toString('base64') }),
          (error: Error) => this.#send({ type: 'fetch-failed', id: message.id, message: error.message }),
        );
        return;
    }
  }

  /** The process is gone (or must go): fail what it was doing, and bring it back after a pause that grows. */
  async #crashed(child: ChildHandle, reason: string, kill: boolean): Promise<void> {
    if (this.#child !== child) return;
    this.#child = undefined;
    this.#abandoned.clear();
    this.#loaded?.({ type: 'exited', reason });
    if (kill) await child.stop(0);
    this.#failAll('PLUGIN_CRASHED', `The plugin "${this.launch.name}" stopped while running this call: ${reason}.`);
    if (this.#stopped || !this.#ready) return;
    if (Date.now() - this.#startedAt > HEALTHY_AFTER_MS) this.#crashes = 0;
    const delayMs = RESTART_DELAYS_MS[Math.min(this.#crashes, RESTART_DELAYS_MS.length - 1)]!;
    this.#crashes += 1;
    this.deps.onCrash(reason, delayMs);
    this.#restartTimer = setTimeout(() => {
      if (this.#stopped) return;
      const refused = this.deps.beforeRestart?.() ?? null;
      if (refused) return this.deps.log('error', `not restarted: ${refused}`);
      this.start().then(
        () => this.deps.onRestarted(),
        (error: Error) => this.deps.log('error', `restart failed: ${error.message}`),
      );
    }, delayMs);
    this.#restartTimer.unref();
  }

  #failAll(name: PluginCallError['errorName'], message: string): void {
    const calls = [...this.#calls.values()];
    this.#calls.clear();
    for (const pending of calls) pending.reject(new PluginCallError(name, message));
  }

  async #kill(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (child) await child.stop(500);
  }

  #send(message: ToChild): void {
    const child = this.#child;
    if (!child || child.stdin.destroyed) return;
    child.stdin.write(`${JSON.stringify(message)}\n`);
  }
}

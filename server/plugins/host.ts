import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ChildHandle, ProcessRunner, SandboxWrapper } from '../process/index.js';
import { scrubbedEnvironment } from '../process/index.js';
import type { Sandbox, SandboxScope, SandboxSupport } from '../process/sandbox.js';
import type { PluginFetchInit } from '../plugin-api.js';
import { describeBytes, MAX_MESSAGE_BYTES, readLines } from '../util/lines.js';
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
/**
 * When more than this waits unread in what the gateway writes to a plugin (answers, fetched bodies) and the plugin
 * reads none of it for UNREAD_GRACE_MS, it is ended: one that stops reading cannot make the gateway hold its answers.
 * What the gateway reads from a plugin is capped per message while it is read (MAX_MESSAGE_BYTES): a result, a log
 * line or a request is one.
 */
const MAX_UNREAD_BYTES = 64 * 1024 * 1024;
const UNREAD_GRACE_MS = 10_000;
/**
 * Requests a plugin may have going at once through the gateway, counted until their answer is on its pipe; more are
 * refused until some are answered. With the size cap of a response, this bounds what its requests hold.
 */
const MAX_FETCHES_IN_FLIGHT = 8;
const HEAP_MB = 256;

export interface HostLaunch {
  name: string;
  /** The folder the plugin runs in. */
  dir: string;
  /** The module to import (a file URL): the entry, or its build. */
  entryUrl: string;
  /**
   * What runs the plugin, read-only: its folder, its build, the child script, the plugin API and its shim (folders
   * end with `/*`). The sandbox shows these even inside the hidden folders (a user's plugin lies in the data folder).
   */
  code: string[];
  /** Paths its manifest lets it read (folders end with `/*`) and write, and the flags it gets. */
  read: string[];
  write: string[];
  childProcess: boolean;
  workers: boolean;
  addons: boolean;
  /** Folders the sandbox never shows, even where a declared path holds them (the data folder). */
  hidden: string[];
  config: Record<string, unknown>;
}

/** How a plugin's process is contained here, as GET /plugins shows it. */
export interface PluginSandboxView {
  kind: SandboxSupport['kind'];
  detail: string;
}

/** What contains a plugin's process where the gateway runs, in words for the owner. */
export function pluginSandbox(support: SandboxSupport): PluginSandboxView {
  const inside = "Node's permission model applies inside it too.";
  switch (support.kind) {
    case 'bubblewrap':
      return {
        kind: 'bubblewrap',
        detail: `bubblewrap: its own process namespace (it cannot signal the gateway or see other processes), no network (its HTTP goes through the gateway), its folder read-only, a private scratch folder, no home or data folder. ${inside}`,
      };
    case 'sandbox-exec':
      return {
        kind: 'sandbox-exec',
        detail: `macOS sandbox-exec: files limited to its folder, what it declared and a private scratch folder, no network (its HTTP goes through the gateway); signals to other processes are not blocked. ${inside}`,
      };
    default:
      return {
        kind: 'none',
        detail: `${support.detail} It runs under Node's permission model alone, which cannot stop raw network sockets or signals to other processes.`,
      };
  }
}

export interface HostDeps {
  runner: ProcessRunner;
  /** The OS sandbox the process runs in, where there is one. */
  sandbox: Sandbox;
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
 * One plugin's process: started inside the OS sandbox (where there is one) and under Node's permission model,
 * loaded, asked to run calls, restarted with backoff when it crashes, killed when a cancelled call does not stop or
 * it floods its pipe. Nothing a plugin does can block the gateway: every wait here has a bound, everything read from
 * it has a cap that applies while reading, and the process is the plugin's alone. The protocol runs on its file
 * descriptor 3; its standard output is only a log, so nothing it prints can break into the protocol.
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
  /** Requests of the current process whose answer is not on its pipe yet. */
  #fetching = 0;
  /** Messages the current process has taken off its pipe (read far enough for the next to go out). */
  #delivered = 0;
  /** Set while more than MAX_UNREAD_BYTES wait unread: ends the process if it reads nothing meanwhile. */
  #unreadTimer: NodeJS.Timeout | undefined;
  readonly #sandbox: SandboxWrapper | undefined;

  constructor(
    private readonly launch: HostLaunch,
    private readonly deps: HostDeps,
  ) {
    this.#sandbox = deps.sandbox.wrapper(this.#scope());
  }

  get running(): boolean {
    return this.#child !== undefined;
  }

  /** Starts the process and loads the plugin; resolves with its tools, rejects with why it did not load. */
  async start(): Promise<DeclaredTool[]> {
    const child = await this.#spawn();
    this.#child = child;
    this.#fetching = 0;
    this.#delivered = 0;
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

  /**
   * Starts the process in a private scratch folder (its HOME and TMPDIR) that lives as long as it does: the runner
   * removes the folder once the process has exited, and after a crash of the gateway at the next start.
   */
  #spawn(): Promise<ChildHandle> {
    const { runner } = this.deps;
    return new Promise((resolve, reject) => {
      runner
        .withScratch(`plugin:${this.launch.name}`, 'plugin', async (scratch) => {
          const child = await runner.start({
            kind: `plugin:${this.launch.name}`,
            command: process.execPath,
            args: [...this.#flags(scratch), childScript()],
            cwd: this.launch.dir,
            env: scrubbedEnvironment({
              set: {
                HOME: scratch,
                TMPDIR: scratch,
                // Inside the desktop app, process.execPath is Electron: this makes it the Node runtime it carries.
                ...(process.versions.electron && { ELECTRON_RUN_AS_NODE: '1' }),
              },
            }),
            scratch,
            channel: 'fd3',
            ...(this.#sandbox && { sandbox: this.#sandbox }),
          });
          resolve(child);
          await child.exited;
        })
        .catch(reject);
    });
  }

  /**
   * What the sandbox shows the process: its code read-only (bound last, so inside the data folder too), the paths
   * its manifest declares, no network ever — its HTTP goes over its pipe to the gateway, which applies the URL
   * policy and the manifest's hosts. Nothing else of the machine: no home folder, no data folder, no other process.
   */
  #scope(): SandboxScope {
    const bare = (path: string) => (path.endsWith('/*') ? path.slice(0, -2) : path);
    // Security: a declared path never replaces the sandbox's own /proc, /dev or /sys with the machine's (another
    // process's /proc/<pid>/environ holds the gateway's token).
    const bindable = (path: string) => path !== '/' && !/^\/(proc|dev|sys)(\/|$)/.test(path);
    return {
      readWrite: [],
      readOnly: this.launch.read.map(bare).filter(bindable),
      // A file it may create does not exist yet: its folder is bound (Node's permission model still holds it to the file).
      writable: this.launch.write.map(bare).map((path) => (existsSync(path) ? path : dirname(path))).filter(bindable),
      hidden: this.launch.hidden,
      network: false,
      // Its folder whole, read-only (the permission flags still name only the files it was accepted with).
      program: [this.launch.dir, ...this.launch.code.map(bare)],
    };
  }

  #flags(scratch: string): string[] {
    const { code, read, write, childProcess, workers, addons } = this.launch;
    // One flag per path: Node 20 reads a comma-separated list wrongly.
    return [
      '--experimental-permission',
      ...permissionPaths([...code, ...read, `${scratch}/*`]).map((path) => `--allow-fs-read=${path}`),
      ...permissionPaths([...write, `${scratch}/*`]).map((path) => `--allow-fs-write=${path}`),
      ...(childProcess ? ['--allow-child-process'] : []),
      ...(workers ? ['--allow-worker'] : []),
      ...(addons ? ['--allow-addons'] : []),
      `--max-old-space-size=${HEAP_MB}`,
      '--disable-warning=ExperimentalWarning',
    ];
  }

  #listen(child: ChildHandle): void {
    readLines(child.stdout, {
      maxLineBytes: MAX_MESSAGE_BYTES,
      onLine: (line) => {
        if (this.#child !== child || line === '') return;
        let message: ToParent;
        try {
          message = JSON.parse(line) as ToParent;
        } catch {
          return this.deps.log('warn', `wrote a line that is not a protocol message: ${line.slice(0, 200)}`);
        }
        this.#receive(child, message);
      },
      // Security: a message that never ends is cut off, not buffered until the gateway runs out of memory.
      onOverflow: (why) => void this.#crashed(child, `${why} on its protocol pipe, so Pincer ended it`, true),
    });
    void child.exited.then(({ exitCode, signal }) => {
      if (this.#child !== child) return;
      const tail = child.stderr().trim().split('\n').slice(-3).join(' | ');
      const reason = `its process ended (${signal ?? `exit code ${exitCode}`})${tail ? `: ${tail.slice(-600)}` : ''}`;
      void this.#crashed(child, reason, false);
    });
  }

  #receive(child: ChildHandle, message: ToParent): void {
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
        return this.#fetch(child, message);
    }
  }

  /** One request of the plugin's, made by the gateway; the answer goes to the process that asked, if it still runs. */
  #fetch(child: ChildHandle, message: Extract<ToParent, { type: 'fetch' }>): void {
    // Security: each request holds its body in the gateway until it is answered; their number is bounded.
    if (this.#fetching >= MAX_FETCHES_IN_FLIGHT) {
      return this.#send({ type: 'fetch-failed', id: message.id, message: `too many requests at once (at most ${MAX_FETCHES_IN_FLIGHT}); wait for some to finish` }, child);
    }
    this.#fetching += 1;
    const done = () => {
      if (this.#child === child) this.#fetching -= 1;
    };
    void this.deps.fetch(message.url, message.init).then(
      (r) => this.#send({ type: 'fetched', id: message.id, status: r.status, url: r.url, headers: r.headers, body: r.body.toString('base64') }, child, done),
      (error: Error) => this.#send({ type: 'fetch-failed', id: message.id, message: error.message }, child, done),
    );
  }

  /** The process is gone (or must go): fail what it was doing, and bring it back after a pause that grows. */
  async #crashed(child: ChildHandle, reason: string, kill: boolean): Promise<void> {
    if (this.#child !== child) return;
    this.#child = undefined;
    clearTimeout(this.#unreadTimer);
    this.#unreadTimer = undefined;
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
    clearTimeout(this.#unreadTimer);
    this.#unreadTimer = undefined;
    if (child) await child.stop(500);
  }

  /**
   * Writes to the current process (or to `to`, if that is still the current one: an answer to a request it made);
   * `written` runs once the message is on the pipe, or will never be.
   */
  #send(message: ToChild, to: ChildHandle | undefined = this.#child, written?: () => void): void {
    const child = this.#child;
    if (!child || to !== child || child.stdin.destroyed) return written?.();
    child.stdin.write(`${JSON.stringify(message)}\n`, () => {
      if (this.#child === child) this.#delivered += 1;
      written?.();
    });
    if (child.stdin.writableLength > MAX_UNREAD_BYTES) this.#watchUnread(child);
  }

  /**
   * Security: a plugin that stops reading (its event loop blocked) must not make the gateway hold what it sends it.
   * One that reads slowly (a busy machine) is left alone: it is ended only when none of it was read for a while.
   */
  #watchUnread(child: ChildHandle): void {
    if (this.#unreadTimer) return;
    const delivered = this.#delivered;
    this.#unreadTimer = setTimeout(() => {
      this.#unreadTimer = undefined;
      if (this.#child !== child || child.stdin.writableLength <= MAX_UNREAD_BYTES) return;
      if (this.#delivered !== delivered) return this.#watchUnread(child);
      const why = `it stopped reading what Pincer sends it (over ${describeBytes(MAX_UNREAD_BYTES)} waiting, none of it read for ${UNREAD_GRACE_MS / 1000} s), so Pincer ended it`;
      void this.#crashed(child, why, true);
    }, UNREAD_GRACE_MS);
    this.#unreadTimer.unref();
  }
}

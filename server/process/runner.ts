import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { scrubbedEnvironment } from './environment.js';
import { withLimits, type ProcessLimits } from './limits.js';
import type { LedgerEntry, LedgerRecord, Leftover, ProcessLedger } from './ledger.js';
import { OutputBuffer, type KeepPolicy } from './output-buffer.js';
import { processStartTime } from './proc.js';
import { ProcessTree } from './process-tree.js';
import { createScratchFolder, removeScratchFolder, removeScratchFolderSync } from './scratch.js';
import { spawnInTerminal, spawnWithPipes, type Spawned } from './spawners.js';

/**
 * Wraps a command before it is started, e.g. in an OS sandbox: gets the command line and where it will run, returns
 * the command line to start instead (`['bwrap', …, '--', ...argv]`). The wrapper becomes the group leader.
 */
export type SandboxWrapper = (argv: readonly string[], context: { cwd: string; scratch?: string }) => string[];

/** What every child process is started with, whether it runs to its end (run) or stays up (start). */
export interface LaunchOptions {
  /** What this is, for the ledger and the log: `run_shell`, `run_python`, `python analysis`, `plugin:<name>`… */
  kind: string;
  command: string;
  args?: readonly string[];
  /** Default: the scratch folder when there is one, else the system's temporary folder. */
  cwd?: string;
  /** The complete environment; build it with scrubbedEnvironment. Default: scrubbedEnvironment() as it stands. */
  env?: Record<string, string>;
  /** A folder from `withScratch` the process works in: recorded with it so a leftover is found by its folder. */
  scratch?: string;
  /**
   * Put a random `NAME=value` tag in the environment of everything the process starts, so one that escapes the
   * session and group (`setsid -f`) is still found, now and after a crash. For programs that run other programs.
   */
  tag?: boolean;
  /** Re-read the process tree while it runs, to keep track of jobs that leave the group (Linux). */
  watch?: boolean;
  sandbox?: SandboxWrapper;
  /** Memory limits of the process and of everything it starts, with or without the sandbox (see limits.ts). */
  limits?: ProcessLimits;
}

export interface RunOptions extends LaunchOptions {
  /** Run in a pseudo-terminal of this size (output is the terminal's, stdout only) instead of on pipes. */
  terminal?: { cols: number; rows: number };
  /** Standard input on pipes (closed after it); default empty. */
  stdin?: string | Buffer;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Cap on each output stream, in bytes. */
  maxOutputBytes: number;
  /** What is kept of a stream past the cap; default `ends` (start and end). */
  keep?: KeepPolicy;
  /** Live output as it arrives, capped at maxOutputBytes per stream too. */
  onOutput?: (chunk: string, stream: 'stdout' | 'stderr') => void;
  /** How long SIGTERM is given before SIGKILL on timeout or abort; 0 sends SIGKILL at once. Default 500 ms. */
  killGraceMs?: number;
}

export interface RunResult {
  /** Standard output; in a terminal, everything the terminal showed (escape sequences kept). */
  stdout: string;
  stderr: string;
  /** The exit status; null when a signal ended the program. */
  exitCode: number | null;
  /** The signal that ended the program (`SIGKILL` after a timeout without grace), or null. */
  signal: string | null;
  timedOut: boolean;
  /** The run was stopped because its AbortSignal fired; the output is what came before. */
  cancelled: boolean;
  /** A stream went past maxOutputBytes. */
  truncated: boolean;
  durationMs: number;
}

export interface StartOptions extends LaunchOptions {
  /** Standard error kept for diagnostics (start and end); default 64 KiB. */
  maxStderrBytes?: number;
  /**
   * Where the conversation runs: `stdio` (default), on standard input and output (an MCP stdio server); `fd3`, on a
   * pipe of its own at file descriptor 3, with standard output kept with standard error as its log (a plugin host:
   * nothing it or its children print can break into the protocol).
   */
  channel?: 'stdio' | 'fd3';
  /** Windows: `args` are already quoted for the program (cmd.exe running a .cmd file) and are passed as they are. */
  windowsVerbatimArguments?: boolean;
}

/** A long-lived child (a plugin host, an MCP stdio server) that talks over its standard input and output (or fd 3). */
export interface ChildHandle {
  readonly pid: number;
  /** What the gateway writes to it: its standard input, or with channel `fd3` that pipe. */
  readonly stdin: Writable;
  /** What it answers on: its standard output, or with channel `fd3` that same pipe. */
  readonly stdout: Readable;
  /** What it has written to standard error (with channel `fd3`, standard output too) so far, capped. */
  stderr(): string;
  /** Resolves when it has exited and whatever it started has been killed. */
  readonly exited: Promise<{ exitCode: number | null; signal: string | null }>;
  /** Stops it and everything it started: SIGTERM, then SIGKILL after `graceMs`. Resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

export interface ProcessRunnerOptions {
  /** Records every process until it ends, so the next start can end what a crash left (see ProcessLedger). */
  ledger?: ProcessLedger;
  /** Where scratch folders go; default the system's temporary folder. */
  scratchBase?: string;
  /** Warnings (a scratch folder that could not be removed). */
  warn?: (line: string) => void;
}

type Status = { exitCode: number | null; signal: string | null };

/** A started process the runner is answerable for until it has ended. */
interface Launched {
  spawned: Spawned;
  tree: ProcessTree;
  /** Its own ledger line; a process in a scratch folder shares the folder's, which withScratch removes. */
  entry: LedgerEntry | undefined;
  /** Resolves when the runner is done with it (killed leftovers, released the streams). */
  done: Promise<void>;
  release: () => void;
}

/** Name of the environment variable that tags a run's processes. Not PINCER_*: the scrubber would drop it. */
const TAG_VARIABLE = 'TOOL_RUN_TAG';
/** After the tree was killed, give up waiting for the program's exit report after this long. */
const EXIT_WAIT_MS = 2_000;
/** After the program exited and its leftovers were killed, how long its pipes may stay open. */
const DRAIN_AFTER_EXIT_MS = 1_000;
const WATCH_INTERVAL_MS = 200;
const DEFAULT_GRACE_MS = 500;

/**
 * The one way Pincer starts a child process (tools, the Python check, later plugin hosts and MCP servers): each
 * leads its own session and process group, gets a scrubbed environment, and is stopped — with everything it
 * started — on timeout, on abort, when it exits (background jobs go with it), and on a gateway stop; its output is
 * capped; every process is in the ledger while it lasts, so a `kill -9` of the gateway is cleaned up at the next
 * start.
 */
export class ProcessRunner {
  readonly #live = new Set<Launched>();
  readonly #scratch = new Map<string, LedgerEntry | undefined>();
  readonly #ledger: ProcessLedger | undefined;
  readonly #scratchBase: string | undefined;
  readonly #warn: (line: string) => void;

  constructor(options: ProcessRunnerOptions = {}) {
    this.#ledger = options.ledger;
    this.#scratchBase = options.scratchBase;
    this.#warn = options.warn ?? ((line) => console.error(`pincer: ${line}`));
  }

  /** Processes started and not yet over. */
  get running(): number {
    return this.#live.size;
  }

  /** Kills and cleans up what earlier gateways on the same data directory left running (see ProcessLedger.recover). */
  recoverLeftovers(): Leftover[] {
    return this.#ledger?.recover() ?? [];
  }

  /**
   * Gives `use` a fresh private folder (`pincer-<name>-XXXXXX`) and removes it, whatever is in it, when `use` is
   * done. The folder is in the ledger from the moment it exists.
   */
  async withScratch<T>(kind: string, name: string, use: (folder: string) => Promise<T>): Promise<T> {
    const folder = createScratchFolder(name, this.#scratchBase ?? tmpdir());
    this.#scratch.set(folder, this.#record({ kind, scratch: folder, startedAt: new Date().toISOString() }));
    try {
      return await use(folder);
    } finally {
      const entry = this.#scratch.get(folder);
      if (this.#scratch.delete(folder) && (await removeScratchFolder(folder, this.#warn))) entry?.remove();
    }
  }

  /** Runs one program to its end (or timeout, or abort). Rejects only when it cannot be started. */
  async run(options: RunOptions): Promise<RunResult> {
    const started = performance.now();
    const keep = options.keep ?? 'ends';
    const live = (stream: 'stdout' | 'stderr') => {
      const listener = options.onOutput;
      if (!listener) return undefined;
      const eol = options.terminal ? '\r\n' : '\n';
      const kept = keep === 'ends' ? 'the start and the end' : 'the start';
      return { listener: (chunk: string) => listener(chunk, stream), stopNote: `${eol}[… live output stops here; the result keeps ${kept} …]${eol}` };
    };
    const output = {
      stdout: new OutputBuffer(options.maxOutputBytes, keep, live('stdout')),
      stderr: new OutputBuffer(options.maxOutputBytes, keep, live('stderr')),
    };
    const answer = (status: Status, timedOut: boolean, cancelled: boolean): RunResult => ({
      stdout: output.stdout.text(),
      stderr: output.stderr.text(),
      exitCode: status.signal ? null : status.exitCode,
      signal: status.signal,
      timedOut,
      cancelled,
      truncated: output.stdout.truncated || output.stderr.truncated,
      durationMs: Math.round(performance.now() - started),
    });
    if (options.signal?.aborted) return answer({ exitCode: null, signal: null }, false, true);

    const onData = (stream: 'stdout' | 'stderr', chunk: Buffer | string) => output[stream].push(chunk);
    const launched = await this.#launch(options, ({ argv, cwd, env }) =>
      options.terminal
        ? spawnInTerminal({ argv, cwd, env, onData, ...options.terminal })
        : spawnWithPipes({ argv, cwd, env, onData, stdin: options.stdin ?? '' }),
    );
    const { spawned, tree } = launched;
    const grace = Math.max(0, options.killGraceMs ?? DEFAULT_GRACE_MS);
    let timedOut = false;
    let cancelled = false;
    let stopping: Promise<void> | undefined;
    let gaveUp: NodeJS.Timeout | undefined;
    let giveUp: () => void = () => undefined;
    const stop = () => {
      stopping ??= tree.terminate(grace);
      // Should the exit report never come (a process stuck in the kernel), answer anyway.
      gaveUp ??= setTimeout(() => giveUp(), grace + EXIT_WAIT_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = () => {
      cancelled = true;
      stop();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    // The signal may have fired while the process was being started.
    if (options.signal?.aborted) onAbort();

    const status = await Promise.race([spawned.exited, new Promise<Status>((resolve) => (giveUp = () => resolve({ exitCode: null, signal: null })))]);
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    // Background jobs the program left behind end with it.
    await (stopping ?? tree.terminate(Math.min(grace, 100)));
    await spawned.drained(DRAIN_AFTER_EXIT_MS);
    clearTimeout(gaveUp);
    launched.release();
    return answer(status, timedOut, cancelled);
  }

  /**
   * Starts a program that stays up and talks over standard input and output (a plugin host, an MCP stdio server).
   * It is stopped with everything it started by `stop()`, by the gateway's stop, and — after a crash — at the next
   * start. Rejects only when it cannot be started.
   */
  async start(options: StartOptions): Promise<ChildHandle> {
    const stderr = new OutputBuffer(options.maxStderrBytes ?? 64 * 1024, 'ends');
    const launched = await this.#launch(options, ({ argv, cwd, env }) =>
      spawnWithPipes({
        argv,
        cwd,
        env,
        onData: (_stream, chunk) => stderr.push(chunk),
        stdin: options.channel === 'fd3' ? 'channel' : 'open',
        ...(options.windowsVerbatimArguments && { windowsVerbatimArguments: true }),
      }),
    );
    const { spawned, tree } = launched;
    const exited = (async () => {
      const status = await spawned.exited;
      await tree.terminate(0);
      await spawned.drained(DRAIN_AFTER_EXIT_MS);
      launched.release();
      return { exitCode: status.signal ? null : status.exitCode, signal: status.signal };
    })();
    return {
      pid: spawned.pid,
      stdin: spawned.stdio!.stdin,
      stdout: spawned.stdio!.stdout,
      stderr: () => stderr.text(),
      exited,
      async stop(graceMs = DEFAULT_GRACE_MS) {
        await tree.terminate(graceMs);
        await exited;
      },
    };
  }

  /**
   * Kills every running group and removes every scratch folder, synchronously: for a process that exits right
   * after (a second Ctrl-C). Returns how many processes the runner had started and not yet seen end.
   */
  killAll(): number {
    const launched = [...this.#live];
    for (const child of launched) {
      child.tree.killNow();
      child.entry?.remove();
      this.#live.delete(child);
    }
    for (const [folder, entry] of this.#scratch) {
      this.#scratch.delete(folder);
      if (removeScratchFolderSync(folder)) entry?.remove();
    }
    return launched.length;
  }

  /** Stops every running group (SIGTERM, then SIGKILL after `graceMs`) and waits until the runner is done with them. */
  async stopAll(graceMs = DEFAULT_GRACE_MS): Promise<void> {
    const launched = [...this.#live];
    await Promise.all(launched.map((child) => child.tree.terminate(graceMs)));
    await Promise.allSettled(launched.map((child) => child.done));
  }

  /** Records, spawns and starts answering for one process: the steps every child process goes through. */
  async #launch(
    options: LaunchOptions,
    spawn: (what: { argv: readonly string[]; cwd: string; env: Record<string, string> }) => Spawned | Promise<Spawned>,
  ): Promise<Launched> {
    const cwd = options.cwd ?? options.scratch ?? this.#scratchBase ?? tmpdir();
    const tag = options.tag ? `${TAG_VARIABLE}=${randomBytes(12).toString('base64url')}` : undefined;
    const env = { ...(options.env ?? scrubbedEnvironment()) };
    if (tag) env[TAG_VARIABLE] = tag.slice(TAG_VARIABLE.length + 1);
    // Inside the sandbox: the limits are set by the sandbox's first program and bind the command and its children.
    let argv: readonly string[] = withLimits([options.command, ...(options.args ?? [])], options.limits);
    if (options.sandbox) argv = options.sandbox(argv, { cwd, ...(options.scratch && { scratch: options.scratch }) });

    // Recorded before it starts: should the gateway die in between, the tag or the folder still find the process.
    const shared = options.scratch !== undefined ? this.#scratch.get(options.scratch) : undefined;
    const own = shared
      ? undefined
      : this.#record({ kind: options.kind, ...(tag && { tag }), ...(options.scratch && { scratch: options.scratch }), startedAt: new Date().toISOString() });
    if (tag) shared?.update({ tag });
    let spawned: Spawned;
    try {
      // Resolves before any event-loop turn (spawnWithPipes does not wait for 'spawn'): a signal handler cannot run
      // between the start and the record of the pid.
      spawned = await spawn({ argv, cwd, env });
    } catch (error) {
      own?.remove();
      throw error;
    }
    const leaderStart = processStartTime(spawned.pid);
    (shared ?? own)?.update({ pid: spawned.pid, ...(leaderStart && { start: leaderStart }) });
    const tree = new ProcessTree({ leader: spawned.pid, leaderStart, tag, scratch: options.scratch });
    if (options.watch) tree.watch(WATCH_INTERVAL_MS);
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const launched: Launched = {
      spawned,
      tree,
      entry: own,
      done,
      release: () => {
        tree.stopWatching();
        spawned.dispose();
        own?.remove();
        this.#live.delete(launched);
        release();
      },
    };
    this.#live.add(launched);
    return launched;
  }

  #record(record: LedgerRecord): LedgerEntry | undefined {
    if (!this.#ledger) return undefined;
    try {
      return this.#ledger.add(record);
    } catch (error) {
      // A full disk must not stop tools from running; the cost is a leftover after a crash.
      this.#warn(`could not record a ${record.kind} process in the data directory: ${(error as Error).message}`);
      return undefined;
    }
  }
}

import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { scrubbedEnvironment } from './environment.js';
import type { LedgerEntry, LedgerRecord, Leftover, ProcessLedger } from './ledger.js';
import { LiveOutput, OutputBuffer, type KeepPolicy } from './output-buffer.js';
import { processStartTime } from './proc.js';
import { ProcessTree } from './process-tree.js';
import { createScratchFolder, removeScratchFolder, removeScratchFolderSync } from './scratch.js';
import { spawnInTerminal, spawnWithPipes, type Spawned } from './spawners.js';

/**
 * Wraps a command before it is started, e.g. in an OS sandbox: gets the command line and where it will run, returns
 * the command line to start instead (`['bwrap', …, '--', ...argv]`). The wrapper becomes the group leader.
 */
export type SandboxWrapper = (argv: readonly string[], context: { cwd: string; scratch?: string }) => string[];

export interface RunOptions {
  /** What this is, for the ledger and the log: `run_shell`, `run_python`, `python analysis`, `clipboard`… */
  kind: string;
  command: string;
  args?: readonly string[];
  /** Default: the scratch folder when there is one, else the system's temporary folder. */
  cwd?: string;
  /** The complete environment; build it with scrubbedEnvironment. Default: scrubbedEnvironment() as it stands. */
  env?: Record<string, string>;
  /** Run in a pseudo-terminal of this size (output is the terminal's, stdout only) instead of on pipes. */
  terminal?: { cols: number; rows: number };
  /** Standard input on pipes (closed after it); default empty. */
  stdin?: string | Buffer;
  /** A folder from `withScratch` the run works in: recorded with it so a leftover is found by its folder. */
  scratch?: string;
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
  /**
   * Put a random `NAME=value` tag in the environment of everything the run starts, so a process that escapes the
   * session and group (`setsid -f`) is still found, now and after a crash. For programs that run other programs.
   */
  tag?: boolean;
  /** Re-read the process tree while the run lasts, to keep track of jobs that leave the group (Linux). */
  watch?: boolean;
  sandbox?: SandboxWrapper;
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

export interface ProcessRunnerOptions {
  /** Records every run until it ends, so the next start can end what a crash left (see ProcessLedger). */
  ledger?: ProcessLedger;
  /** Where scratch folders go; default the system's temporary folder. */
  scratchBase?: string;
  /** Warnings (a scratch folder that could not be removed). */
  warn?: (line: string) => void;
}

interface LiveRun {
  tree: ProcessTree;
  entry: LedgerEntry | undefined;
  done: Promise<unknown>;
}

/** Name of the environment variable that tags a run's processes. Not PINCER_*: the scrubber would drop it. */
const TAG_VARIABLE = 'TOOL_RUN_TAG';
/** After the tree was killed, give up waiting for the program's exit report after this long. */
const EXIT_WAIT_MS = 2_000;
/** After the program exited and its leftovers were killed, how long its pipes may stay open. */
const DRAIN_AFTER_EXIT_MS = 1_000;
const WATCH_INTERVAL_MS = 200;

/**
 * The one way Pincer starts a child process (tools, the Python analyzer, later plugin hosts and MCP servers): each
 * run leads its own session and process group, gets a scrubbed environment, and is stopped — with everything it
 * started — on timeout, on abort, when it exits (background jobs go with it), and on a gateway stop; its output is
 * capped; every run is in the ledger while it lasts, so a `kill -9` of the gateway is cleaned up at the next start.
 */
export class ProcessRunner {
  readonly #live = new Set<LiveRun>();
  readonly #scratch = new Map<string, LedgerEntry | undefined>();
  readonly #ledger: ProcessLedger | undefined;
  readonly #scratchBase: string | undefined;
  readonly #warn: (line: string) => void;

  constructor(options: ProcessRunnerOptions = {}) {
    this.#ledger = options.ledger;
    this.#scratchBase = options.scratchBase;
    this.#warn = options.warn ?? ((line) => console.error(`pincer: ${line}`));
  }

  /** Runs currently started and not yet over. */
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
    const output = { stdout: new OutputBuffer(options.maxOutputBytes, keep), stderr: new OutputBuffer(options.maxOutputBytes, keep) };
    if (options.signal?.aborted) return result(output, { exitCode: null, signal: null }, false, true, started);

    const cwd = options.cwd ?? options.scratch ?? this.#scratchBase ?? tmpdir();
    const tag = options.tag ? `${TAG_VARIABLE}=${randomBytes(12).toString('base64url')}` : undefined;
    const env = { ...(options.env ?? scrubbedEnvironment()) };
    if (tag) env[TAG_VARIABLE] = tag.slice(TAG_VARIABLE.length + 1);
    let argv: readonly string[] = [options.command, ...(options.args ?? [])];
    if (options.sandbox) argv = options.sandbox(argv, { cwd, ...(options.scratch && { scratch: options.scratch }) });

    const live = this.#liveOutputs(options, keep);
    const onData = (stream: 'stdout' | 'stderr', chunk: Buffer | string) => {
      output[stream].push(chunk);
      live?.[stream].push(chunk);
    };
    // Recorded before it starts: should the gateway die in between, the tag or the folder still find the process.
    // A run in a scratch folder shares the folder's line in the ledger, which withScratch removes with the folder.
    const scratchEntry = options.scratch !== undefined ? this.#scratch.get(options.scratch) : undefined;
    const entry =
      scratchEntry ?? this.#record({ kind: options.kind, ...(options.scratch && { scratch: options.scratch }), startedAt: new Date().toISOString() });
    if (tag) entry?.update({ tag });
    let spawned: Spawned;
    try {
      spawned = options.terminal
        ? spawnInTerminal({ argv, cwd, env, onData, ...options.terminal })
        : await spawnWithPipes({ argv, cwd, env, onData, stdin: options.stdin ?? '' });
    } catch (error) {
      if (entry !== scratchEntry) entry?.remove();
      throw error;
    }
    const leaderStart = processStartTime(spawned.pid);
    entry?.update({ pid: spawned.pid, ...(leaderStart && { start: leaderStart }) });
    const tree = new ProcessTree({ leader: spawned.pid, leaderStart, tag, scratch: options.scratch });
    if (options.watch) tree.watch(WATCH_INTERVAL_MS);

    let done!: (value: RunResult) => void;
    const finished = new Promise<RunResult>((resolve) => (done = resolve));
    const run: LiveRun = { tree, entry: entry === scratchEntry ? undefined : entry, done: finished };
    this.#live.add(run);

    const grace = Math.max(0, options.killGraceMs ?? 500);
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

    const status = await Promise.race([
      spawned.exited,
      new Promise<{ exitCode: null; signal: null }>((resolve) => (giveUp = () => resolve({ exitCode: null, signal: null }))),
    ]);
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    // Background jobs the program left behind end with it.
    await (stopping ?? tree.terminate(Math.min(grace, 100)));
    await spawned.drained(DRAIN_AFTER_EXIT_MS);
    clearTimeout(gaveUp);
    tree.stopWatching();
    spawned.dispose();
    if (entry !== scratchEntry) entry?.remove();
    this.#live.delete(run);
    const answer = result(output, status, timedOut, cancelled, started);
    done(answer);
    return answer;
  }

  /**
   * Kills every running group and removes every scratch folder, synchronously: for a process that exits right
   * after (a second Ctrl-C). Returns how many runs it stopped.
   */
  killAll(): number {
    const runs = [...this.#live];
    for (const run of runs) {
      run.tree.killNow();
      run.entry?.remove();
    }
    for (const [folder, entry] of this.#scratch) {
      this.#scratch.delete(folder);
      if (removeScratchFolderSync(folder)) entry?.remove();
    }
    return runs.length;
  }

  /** Stops every running group (SIGTERM, then SIGKILL after `graceMs`) and waits for their runs to end. */
  async stopAll(graceMs = 500): Promise<void> {
    const runs = [...this.#live];
    await Promise.all(runs.map((run) => run.tree.terminate(graceMs)));
    await Promise.allSettled(runs.map((run) => run.done));
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

  #liveOutputs(options: RunOptions, keep: KeepPolicy): Record<'stdout' | 'stderr', LiveOutput> | undefined {
    const listener = options.onOutput;
    if (!listener) return undefined;
    const eol = options.terminal ? '\r\n' : '\n';
    const note = `${eol}[… live output stops here; the result keeps ${keep === 'ends' ? 'the start and the end' : 'the start'} …]${eol}`;
    return {
      stdout: new LiveOutput(options.maxOutputBytes, (chunk) => listener(chunk, 'stdout'), note),
      stderr: new LiveOutput(options.maxOutputBytes, (chunk) => listener(chunk, 'stderr'), note),
    };
  }
}

function result(
  output: Record<'stdout' | 'stderr', OutputBuffer>,
  status: { exitCode: number | null; signal: string | null },
  timedOut: boolean,
  cancelled: boolean,
  started: number,
): RunResult {
  return {
    stdout: output.stdout.text(),
    stderr: output.stderr.text(),
    exitCode: status.signal ? null : status.exitCode,
    signal: status.signal,
    timedOut,
    cancelled,
    truncated: output.stdout.truncated || output.stderr.truncated,
    durationMs: Math.round(performance.now() - started),
  };
}

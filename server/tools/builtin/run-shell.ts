import { existsSync } from 'node:fs';
import { totalmem } from 'node:os';
import { ToolError } from '../../errors.js';
import { defaultRunner, scrubbedEnvironment, stoppedByMemoryLimit, type ProcessRunner, type SandboxWrapper } from '../../process/index.js';
import { plainText } from '../shell/plain-text.js';
import { defineTool, type SandboxGrant, type ToolContext } from '../types.js';

export interface RunShellOptions {
  /** Turns the call's `cwd` into a folder inside a root, or says why it cannot be used. */
  resolveCwd: (cwd: string | undefined) => Promise<{ ok: true; path: string } | { ok: false; message: string }>;
  /** Output kept in the result (start and end), in bytes; default 256 KiB. */
  maxOutputBytes?: number;
  /** The shell that runs the command with `-c`; default bash. */
  shell?: string;
  /**
   * Memory each program the command starts may allocate (RLIMIT_DATA), in MiB; default
   * DEFAULT_SHELL_MEMORY_LIMIT_MB. Past it an allocation fails and the program stops; the result's `note` says so.
   */
  memoryLimitMb?: number;
  /** Starts the command; default a runner of its own (a gateway passes the one that records and stops its runs). */
  runner?: ProcessRunner;
  /**
   * The OS sandbox to run in, for what the call's decision allowed (`ctx.grant`); undefined: no sandbox (none on this
   * machine, or an approved call whose reach cannot be known). Default: none.
   */
  sandbox?: (grant: SandboxGrant | undefined) => SandboxWrapper | undefined;
}

export interface RunShellArgs {
  command: string;
  cwd?: string;
  timeout_ms?: number;
}

export interface RunShellResult {
  /** What the terminal showed, escape sequences (colours) included. */
  output: string;
  /** The same without escape sequences; present only when they differ. */
  output_plain?: string;
  /** The shell's exit code; null when a signal ended it. */
  exit_code: number | null;
  signal?: string;
  timed_out: boolean;
  truncated: boolean;
  duration_ms: number;
  /** Present when the memory limit is what stopped the command: a sentence saying so. */
  note?: string;
}

export const MAX_COMMAND_LENGTH = 10_000;
export const MAX_TIMEOUT_MS = 600_000;
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_OUTPUT = 256 * 1024;

/**
 * Security: the memory each program a command starts may allocate, so one allowed command (`tail /dev/zero` grows by
 * hundreds of MB a second) cannot run the machine into the OOM killer, which may pick the gateway itself. Half the
 * machine's memory, so a single runaway leaves room for everything else, and at most 4 GiB, which builds and test
 * runs (node, tsc, rustc, the JVM) fit in; at least 512 MiB on a very small machine. It is RLIMIT_DATA, not the
 * RLIMIT_AS run_python uses (1 GiB): the JVM and Node reserve gigabytes of address space they never use (Java fails
 * to start under a 2 GiB RLIMIT_AS, a WebAssembly memory under 4 GiB), and only what is really allocated counts here.
 * The limit is per process (see server/process/limits.ts).
 */
export const DEFAULT_SHELL_MEMORY_LIMIT_MB = Math.max(512, Math.min(4096, Math.floor(totalmem() / 2 / 2 ** 20)));

/**
 * Fixed variables of every command. Pagers are `cat`, so `git log` or `man` cannot stop and wait (or offer `!sh`)
 * in the terminal; git never prompts for credentials.
 */
const SHELL_VARIABLES: Record<string, string> = {
  TERM: 'xterm-256color',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  MANPAGER: 'cat',
  SYSTEMD_PAGER: '',
  GIT_TERMINAL_PROMPT: '0',
  LESSSECURE: '1',
  // Security: a repository's own `core.fsmonitor` runs a program on every `git status`, and its hooks run unasked
  // when a "read-only" `git status` rewrites the index (`post-index-change`); settings given this way beat every
  // config file, and hooks looked for in /dev/null are never found. No hook runs from any command run_shell runs (an
  // approved `git commit` too). (The policy also asks before git runs in a repository with such settings.)
  GIT_CONFIG_COUNT: '2',
  GIT_CONFIG_KEY_0: 'core.fsmonitor',
  GIT_CONFIG_VALUE_0: 'false',
  GIT_CONFIG_KEY_1: 'core.hooksPath',
  GIT_CONFIG_VALUE_1: '/dev/null',
};

export function createRunShellTool(options: RunShellOptions) {
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  const shell = options.shell ?? (existsSync('/bin/bash') ? '/bin/bash' : 'bash');
  const runner = options.runner ?? defaultRunner();
  const memoryLimitMb = options.memoryLimitMb ?? DEFAULT_SHELL_MEMORY_LIMIT_MB;
  return defineTool<RunShellArgs, RunShellResult>({
    name: 'run_shell',
    description: [
      'Run a bash command on this machine in a terminal and return its output and exit code.',
      'Read-only commands (ls, cat, grep, find, git status/log/diff, wc, head, jq…) run at once; anything that',
      'changes files, runs code, uses the network or cannot be checked waits for the owner to approve it, and a few',
      'destructive commands are always refused. Prefer one plain command over scripts, substitutions and pipes into',
      'interpreters. Standard input is empty; the environment is minimal (no credentials); pagers are disabled;',
      'TMPDIR is a private folder deleted when the command ends; git runs no repository hooks.',
      `Each program the command starts may use up to ${memoryLimitMb} MiB of memory; past it, it is stopped (note says so).`,
      `The command runs in "cwd" (inside an allowed folder). It is stopped with everything it started after timeout_ms;`,
      'the result then has timed_out: true. Long output keeps its start and end (truncated: true).',
      'Result: output (as the terminal showed it), output_plain (without colour codes, when different), exit_code,',
      'signal (when one ended it), timed_out, truncated, duration_ms, note (when the memory limit stopped it).',
      'A non-zero exit_code is a result, not an error.',
    ].join(' '),
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string', minLength: 1, maxLength: MAX_COMMAND_LENGTH, description: 'The bash command, e.g. "git status --short".' },
        cwd: { type: 'string', maxLength: 4096, description: 'Folder to run in (inside an allowed folder); default: the first allowed folder.' },
        timeout_ms: {
          type: 'integer',
          minimum: 100,
          maximum: MAX_TIMEOUT_MS,
          default: DEFAULT_TIMEOUT_MS,
          description: 'Stop the command (and everything it started) after this many milliseconds.',
        },
      },
      required: ['command'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        output: { type: 'string' },
        output_plain: { type: 'string' },
        exit_code: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
        signal: { type: 'string' },
        timed_out: { type: 'boolean' },
        truncated: { type: 'boolean' },
        duration_ms: { type: 'number' },
        note: { type: 'string' },
      },
      required: ['output', 'exit_code', 'timed_out', 'truncated', 'duration_ms'],
    },
    category: 'system',
    risk: 'dangerous',
    annotations: { title: 'Run shell command', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    // The handler enforces timeout_ms itself (and kills the process tree); the executor's limit is only a backstop.
    timeoutMs: MAX_TIMEOUT_MS + 15_000,
    // Output and output_plain each hold at most maxOutputBytes; JSON escaping of control bytes can grow them.
    maxOutputBytes: maxOutputBytes * 8 + 64 * 1024,
    sandboxed: true,
    handler: (args, ctx) => runCommand(options, { shell, runner, maxOutputBytes, memoryLimitMb }, args, ctx),
  });
}

/** One run_shell call: the folder checked, the command run in a terminal under the sandbox, its output read. */
async function runCommand(
  options: RunShellOptions,
  { shell, runner, maxOutputBytes, memoryLimitMb }: { shell: string; runner: ProcessRunner; maxOutputBytes: number; memoryLimitMb: number },
  { command, cwd, timeout_ms }: RunShellArgs,
  ctx: ToolContext,
): Promise<RunShellResult> {
  if (command.includes('\0')) {
    throw new ToolError('INVALID_ARGUMENTS', 'The command contains a NUL byte; bash would cut it there. Remove it.');
  }
  const where = await options.resolveCwd(cwd);
  if (!where.ok) throw new ToolError('CWD_NOT_ALLOWED', where.message, { cwd: cwd ?? null });
  if (ctx.signal.aborted) throw new ToolError('CALL_CANCELLED', 'The call was cancelled before the command started.');
  // Security: the OS sandbox (the roots, system folders, no network) widened to what the decision allowed.
  const wrapper = options.sandbox?.(ctx.grant);
  // TMPDIR is a scratch folder of this call, removed with everything in it when the call ends.
  const run = await runner.withScratch('run_shell', 'shell-tmp', (scratch) =>
    runner.run({
      kind: 'run_shell',
      command: shell,
      // Standard input is /dev/null, so a program waiting for input reads end-of-file instead of hanging until
      // the timeout. The first shell stays as the command's parent and keeps the terminal open until the command
      // has exited: a program that closes its output before exiting (GNU cat does) would otherwise see the
      // terminal hang up under it and be reported as killed by SIGHUP. Its HUP trap is a handler, not an ignore,
      // so the command itself still gets the default.
      args: ['-c', 'trap : HUP; "$0" "$@" </dev/null', shell, '-c', command],
      cwd: where.path,
      scratch,
      // Security: a short allowlist, so the gateway's token, API keys and cloud credentials never reach a command.
      env: scrubbedEnvironment({ set: { ...SHELL_VARIABLES, TMPDIR: scratch } }),
      terminal: { cols: 160, rows: 48 },
      timeoutMs: timeout_ms ?? DEFAULT_TIMEOUT_MS,
      maxOutputBytes,
      keep: 'ends',
      signal: ctx.signal,
      ...(ctx.output ? { onOutput: ctx.output } : {}),
      // A background job that double-forks out of the session is still found by the tag in its environment.
      tag: true,
      watch: true,
      ...(wrapper ? { sandbox: wrapper } : {}),
      // Security: the shell and everything it starts, sandboxed or not (bubblewrap may be missing).
      limits: { dataBytes: memoryLimitMb * 2 ** 20 },
    }).catch((error: Error) => {
      throw new ToolError('SPAWN_FAILED', `The shell could not be started: ${error.message}`);
    }),
  );
  if (run.cancelled) throw new ToolError('CALL_CANCELLED', 'The command was stopped because the call was cancelled.');
  const output = run.stdout.replace(/\r\n/g, '\n');
  const plain = plainText(output);
  return {
    output,
    ...(plain !== output ? { output_plain: plain } : {}),
    exit_code: run.exitCode,
    ...(run.signal ? { signal: run.signal } : {}),
    timed_out: run.timedOut,
    truncated: run.truncated,
    duration_ms: run.durationMs,
    ...(stoppedByMemoryLimit(run, plain) && {
      note: `The command used more than ${memoryLimitMb} MiB of memory and was stopped (run_shell's limit for each program it starts).`,
    }),
  };
}

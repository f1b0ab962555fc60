import { spawn } from 'node:child_process';
import { killProcessGroup } from '../../util/process.js';
import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { ToolError } from '../../errors.js';
import { MAX_PYTHON_CODE_CHARS, PYTHON_PURE_MODULES, resolvePython } from '../../security/python.js';
import { defineTool } from '../types.js';

interface RunPythonArgs {
  code: string;
  timeout_ms?: number;
  stdin?: string;
}

export interface RunPythonResult {
  stdout: string;
  stderr: string;
  /** The interpreter's exit status; null when it was killed by a signal (timeout, CPU limit). */
  exit_code: number | null;
  /** The signal that ended it, e.g. SIGKILL after a timeout or SIGXCPU at the CPU-time limit. */
  signal: string | null;
  timed_out: boolean;
  /** stdout or stderr went past its cap; the rest was dropped. */
  truncated: boolean;
  duration_ms: number;
}

export interface RunPythonOptions {
  /** Interpreter command, the same one the analyzer uses. Default `python3`. */
  python?: string;
  /** Cap on each of stdout and stderr. Default 256 KiB. */
  maxOutputBytes?: number;
  /** Address-space limit for the interpreter. Default 1024 MiB. */
  memoryLimitMb?: number;
  /** Largest file the code may write. Default 64 MiB. */
  maxFileMb?: number;
}

export const DEFAULT_PYTHON_TIMEOUT_MS = 30_000;
export const MIN_PYTHON_TIMEOUT_MS = 100;
export const MAX_PYTHON_TIMEOUT_MS = 300_000;
const MAX_STDIN_CHARS = 1_000_000;
/** After the interpreter exits, how long its pipes may stay open (held by a child that escaped the group). */
const DRAIN_AFTER_EXIT_MS = 1_000;

/**
 * Sets the limits, then compiles and runs main.py in a fresh __main__. Compiling the file's bytes is exactly what the
 * analyzer parsed (same decoder, same coding-cookie rules), so what was checked is what runs. The traceback of an
 * exception leaves out this wrapper's own frame.
 */
const WRAPPER = String.raw`
import sys

def _pincer_run():
    import builtins, traceback, types
    try:
        import resource
    except ImportError:
        resource = None
    memory, cpu, fsize, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    if resource is not None:
        def cap(kind, soft, hard):
            try:
                _, current = resource.getrlimit(kind)
                if current != resource.RLIM_INFINITY:
                    soft, hard = min(soft, current), min(hard, current)
                resource.setrlimit(kind, (soft, hard))
            except (ValueError, OSError):
                pass
        cap(resource.RLIMIT_AS, memory, memory)
        cap(resource.RLIMIT_CPU, cpu, cpu + 1)
        cap(resource.RLIMIT_FSIZE, fsize, fsize)
        cap(resource.RLIMIT_CORE, 0, 0)
    with open(path, 'rb') as source_file:
        source = source_file.read()
    main = types.ModuleType('__main__')
    main.__file__ = path
    main.__builtins__ = builtins
    sys.modules['__main__'] = main
    sys.argv = [path]
    try:
        code = compile(source, path, 'exec')
    except (SyntaxError, ValueError) as error:
        traceback.print_exception(type(error), error, None)
        return 1
    try:
        exec(code, main.__dict__)
    except SystemExit:
        raise
    except BaseException as error:
        traceback.print_exception(type(error), error, error.__traceback__.tb_next)
        return 1
    return 0

sys.exit(_pincer_run())
`;

/**
 * run_python: runs a Python 3 program and returns what it printed. The policy (server/security/python.ts) lets
 * provably pure code run and sends everything else to a person; whatever the verdict, the run is contained the same
 * way: `-I` (no PYTHON* variables, no user site-packages, no script folder on sys.path), a fresh scratch folder as
 * cwd, HOME and TMPDIR, removed afterwards, a scrubbed environment, memory / CPU / file-size limits, a wall-clock
 * timeout that kills the whole process group, and capped output.
 *
 * Not `-S`: code a person approved may use installed packages (numpy); pure code cannot import them anyway.
 */
export function createRunPythonTool(options: RunPythonOptions = {}) {
  const python = options.python ?? 'python3';
  const outputCap = options.maxOutputBytes ?? 256 * 1024;
  const memoryBytes = (options.memoryLimitMb ?? 1024) * 2 ** 20;
  const fileBytes = (options.maxFileMb ?? 64) * 2 ** 20;

  return defineTool<RunPythonArgs, RunPythonResult>({
    name: 'run_python',
    description: [
      'Run a Python 3 program and return what it printed: `{ stdout, stderr, exit_code, signal, timed_out, truncated,',
      'duration_ms }`. Use it for exact computation, data wrangling and anything easier to write as code than to do',
      'by hand; print the results you need. The program runs in an empty scratch folder that is deleted afterwards,',
      'with none of the gateway\'s environment variables. Code that only computes (no files, programs, network,',
      `introspection; imports only from ${PYTHON_PURE_MODULES.join(', ')}) runs at once; anything else (open(),`,
      'import os, exec/eval, dunder attributes such as __class__) waits for a person to approve it.',
      'An exception is a normal result: exit_code 1 with the traceback in stderr.',
      `stdout and stderr are each capped at ${outputCap} bytes (truncated: true when cut); memory is limited to`,
      `${memoryBytes / 2 ** 20} MiB (MemoryError past it); the run is stopped after timeout_ms (timed_out: true).`,
    ].join(' '),
    parameters: {
      type: 'object',
      properties: {
        code: {
          type: 'string',
          description: 'The complete Python 3 program, as it would be saved in a .py file. Print what you want back.',
          minLength: 1,
          maxLength: MAX_PYTHON_CODE_CHARS,
        },
        timeout_ms: {
          type: 'integer',
          description: `Wall-clock limit in milliseconds (${MIN_PYTHON_TIMEOUT_MS}–${MAX_PYTHON_TIMEOUT_MS}).`,
          minimum: MIN_PYTHON_TIMEOUT_MS,
          maximum: MAX_PYTHON_TIMEOUT_MS,
          default: DEFAULT_PYTHON_TIMEOUT_MS,
        },
        stdin: {
          type: 'string',
          description:
            'Text given to the program on standard input; empty if omitted. Reading it (input(), sys.stdin) is not pure ' +
            'computation, so such code waits for approval: prefer putting small data in the code itself.',
          maxLength: MAX_STDIN_CHARS,
        },
      },
      required: ['code'],
      additionalProperties: false,
    },
    category: 'code',
    risk: 'dangerous',
    annotations: {
      title: 'Run Python',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    },
    // Above the largest timeout_ms: the handler's own timer stops the run and still returns its output.
    timeoutMs: MAX_PYTHON_TIMEOUT_MS + 15_000,
    // Room for both capped streams even when every byte is JSON-escaped.
    maxOutputBytes: 2 * outputCap * 6 + 64 * 1024,
    handler: async ({ code, timeout_ms: timeoutMs = DEFAULT_PYTHON_TIMEOUT_MS, stdin = '' }, ctx) => {
      if (typeof code !== 'string' || code.length === 0 || code.length > MAX_PYTHON_CODE_CHARS) {
        throw new ToolError('INVALID_ARGUMENTS', `code must be between 1 and ${MAX_PYTHON_CODE_CHARS} characters of Python.`);
      }
      const limitMs = Math.min(Math.max(Math.trunc(Number(timeoutMs) || DEFAULT_PYTHON_TIMEOUT_MS), MIN_PYTHON_TIMEOUT_MS), MAX_PYTHON_TIMEOUT_MS);
      if (ctx.signal.aborted) throw cancelled();
      let interpreter: string;
      try {
        interpreter = await resolvePython(python);
      } catch (error) {
        throw new ToolError(
          'PYTHON_NOT_AVAILABLE',
          `Python could not be started (${(error as Error).message}). Install Python 3 and make sure "${python}" is on the gateway's PATH.`,
        );
      }
      const scratch = await mkdtemp(join(tmpdir(), 'pincer-python-'));
      try {
        const script = join(scratch, 'main.py');
        await writeFile(script, code, { encoding: 'utf8', mode: 0o600, flag: 'wx' });
        const cpuSeconds = Math.ceil(limitMs / 1000) + 1;
        return await runContained({
          interpreter,
          args: ['-I', '-B', '-u', '-X', 'utf8', '-c', WRAPPER, String(memoryBytes), String(cpuSeconds), String(fileBytes), script],
          cwd: scratch,
          stdin,
          timeoutMs: limitMs,
          outputCap,
          signal: ctx.signal,
          output: ctx.output,
        });
      } finally {
        await removeScratch(scratch);
      }
    },
  });
}

interface ContainedRun {
  interpreter: string;
  args: string[];
  cwd: string;
  stdin: string;
  timeoutMs: number;
  outputCap: number;
  signal: AbortSignal;
  output?: (chunk: string) => void;
}

function runContained(run: ContainedRun): Promise<RunPythonResult> {
  return new Promise((resolve, reject) => {
    if (run.signal.aborted) {
      reject(cancelled());
      return;
    }
    const started = performance.now();
    // Security: its own process group (setsid), so a timeout or cancel can kill everything the code started.
    const child = spawn(run.interpreter, run.args, {
      cwd: run.cwd,
      env: scrubbedEnvironment(run.cwd),
      detached: process.platform !== 'win32',
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const stdout = new CappedText(run.outputCap, 'stdout', run.output);
    const stderr = new CappedText(run.outputCap, 'stderr', run.output);
    let timedOut = false;
    let wasCancelled = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    const killGroup = () => killProcessGroup(child);
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, run.timeoutMs);
    const onAbort = () => {
      wasCancelled = true;
      killGroup();
    };
    run.signal.addEventListener('abort', onAbort, { once: true });

    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.stdin.on('error', () => {
      // The program exited without reading all of stdin; that is its business.
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      run.signal.removeEventListener('abort', onAbort);
      reject(new ToolError('PYTHON_NOT_AVAILABLE', `Python could not be started: ${error.message}`));
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // Whatever the program left running in its group (a background child) goes with it.
      killGroup();
      drainTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, DRAIN_AFTER_EXIT_MS);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(drainTimer);
      run.signal.removeEventListener('abort', onAbort);
      if (wasCancelled) {
        reject(cancelled());
        return;
      }
      const status = exit ?? { code, signal };
      resolve({
        stdout: stdout.text(),
        stderr: stderr.text(),
        exit_code: status.code,
        signal: status.signal,
        timed_out: timedOut,
        truncated: stdout.truncated || stderr.truncated,
        duration_ms: Math.round(performance.now() - started),
      });
    });
    child.stdin.end(run.stdin, 'utf8');
  });
}

function cancelled(): ToolError {
  return new ToolError('CALL_CANCELLED', 'The Python run was cancelled and its processes were stopped.');
}

/**
 * Security: a tiny allowlist, so no token, API key or PINCER_* setting reaches the code. HOME and TMPDIR point at the
 * scratch folder so nothing the code (or a library) writes lands outside it. PYTHON* variables only matter for
 * programs the code starts: `-I` makes this interpreter ignore them.
 */
function scrubbedEnvironment(scratch: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: scratch,
    TMPDIR: scratch,
    TMP: scratch,
    TEMP: scratch,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    PYTHONIOENCODING: 'utf-8',
    PYTHONDONTWRITEBYTECODE: '1',
  };
  if (process.platform === 'win32' && process.env.SYSTEMROOT) env.SYSTEMROOT = process.env.SYSTEMROOT;
  return env;
}

/** Best effort: code may have made its own files unreadable (chmod 000) to survive the cleanup. */
async function removeScratch(folder: string): Promise<void> {
  try {
    await rm(folder, { recursive: true, force: true, maxRetries: 2 });
    return;
  } catch {
    await restorePermissions(folder);
  }
  await rm(folder, { recursive: true, force: true, maxRetries: 2 }).catch((error: Error) => {
    console.error(`pincer: could not remove the Python scratch folder ${folder}: ${error.message}`);
  });
}

async function restorePermissions(folder: string): Promise<void> {
  const pending = [folder];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    await chmod(dir, 0o700).catch(() => undefined);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) if (entry.isDirectory()) pending.push(join(dir, entry.name));
  }
}

/** Collects one stream up to a byte cap, streaming what it keeps; the rest is read and dropped so the child never blocks. */
class CappedText {
  truncated = false;
  #kept = '';
  #bytes = 0;
  readonly #decoder = new StringDecoder('utf8');

  constructor(
    private readonly cap: number,
    private readonly name: string,
    private readonly output?: (chunk: string) => void,
  ) {}

  push(chunk: Buffer): void {
    if (this.truncated) return;
    const room = this.cap - this.#bytes;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.#bytes += kept.length;
    const text = this.#decoder.write(kept);
    this.#kept += text;
    if (text) this.#emit(text);
    if (kept.length < chunk.length) {
      this.truncated = true;
      this.#emit(`\n[pincer: ${this.name} cut at ${this.cap} bytes]\n`);
    }
  }

  /** What was kept; a character cut in half by the cap is dropped rather than shown as U+FFFD. */
  text(): string {
    return this.truncated ? this.#kept : this.#kept + this.#decoder.end();
  }

  #emit(text: string): void {
    try {
      this.output?.(text);
    } catch {
      // a broken listener must not break the run
    }
  }
}

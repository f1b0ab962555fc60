import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ToolError } from '../../errors.js';
import { defaultRunner, scrubbedEnvironment, type ProcessRunner, type SandboxWrapper } from '../../process/index.js';
import { MAX_PYTHON_CODE_CHARS, PYTHON_PURE_MODULES, resolvePython } from '../../security/python.js';
import { defineTool, type SandboxGrant, type ToolContext } from '../types.js';

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
  /** Starts the interpreter; default a runner of its own (a gateway passes the one that records and stops its runs). */
  runner?: ProcessRunner;
  /**
   * The OS sandbox to run in, for what the call's decision allowed (`ctx.grant`); undefined: no sandbox (none on this
   * machine, or an approved call whose reach cannot be known). Default: none.
   */
  sandbox?: (grant: SandboxGrant | undefined) => SandboxWrapper | undefined;
}

export const DEFAULT_PYTHON_TIMEOUT_MS = 30_000;
export const MIN_PYTHON_TIMEOUT_MS = 100;
export const MAX_PYTHON_TIMEOUT_MS = 300_000;
const MAX_STDIN_CHARS = 1_000_000;

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
  const runner = options.runner ?? defaultRunner();

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
    outputSchema: {
      type: 'object',
      properties: {
        stdout: { type: 'string' },
        stderr: { type: 'string' },
        exit_code: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
        signal: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        timed_out: { type: 'boolean' },
        truncated: { type: 'boolean' },
        duration_ms: { type: 'number' },
      },
      required: ['stdout', 'stderr', 'exit_code', 'signal', 'timed_out', 'truncated', 'duration_ms'],
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
    sandboxed: true,
    handler: (args, ctx) => runProgram(options, { python, outputCap, memoryBytes, fileBytes, runner }, args, ctx),
  });
}

/** What every run of one run_python tool shares: the interpreter asked for, the caps, the runner. */
interface PythonSetup {
  python: string;
  outputCap: number;
  memoryBytes: number;
  fileBytes: number;
  runner: ProcessRunner;
}

/** One run_python call: the arguments checked, the interpreter found, the program run contained in a scratch folder. */
async function runProgram(
  options: RunPythonOptions,
  { python, outputCap, memoryBytes, fileBytes, runner }: PythonSetup,
  { code, timeout_ms: timeoutMs = DEFAULT_PYTHON_TIMEOUT_MS, stdin = '' }: RunPythonArgs,
  ctx: ToolContext,
): Promise<RunPythonResult> {
  if (typeof code !== 'string' || code.length === 0 || code.length > MAX_PYTHON_CODE_CHARS) {
    throw new ToolError('INVALID_ARGUMENTS', `code must be between 1 and ${MAX_PYTHON_CODE_CHARS} characters of Python.`);
  }
  const limitMs = Math.min(Math.max(Math.trunc(Number(timeoutMs) || DEFAULT_PYTHON_TIMEOUT_MS), MIN_PYTHON_TIMEOUT_MS), MAX_PYTHON_TIMEOUT_MS);
  if (ctx.signal.aborted) throw cancelled();
  let interpreter: string;
  try {
    interpreter = await resolvePython(python, runner);
  } catch (error) {
    throw new ToolError(
      'PYTHON_NOT_AVAILABLE',
      `Python could not be started (${(error as Error).message}). Install Python 3 and make sure "${python}" is on the gateway's PATH.`,
    );
  }
  // Security: the OS sandbox (the roots, system folders, no network) widened to what the decision allowed.
  const wrapper = options.sandbox?.(ctx.grant);
  return runner.withScratch('run_python', 'python', async (scratch) => {
    const script = join(scratch, 'main.py');
    await writeFile(script, code, { encoding: 'utf8', mode: 0o600, flag: 'wx' });
    const cpuSeconds = Math.ceil(limitMs / 1000) + 1;
    const run = await runner
      .run({
        kind: 'run_python',
        command: interpreter,
        args: ['-I', '-B', '-u', '-X', 'utf8', '-c', WRAPPER, String(memoryBytes), String(cpuSeconds), String(fileBytes), script],
        cwd: scratch,
        scratch,
        env: pythonEnvironment(scratch),
        stdin,
        timeoutMs: limitMs,
        // A timeout is SIGKILL at once: the code may ignore SIGTERM, and nothing of it needs a clean exit.
        killGraceMs: 0,
        // A program the code starts in a session of its own, somewhere else, is still found by this tag.
        tag: true,
        maxOutputBytes: outputCap,
        keep: 'start',
        signal: ctx.signal,
        ...(ctx.output && { onOutput: ctx.output }),
        ...(wrapper ? { sandbox: wrapper } : {}),
      })
      .catch((error: Error) => {
        throw new ToolError('PYTHON_NOT_AVAILABLE', `Python could not be started: ${error.message}`);
      });
    if (run.cancelled) throw cancelled();
    return {
      stdout: run.stdout,
      stderr: run.stderr,
      exit_code: run.exitCode,
      signal: run.signal,
      timed_out: run.timedOut,
      truncated: run.truncated,
      duration_ms: run.durationMs,
    };
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
function pythonEnvironment(scratch: string): Record<string, string> {
  return scrubbedEnvironment({
    inherit: ['PATH', 'SYSTEMROOT'],
    set: {
      HOME: scratch,
      TMPDIR: scratch,
      TMP: scratch,
      TEMP: scratch,
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      PYTHONIOENCODING: 'utf-8',
      PYTHONDONTWRITEBYTECODE: '1',
    },
  });
}

import { tmpdir } from 'node:os';
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ask, type Decision, type PolicyDecision } from '../decision.js';
import { defaultRunner, scrubbedEnvironment, type ProcessRunner } from '../process/index.js';
import { unpackedPath } from '../util/unpacked.js';

/**
 * Static analysis of run_python code with Python's own parser (docs/security.md, "The policy"). The code is never
 * executed here: a separate `python3 -I -S` process parses it with `ast` and walks every node against allowlists.
 * Provably pure computation is allowed; everything else asks, with the rule that decided and what the person can do.
 */

/** Longest code the analyzer reads; longer code asks (`python:too-large`). Matches run_python's schema. */
export const MAX_PYTHON_CODE_CHARS = 100_000;
/** Wall time the analysis may take before it counts as failed (and the call asks). */
export const PYTHON_ANALYSIS_TIMEOUT_MS = 5_000;

/**
 * Modules pure code may import. Each was reviewed for public names that read files, start programs, open sockets,
 * evaluate text or look attributes up by a name given as text; those names are refused one by one in the script
 * (operator.attrgetter, functools.update_wrapper, typing.get_type_hints, string.Formatter…), and a module reached
 * through another (datetime.sys, json.codecs, enum.bltns) must itself be on this list.
 */
export const PYTHON_PURE_MODULES: readonly string[] = [
  'math', 'cmath', 'statistics', 'json', 'datetime', 're', 'fractions', 'decimal', 'itertools', 'functools',
  'operator', 'collections', 'collections.abc', 'string', 'random', 'textwrap', 'heapq', 'bisect', 'unicodedata',
  'calendar', 'dataclasses', 'enum', 'typing', 'copy', 'pprint', 'hashlib', 'base64', 'binascii', 'struct', 'time',
  'difflib', 'html', 'numbers', 'abc', 'zoneinfo',
];

const MAX_VERDICT_BYTES = 64 * 1024;
/** Analyses running at once; more wait their turn (a flood of policy checks must not fork a Python per request). */
const MAX_CONCURRENT_ANALYSES = 4;

/**
 * The analysis program (python-analyzer.py, beside this file in the source tree and in the build), run as
 * `python3 -I -S python-analyzer.py <pure modules as JSON>` with the user's code on stdin. The code is never written
 * to a file the program could import, never interpolated into it, and never executed: only parsed.
 */
const ANALYSIS_PROGRAM = unpackedPath(fileURLToPath(new URL('./python-analyzer.py', import.meta.url)));

const RESOLVE_SCRIPT = 'import sys; sys.stdout.write(sys.executable)';
const resolved = new Map<string, Promise<string>>();

/**
 * The real interpreter behind a command such as `python3` (a pyenv shim is a shell script that picks a version by
 * the current folder). Resolved once, from the gateway's own folder, so the analyzer and the runner use the same
 * binary — the analyzer inspects modules of the interpreter that will run the code.
 */
export function resolvePython(command = 'python3', runner: ProcessRunner = defaultRunner()): Promise<string> {
  let found = resolved.get(command);
  if (!found) {
    found = runPython(runner, command, ['-I', '-S', '-c', RESOLVE_SCRIPT], Buffer.alloc(0), PYTHON_ANALYSIS_TIMEOUT_MS, process.cwd()).then(
      ({ stdout, code }) => {
        const path = stdout.trim();
        if (code !== 0 || !isAbsolute(path)) throw new Error(`${command} did not report its interpreter path`);
        return path;
      },
    );
    // A missing Python may be installed later: only a success is remembered.
    found.catch(() => resolved.delete(command));
    resolved.set(command, found);
  }
  return found;
}

export interface PythonAnalyzerOptions {
  /** Interpreter command; the same one run_python uses. Default `python3`. */
  python?: string;
  /** Starts the checker; default a runner of its own (a gateway passes the one that records and stops its runs). */
  runner?: ProcessRunner;
}

/** Judges run_python code: `python:pure` allows, every other rule asks. Never throws; failures ask. */
export class PythonAnalyzer {
  readonly #python: string;
  readonly #runner: ProcessRunner;
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(options: PythonAnalyzerOptions = {}) {
    this.#python = options.python ?? 'python3';
    this.#runner = options.runner ?? defaultRunner();
  }

  async analyze(code: string): Promise<PolicyDecision> {
    if (typeof code !== 'string') return failed('the code is not text');
    if (code.length > MAX_PYTHON_CODE_CHARS) {
      return ask(
        'python:too-large',
        `The code is ${code.length} characters long, more than the ${MAX_PYTHON_CODE_CHARS} that can be checked. Split the work into smaller pieces, or approve the call.`,
      );
    }
    let interpreter: string;
    try {
      interpreter = await resolvePython(this.#python, this.#runner);
    } catch (error) {
      return failed(`could not start ${this.#python}: ${(error as Error).message}`);
    }
    await this.#turn();
    try {
      const { stdout, code: exitCode, timedOut } = await runPython(
        this.#runner,
        interpreter,
        ['-I', '-S', ANALYSIS_PROGRAM, JSON.stringify(PYTHON_PURE_MODULES)],
        Buffer.from(code, 'utf8'),
        PYTHON_ANALYSIS_TIMEOUT_MS,
      );
      if (timedOut) return failed(`it took longer than ${PYTHON_ANALYSIS_TIMEOUT_MS / 1000} s`);
      if (exitCode !== 0) return failed(`the checker exited with status ${exitCode}`);
      return parseVerdict(stdout) ?? failed('the checker gave no verdict');
    } catch (error) {
      return failed((error as Error).message);
    } finally {
      this.#running -= 1;
      this.#waiting.shift()?.();
    }
  }

  /** Resolves when fewer than MAX_CONCURRENT_ANALYSES are running; the caller then counts as running. */
  async #turn(): Promise<void> {
    while (this.#running >= MAX_CONCURRENT_ANALYSES) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#running += 1;
  }
}

/** Fail closed: a check that could not run cannot say yes. */
function failed(why: string): PolicyDecision {
  return ask(
    'python:analyzer-failed',
    `The Python safety check could not run (${why}), so a person must decide. Approve the call if you trust the code; make sure Python 3 is installed for automatic checks.`,
  );
}

const DECISIONS: readonly Decision[] = ['allow', 'ask', 'deny'];

function parseVerdict(stdout: string): PolicyDecision | undefined {
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const { decision, rule, reason } = value as Record<string, unknown>;
  if (!DECISIONS.includes(decision as Decision)) return undefined;
  if (typeof rule !== 'string' || !rule.startsWith('python:') || typeof reason !== 'string' || reason === '') return undefined;
  // Only the script's one allowing rule may allow.
  if (decision === 'allow' && rule !== 'python:pure') return undefined;
  return { decision: decision as Decision, rule, reason };
}

interface PythonOutcome {
  stdout: string;
  code: number | null;
  timedOut: boolean;
}

/**
 * Runs a short-lived helper interpreter with `input` on stdin: its own process group, a scrubbed environment and a
 * timeout that kills the whole group (a hung parse must not outlive the call). Output past the cap is no verdict.
 */
async function runPython(runner: ProcessRunner, command: string, args: string[], input: Buffer, timeoutMs: number, cwd = tmpdir()): Promise<PythonOutcome> {
  const run = await runner.run({
    kind: 'python analysis',
    command,
    args,
    cwd,
    // Nothing of the gateway's environment (PINCER_TOKEN, API keys) reaches the helper; -I ignores PYTHON* anyway.
    env: scrubbedEnvironment({ inherit: ['PATH', 'SYSTEMROOT'], set: { LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' } }),
    stdin: input,
    timeoutMs,
    killGraceMs: 0,
    maxOutputBytes: MAX_VERDICT_BYTES,
    keep: 'start',
  });
  return { stdout: run.truncated ? '' : run.stdout, code: run.exitCode, timedOut: run.timedOut };
}

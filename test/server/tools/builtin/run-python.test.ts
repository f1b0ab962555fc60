import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { sep } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolError } from '../../../../server/errors.js';
import {
  createRunPythonTool,
  MAX_PYTHON_TIMEOUT_MS,
  type RunPythonResult,
} from '../../../../server/tools/builtin/run-python.js';
import { processesMatching } from '../../../helpers/processes.js';

/*
 * Real runs. Every program here is our own harmless code: the handler runs whatever it is given (the policy is
 * what stands in front of it), and these tests prove the containment around it. None of them is an attack snippet.
 */

const tool = createRunPythonTool();
type Args = Parameters<typeof tool.handler>[0];

function ctx(signal = new AbortController().signal, output?: (chunk: string) => void) {
  return { signal, callId: 'c_test', client: 'test', output };
}

async function run(args: Args, options: { tool?: typeof tool; signal?: AbortSignal; output?: (chunk: string) => void } = {}) {
  return (await (options.tool ?? tool).handler(args, ctx(options.signal, options.output))) as RunPythonResult;
}

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return error as ToolError;
  }
  throw new Error('expected a ToolError');
}

/** Processes can take a moment to be reaped after SIGKILL. */
async function expectNoProcesses(needle: string): Promise<void> {
  for (let i = 0; i < 20 && processesMatching(needle).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
  expect(processesMatching(needle)).toEqual([]);
}

const firstLine = (text: string) => text.split('\n')[0]!.trim();

describe('run_python: declaration', () => {
  it('is a dangerous code tool whose annotations say it can do anything', () => {
    expect(tool.name).toBe('run_python');
    expect(tool.category).toBe('code');
    expect(tool.risk).toBe('dangerous');
    expect(tool.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
    expect(tool.cache).toBeUndefined();
  });

  it('caps the code and the timeout, and lets its own timer govern', () => {
    const props = tool.parameters.properties as Record<string, Record<string, unknown>>;
    expect(tool.parameters).toMatchObject({ required: ['code'], additionalProperties: false });
    expect(props.code).toMatchObject({ type: 'string', maxLength: 100_000 });
    expect(props.timeout_ms).toMatchObject({ type: 'integer', minimum: 100, maximum: 300_000, default: 30_000 });
    expect(props.stdin).toMatchObject({ type: 'string' });
    expect(tool.timeoutMs).toBeGreaterThan(MAX_PYTHON_TIMEOUT_MS);
  });

  it('leaves room in the gateway result for both capped streams', () => {
    const small = createRunPythonTool({ maxOutputBytes: 1000 });
    expect(small.maxOutputBytes).toBeGreaterThanOrEqual(2 * 1000 * 6);
  });
});

describe('run_python: results', () => {
  it('returns stdout, an empty stderr and exit code 0', async () => {
    const result = await run({ code: 'print("hello")\nprint(6 * 7)' });
    expect(result).toMatchObject({ stdout: 'hello\n42\n', stderr: '', exit_code: 0, signal: null, timed_out: false, truncated: false });
    expect(result.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('returns an exception as a normal result: exit code 1 and the traceback in stderr', async () => {
    const result = await run({ code: 'print("before")\ndef f():\n    return 1 / 0\nf()' });
    expect(result).toMatchObject({ stdout: 'before\n', exit_code: 1, timed_out: false });
    expect(result.stderr).toMatch(/^Traceback \(most recent call last\):/);
    expect(result.stderr).toMatch(/main\.py", line 4, in <module>/);
    expect(result.stderr).toMatch(/ZeroDivisionError: division by zero\n$/);
    // The wrapper that set the limits does not show up in the user's traceback.
    expect(result.stderr).not.toContain('_pincer_run');
  });

  it('reports a syntax error the way Python does', async () => {
    const result = await run({ code: 'def f(:\n    pass' });
    expect(result.exit_code).toBe(1);
    expect(result.stderr).toMatch(/SyntaxError/);
    expect(result.stderr).not.toContain('Traceback');
  });

  it('passes sys.exit codes through', async () => {
    expect((await run({ code: 'import sys\nsys.exit(3)' })).exit_code).toBe(3);
  });

  it('feeds stdin to the program', async () => {
    const result = await run({ code: 'import sys\nprint(sys.stdin.read().upper())', stdin: 'abc\ndéf' });
    expect(result.stdout).toBe('ABC\nDÉF\n');
  });

  it('gives an empty stdin when none is passed, so input() ends instead of hanging', async () => {
    const result = await run({ code: 'try:\n    input()\nexcept EOFError:\n    print("eof")', timeout_ms: 5000 });
    expect(result).toMatchObject({ stdout: 'eof\n', timed_out: false });
  });

  it('speaks UTF-8 whatever the locale', async () => {
    expect((await run({ code: 'print("żółw 🐢")' })).stdout).toBe('żółw 🐢\n');
  });

  it('streams output while the program runs', async () => {
    const chunks: Array<{ text: string; at: number }> = [];
    const started = Date.now();
    const result = await run(
      { code: 'import time\nprint("first")\ntime.sleep(0.5)\nprint("second")' },
      { output: (text) => chunks.push({ text, at: Date.now() - started }) },
    );
    const finished = Date.now() - started;
    const first = chunks.find((c) => c.text.includes('first'));
    expect(first).toBeDefined();
    expect(finished - first!.at).toBeGreaterThanOrEqual(300);
    expect(chunks.map((c) => c.text).join('')).toBe(result.stdout);
  });
});

describe('run_python: containment', () => {
  const saved: Record<string, string | undefined> = {};

  beforeEach(() => {
    for (const name of ['PINCER_TOKEN', 'OPENAI_API_KEY', 'PYTHONPATH', 'PYTHONSTARTUP']) saved[name] = process.env[name];
    process.env.PINCER_TOKEN = 'pincer-test-secret-3f9a';
    process.env.OPENAI_API_KEY = 'sk-test-secret-7c21';
    process.env.PYTHONPATH = '/nonexistent/injected';
  });

  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('scrubs the environment: no token, no API key, only a short allowlist', async () => {
    const result = await run({ code: 'import os\nprint(sorted(os.environ))\nprint(dict(os.environ))' });
    expect(result.exit_code).toBe(0);
    const names = JSON.parse(firstLine(result.stdout).replaceAll("'", '"')) as string[];
    expect(names.filter((n) => n.startsWith('PINCER'))).toEqual([]);
    expect(names).not.toContain('OPENAI_API_KEY');
    // TOOL_RUN_TAG is a random value of this run, which finds the processes the code starts when they are stopped.
    const allowed = ['PATH', 'HOME', 'TMPDIR', 'TMP', 'TEMP', 'LANG', 'LC_ALL', 'PYTHONIOENCODING', 'PYTHONDONTWRITEBYTECODE', 'TOOL_RUN_TAG'];
    expect(names.every((n) => allowed.includes(n))).toBe(true);
    expect(result.stdout).not.toContain('pincer-test-secret');
    expect(result.stdout).not.toContain('sk-test-secret');
  });

  it('runs isolated: -I, no script or working folder on sys.path, PYTHONPATH ignored', async () => {
    const result = await run({ code: 'import os, sys\nprint(sys.flags.isolated, sys.flags.ignore_environment)\nprint(os.getcwd() in sys.path, "" in sys.path, any("injected" in p for p in sys.path))' });
    expect(result.stdout).toBe('1 1\nFalse False False\n');
  });

  it('runs in a fresh scratch folder (cwd, HOME and TMPDIR) that is removed afterwards, files and all', async () => {
    const code = [
      'import os, tempfile',
      'print(os.getcwd())',
      'print(os.environ["HOME"] == os.getcwd(), os.environ["TMPDIR"] == os.getcwd(), tempfile.gettempdir() == os.getcwd())',
      'print(sorted(os.listdir(".")))',
      'os.makedirs("a/b")',
      'open("a/b/out.txt", "w").write("x")',
      'os.chmod("a", 0)',
    ].join('\n');
    const first = await run({ code });
    const second = await run({ code });
    const folder = firstLine(first.stdout);
    expect(folder.startsWith(tmpdir() + sep + 'pincer-python-')).toBe(true);
    expect(firstLine(second.stdout)).not.toBe(folder);
    expect(first.stdout.split('\n')[1]).toBe('True True True');
    expect(first.stdout.split('\n')[2]).toBe("['main.py']");
    expect(existsSync(folder)).toBe(false);
    expect(existsSync(firstLine(second.stdout))).toBe(false);
  });

  it('stops a program at timeout_ms, reports timed_out and leaves no process behind', async () => {
    const started = Date.now();
    const result = await run({ code: 'import os\nprint(os.getcwd(), flush=True)\nwhile True:\n    pass', timeout_ms: 1000 });
    expect(result).toMatchObject({ timed_out: true, exit_code: null, signal: 'SIGKILL' });
    expect(Date.now() - started).toBeLessThan(5000);
    const folder = firstLine(result.stdout);
    expect(folder).toContain('pincer-python-');
    await expectNoProcesses(folder);
    expect(existsSync(folder)).toBe(false);
  });

  it('kills the whole process group on timeout, children included', async () => {
    const code = [
      'import os, subprocess, time',
      'subprocess.Popen(["sleep", "30"])',
      'print(os.getcwd(), flush=True)',
      'time.sleep(30)',
    ].join('\n');
    const result = await run({ code, timeout_ms: 1000 });
    expect(result.timed_out).toBe(true);
    // The sleeping child runs in the scratch folder: nothing may be left there.
    await expectNoProcesses(firstLine(result.stdout));
  });

  it('kills a child that left the process group and the scratch folder, when the program exits', async () => {
    const code = 'import os, subprocess\nsubprocess.Popen(["setsid", "sleep", "31.0301"], cwd="/")\nprint(os.getcwd())';
    const result = await run({ code, timeout_ms: 10_000 });
    expect(result).toMatchObject({ exit_code: 0, timed_out: false });
    await expectNoProcesses('sleep 31.0301');
  });

  it('kills children left running when the program itself exits', async () => {
    const code = 'import os, subprocess\nsubprocess.Popen(["sleep", "30"])\nprint(os.getcwd())';
    const result = await run({ code, timeout_ms: 10_000 });
    expect(result).toMatchObject({ exit_code: 0, timed_out: false });
    expect(result.duration_ms).toBeLessThan(5000);
    await expectNoProcesses(firstLine(result.stdout));
  });

  it('limits memory: a huge allocation is a MemoryError, not a machine in trouble', async () => {
    const small = createRunPythonTool({ memoryLimitMb: 256 });
    const huge = await run({ code: 'data = bytearray(2 * 1024 ** 3)\nprint(len(data))' }, { tool: small });
    expect(huge.exit_code).toBe(1);
    expect(huge.stderr).toMatch(/MemoryError/);
    const modest = await run({ code: 'data = bytearray(16 * 1024 ** 2)\nprint(len(data))' }, { tool: small });
    expect(modest).toMatchObject({ exit_code: 0, stdout: `${16 * 1024 ** 2}\n` });
  });

  it('limits the size of files the program writes', async () => {
    const small = createRunPythonTool({ maxFileMb: 1 });
    const result = await run({ code: 'with open("big.bin", "wb") as f:\n    f.write(b"x" * (2 * 1024 ** 2))' }, { tool: small });
    expect(result.exit_code).toBe(1);
    expect(result.stderr).toMatch(/File too large/);
  });

  it('caps stdout and says it was truncated, while the program still completes', async () => {
    const small = createRunPythonTool({ maxOutputBytes: 1000 });
    const result = await run({ code: 'import sys\nprint("x" * 5000)\nprint("done", file=sys.stderr)' }, { tool: small });
    expect(result.stdout).toBe('x'.repeat(1000));
    expect(result).toMatchObject({ truncated: true, exit_code: 0, stderr: 'done\n' });
  });

  it('never cuts a character in half at the cap', async () => {
    const small = createRunPythonTool({ maxOutputBytes: 1001 });
    const result = await run({ code: 'print("é" * 1000)' }, { tool: small });
    expect(result.stdout).toBe('é'.repeat(500));
    expect(result.stdout).not.toContain('\uFFFD');
  });

  it('keeps memory bounded when a program floods its output until the timeout', async () => {
    const small = createRunPythonTool({ maxOutputBytes: 4096 });
    const result = await run({ code: 'while True:\n    print("y" * 1000)', timeout_ms: 1000 }, { tool: small });
    expect(result).toMatchObject({ truncated: true, timed_out: true });
    expect(Buffer.byteLength(result.stdout)).toBe(4096);
  });

  it('stops the run when the call is aborted, and cleans up', async () => {
    const abort = new AbortController();
    let folder = '';
    const pending = run(
      { code: 'import os\nprint(os.getcwd(), flush=True)\nwhile True:\n    pass', timeout_ms: 60_000 },
      {
        signal: abort.signal,
        output: (text) => {
          if (!folder && text.includes('pincer-python-')) {
            folder = firstLine(text);
            abort.abort();
          }
        },
      },
    );
    const error = await failure(pending);
    expect(error.errorName).toBe('CALL_CANCELLED');
    expect(folder).toContain('pincer-python-');
    await expectNoProcesses(folder);
    expect(existsSync(folder)).toBe(false);
  });

  it('does not start at all when the call was aborted before it began', async () => {
    const abort = new AbortController();
    abort.abort();
    const error = await failure(run({ code: 'print(1)' }, { signal: abort.signal }));
    expect(error.errorName).toBe('CALL_CANCELLED');
  });

  it('says how to fix a missing interpreter', async () => {
    const missing = createRunPythonTool({ python: '/nonexistent/python3' });
    const error = await failure(run({ code: 'print(1)' }, { tool: missing }));
    expect(error.errorName).toBe('PYTHON_NOT_AVAILABLE');
    expect(error.message).toMatch(/Install Python 3/);
  });
});

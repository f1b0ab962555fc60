import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolError } from '../../../../server/errors.js';
import { createRunShellTool, type RunShellArgs, type RunShellResult } from '../../../../server/tools/builtin/run-shell.js';
import type { ToolContext } from '../../../../server/tools/types.js';

/**
 * run_shell, run for real — with safe commands only (echo, pwd, env, sleep, seq, printf, cat). Processes left
 * behind are looked for in /proc by their exact command line; each test uses a sleep duration of its own.
 */

let workspace: string;
let other: string;

beforeAll(() => {
  workspace = realpathSync(mkdtempSync(join(tmpdir(), 'pincer-shell-')));
  other = realpathSync(mkdtempSync(join(tmpdir(), 'pincer-shell-other-')));
});

afterAll(() => {
  rmSync(workspace, { recursive: true, force: true });
  rmSync(other, { recursive: true, force: true });
});

function tool(maxOutputBytes?: number) {
  return createRunShellTool({
    resolveCwd: async (cwd) =>
      cwd === undefined
        ? { ok: true, path: workspace }
        : cwd === 'other'
          ? { ok: true, path: other }
          : { ok: false, message: `"${cwd}" is outside the allowed folders.` },
    ...(maxOutputBytes ? { maxOutputBytes } : {}),
  });
}

function context(signal = new AbortController().signal, chunks?: string[]): ToolContext {
  return { signal, callId: 'c_test', client: 'test', ...(chunks ? { output: (chunk: string) => void chunks.push(chunk) } : {}) };
}

async function run(args: RunShellArgs, ctx = context(), maxOutputBytes?: number): Promise<RunShellResult> {
  return tool(maxOutputBytes).handler(args, ctx) as Promise<RunShellResult>;
}

/** Live processes whose command line is exactly `words`. */
function processesRunning(...words: string[]): number[] {
  const wanted = words.join('\0');
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0$/, '');
      const state = readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]?.[0];
      if (cmdline === wanted && state !== 'Z') found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

async function eventually(check: () => boolean, ms = 1500): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

describe('run_shell: declaration', () => {
  it('is a dangerous system tool whose own timeout governs', () => {
    const t = tool();
    expect(t.name).toBe('run_shell');
    expect(t.category).toBe('system');
    expect(t.risk).toBe('dangerous');
    expect(t.annotations).toMatchObject({ destructiveHint: true, openWorldHint: true, readOnlyHint: false });
    expect(t.timeoutMs).toBeGreaterThan(600_000);
    expect(t.parameters.required).toEqual(['command']);
    const props = t.parameters.properties as Record<string, Record<string, unknown>>;
    expect(props.command).toMatchObject({ type: 'string', maxLength: 10_000 });
    expect(props.timeout_ms).toMatchObject({ type: 'integer', minimum: 100, maximum: 600_000, default: 30_000 });
  });
});

describe('run_shell: running', () => {
  it('returns output and exit code', async () => {
    const result = await run({ command: 'echo hello' });
    expect(result).toMatchObject({ output: 'hello\n', exit_code: 0, timed_out: false, truncated: false });
    expect(result.output_plain).toBeUndefined();
    expect(result.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('reports a non-zero exit as a result, not an error', async () => {
    const result = await run({ command: 'echo failing; exit 3' });
    expect(result).toMatchObject({ output: 'failing\n', exit_code: 3, timed_out: false });
  });

  it('runs in the resolved folder', async () => {
    expect((await run({ command: 'pwd' })).output).toBe(`${workspace}\n`);
    expect((await run({ command: 'pwd', cwd: 'other' })).output).toBe(`${other}\n`);
  });

  it('refuses a folder the resolver refuses, with its message', async () => {
    const error = await run({ command: 'pwd', cwd: '/etc' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).errorName).toBe('CWD_NOT_ALLOWED');
    expect((error as ToolError).message).toContain('outside the allowed folders');
  });

  it('refuses a command with a NUL byte', async () => {
    const error = await run({ command: 'echo a\0echo b' }).catch((e: unknown) => e);
    expect((error as ToolError).errorName).toBe('INVALID_ARGUMENTS');
  });

  it('gives commands an empty standard input, so a reader does not wait for the timeout', async () => {
    const started = Date.now();
    const result = await run({ command: 'cat; echo after-cat', timeout_ms: 10_000 });
    expect(result.output).toBe('after-cat\n');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('keeps colour codes in output and adds output_plain without them', async () => {
    const result = await run({ command: "printf '\\033[31mred\\033[0m plain\\n'" });
    expect(result.output).toContain('\u001b[31m');
    expect(result.output_plain).toBe('red plain\n');
  });
});

describe('run_shell: environment', () => {
  it('passes no Pincer variable and nothing outside a short allowlist', async () => {
    const saved = { token: process.env.PINCER_TOKEN, other: process.env.SOME_API_KEY };
    process.env.PINCER_TOKEN = 'pnc_test_token_that_must_not_leak_0123456789';
    process.env.SOME_API_KEY = 'sk-test-must-not-leak';
    try {
      const result = await run({ command: 'env' });
      expect(result.output).not.toContain('PINCER_TOKEN');
      expect(result.output).not.toContain('pnc_test_token_that_must_not_leak');
      expect(result.output).not.toContain('SOME_API_KEY');
      expect(result.output).not.toContain('sk-test-must-not-leak');
      expect(result.output).toContain('PATH=');
      expect(result.output).toContain('TERM=xterm-256color');
      expect(result.output).toContain('PAGER=cat');
    } finally {
      if (saved.token === undefined) delete process.env.PINCER_TOKEN;
      else process.env.PINCER_TOKEN = saved.token;
      if (saved.other === undefined) delete process.env.SOME_API_KEY;
      else process.env.SOME_API_KEY = saved.other;
    }
  });
});

describe('run_shell: stopping', () => {
  it('a 1 s timeout on `sleep 30; …` returns within 2 s and leaves no process behind', async () => {
    const started = Date.now();
    const result = await run({ command: 'sleep 30.4151; echo never', timeout_ms: 1000 });
    const elapsed = Date.now() - started;
    expect(result.timed_out).toBe(true);
    expect(result.exit_code).toBeNull();
    expect(result.signal).toMatch(/^SIG(TERM|KILL)$/);
    expect(result.output).not.toContain('never');
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(2_000);
    expect(processesRunning('sleep', '30.4151')).toEqual([]);
  });

  it('kills background jobs the command leaves behind when it ends', async () => {
    const result = await run({ command: 'sleep 30.4152 & echo started', timeout_ms: 5000 });
    expect(result.output).toBe('started\n');
    expect(result.timed_out).toBe(false);
    expect(await eventually(() => processesRunning('sleep', '30.4152').length === 0)).toBe(true);
  });

  it('kills disowned subshells and the foreground command on timeout', async () => {
    const started = Date.now();
    const result = await run({ command: '(sleep 30.4153) & disown; sleep 30.4154', timeout_ms: 1000 });
    expect(result.timed_out).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(processesRunning('sleep', '30.4153')).toEqual([]);
    expect(processesRunning('sleep', '30.4154')).toEqual([]);
  });

  it('kills a job that moved to a process group of its own', async () => {
    const result = await run({ command: 'set -m; sleep 30.4155 & sleep 30.4156', timeout_ms: 1000 });
    expect(result.timed_out).toBe(true);
    expect(processesRunning('sleep', '30.4155')).toEqual([]);
    expect(processesRunning('sleep', '30.4156')).toEqual([]);
  });

  it('finds a job that double-forked out of the session (setsid -f) by the tag in its environment', async () => {
    const result = await run({ command: 'setsid -f sleep 30.4158; sleep 30.4159', timeout_ms: 1000 });
    expect(result.timed_out).toBe(true);
    expect(processesRunning('sleep', '30.4158')).toEqual([]);
    expect(processesRunning('sleep', '30.4159')).toEqual([]);
  });

  it('stops the command when the call is aborted', async () => {
    const abort = new AbortController();
    const started = Date.now();
    const pending = run({ command: 'sleep 30.4157', timeout_ms: 60_000 }, context(abort.signal));
    await eventually(() => processesRunning('sleep', '30.4157').length > 0);
    abort.abort();
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).errorName).toBe('CALL_CANCELLED');
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(processesRunning('sleep', '30.4157')).toEqual([]);
  });

  it('does not start when the call is already aborted', async () => {
    const abort = new AbortController();
    abort.abort();
    const error = await run({ command: 'echo never' }, context(abort.signal)).catch((e: unknown) => e);
    expect((error as ToolError).errorName).toBe('CALL_CANCELLED');
  });
});

describe('run_shell: output', () => {
  it('caps output, keeping the start and the end with a marker', async () => {
    const result = await run({ command: 'seq 1 20000' }, context(), 4096);
    expect(result.truncated).toBe(true);
    expect(result.output.startsWith('1\n2\n3\n')).toBe(true);
    expect(result.output.endsWith('19999\n20000\n')).toBe(true);
    expect(result.output).toMatch(/\[… \d+ bytes of output left out …\]/);
    expect(Buffer.byteLength(result.output)).toBeLessThan(4096 + 200);
  });

  it('streams output chunks to the live log while the command runs', async () => {
    const chunks: string[] = [];
    const result = await run({ command: 'echo one; sleep 0.2; echo two' }, context(undefined, chunks));
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    expect(chunks.join('').replace(/\r\n/g, '\n')).toBe('one\ntwo\n');
    expect(result.output).toBe('one\ntwo\n');
  });

  it('stops streaming at the cap and says so', async () => {
    const chunks: string[] = [];
    await run({ command: 'seq 1 20000' }, context(undefined, chunks), 4096);
    const streamed = chunks.join('');
    expect(streamed).toContain('live output stops here');
    expect(Buffer.byteLength(streamed)).toBeLessThan(4096 * 3);
  });
});

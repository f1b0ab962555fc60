import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ProcessLedger, ProcessRunner, scrubbedEnvironment, type RunOptions } from '../../../server/process/index.js';
import { tempDir } from '../../helpers/gateway.js';
import { eventually, processesMatching } from '../../helpers/processes.js';

/*
 * The runner, run for real with sh and sleep. Each test uses a sleep duration of its own, so a process left behind
 * is found in /proc by its command line.
 */

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const dir = tempDir('pincer-runner-test-');
  folders.push(dir);
  return dir;
}

const runner = new ProcessRunner();

function sh(script: string, options: Partial<RunOptions> = {}) {
  return runner.run({ kind: 'test', command: 'sh', args: ['-c', script], timeoutMs: 10_000, maxOutputBytes: 64 * 1024, ...options });
}


const running = (needle: string) => processesMatching(needle).length > 0;

/** The ledger files of every owner under `dir`. */
function ledgerFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((owner) => readdirSync(join(dir, owner)).filter((name) => name.endsWith('.json')));
}

describe('runner: exit reporting', () => {
  it('returns stdout, stderr and the exit status', async () => {
    const result = await sh('echo out; echo err >&2; exit 3');
    expect(result).toMatchObject({ stdout: 'out\n', stderr: 'err\n', exitCode: 3, signal: null, timedOut: false, cancelled: false, truncated: false });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('reports the signal that ended the program, with no exit status', async () => {
    const result = await sh('kill -TERM $$; sleep 5');
    expect(result).toMatchObject({ exitCode: null, signal: 'SIGTERM', timedOut: false });
  });

  it('feeds standard input and closes it, so a reader ends', async () => {
    expect((await sh('cat; echo end', { stdin: 'in\n' })).stdout).toBe('in\nend\n');
    expect((await sh('cat; echo end')).stdout).toBe('end\n');
  });

  it('rejects a program that cannot be started, and records nothing of it', async () => {
    const ledgerDir = join(folder(), 'run');
    const recorded = new ProcessRunner({ ledger: new ProcessLedger(ledgerDir) });
    const error = await recorded.run({ kind: 'test', command: '/nonexistent/program', timeoutMs: 1000, maxOutputBytes: 1024 }).catch((e: unknown) => e);
    expect((error as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(ledgerFiles(ledgerDir)).toEqual([]);
    expect(recorded.running).toBe(0);
  });
});

describe('runner: stopping', () => {
  it('a timeout kills a grandchild, not only the program it started', async () => {
    const started = Date.now();
    const result = await sh('sh -c "sleep 31.0101; echo never"; echo never', { timeoutMs: 500 });
    expect(result).toMatchObject({ timedOut: true, exitCode: null });
    expect(result.signal).toMatch(/^SIG(TERM|KILL)$/);
    expect(result.stdout).not.toContain('never');
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await eventually(() => !running('sleep 31.0101'))).toBe(true);
  });

  it('a timeout kills a grandchild that moved to a session of its own', async () => {
    const result = await sh('setsid sleep 31.0102 & wait', { timeoutMs: 500, watch: true });
    expect(result.timedOut).toBe(true);
    expect(await eventually(() => !running('sleep 31.0102'))).toBe(true);
  });

  it('a timeout without grace is SIGKILL at once, even for a program that ignores SIGTERM', async () => {
    const result = await sh("trap '' TERM; sleep 31.0103", { timeoutMs: 300, killGraceMs: 0 });
    expect(result).toMatchObject({ timedOut: true, signal: 'SIGKILL' });
    expect(await eventually(() => !running('sleep 31.0103'))).toBe(true);
  });

  it('an abort kills the whole tree and says the run was cancelled', async () => {
    const abort = new AbortController();
    const started = Date.now();
    const pending = sh('sh -c "sleep 31.0104" & wait', { signal: abort.signal, timeoutMs: 60_000 });
    expect(await eventually(() => running('sleep 31.0104'))).toBe(true);
    abort.abort();
    const result = await pending;
    expect(result).toMatchObject({ cancelled: true, timedOut: false });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await eventually(() => !running('sleep 31.0104'))).toBe(true);
  });

  it('does not start a run whose signal is already aborted', async () => {
    const abort = new AbortController();
    abort.abort();
    const result = await sh('echo never > started', { signal: abort.signal, cwd: folder() });
    expect(result).toMatchObject({ cancelled: true, stdout: '' });
  });

  it('kills background jobs the program leaves behind when it exits', async () => {
    const result = await sh('sleep 31.0105 & echo started');
    expect(result).toMatchObject({ stdout: 'started\n', exitCode: 0, timedOut: false });
    expect(await eventually(() => !running('sleep 31.0105'))).toBe(true);
  });

  it('killAll kills every running group at once and removes the scratch folders, synchronously', async () => {
    const ledgerDir = join(folder(), 'run');
    const recorded = new ProcessRunner({ ledger: new ProcessLedger(ledgerDir), scratchBase: folder() });
    let scratch = '';
    const pending = recorded.withScratch('test', 'test', (dir) => {
      scratch = dir;
      return recorded.run({ kind: 'test', command: 'sh', args: ['-c', 'sleep 31.0106 & sleep 31.0107'], scratch: dir, timeoutMs: 60_000, maxOutputBytes: 1024 });
    });
    expect(await eventually(() => running('sleep 31.0106') && running('sleep 31.0107'))).toBe(true);
    expect(ledgerFiles(ledgerDir)).toHaveLength(1);

    expect(recorded.killAll()).toBe(1);
    // No waiting: by the time killAll returns, every process has been sent SIGKILL and the folder is gone.
    expect(existsSync(scratch)).toBe(false);
    expect(ledgerFiles(ledgerDir)).toEqual([]);
    expect(await eventually(() => !running('sleep 31.0106') && !running('sleep 31.0107'), 500)).toBe(true);
    expect((await pending).signal).toBe('SIGKILL');
  });

  it('stopAll stops every running group and waits for the runs to end', async () => {
    const pending = sh('sleep 31.0108', { timeoutMs: 60_000 });
    expect(await eventually(() => running('sleep 31.0108'))).toBe(true);
    await runner.stopAll(100);
    expect(runner.running).toBe(0);
    expect((await pending).signal).toMatch(/^SIG(TERM|KILL)$/);
    expect(running('sleep 31.0108')).toBe(false);
  });
});

describe('runner: output', () => {
  it('keeps the start past the cap and still reads the rest, so the program completes', async () => {
    const result = await sh('head -c 1000000 /dev/zero | tr "\\0" x; echo done >&2', { maxOutputBytes: 1000, keep: 'start' });
    expect(result.stdout).toBe('x'.repeat(1000));
    expect(result).toMatchObject({ truncated: true, exitCode: 0, stderr: 'done\n' });
  });

  it('keeps the start and the end with a marker', async () => {
    const result = await sh('seq 1 20000', { maxOutputBytes: 4096 });
    expect(result.truncated).toBe(true);
    expect(result.stdout.startsWith('1\n2\n3\n')).toBe(true);
    expect(result.stdout.endsWith('19999\n20000\n')).toBe(true);
    expect(result.stdout).toMatch(/\[… \d+ bytes of output left out …\]/);
    expect(Buffer.byteLength(result.stdout)).toBeLessThan(4096 + 100);
  });

  it('never cuts a character in half at the cap', async () => {
    const result = await sh('i=0; while [ $i -lt 300 ]; do printf "é"; i=$((i+1)); done', { maxOutputBytes: 101, keep: 'start' });
    expect(result.stdout).toBe('é'.repeat(50));
  });

  it('streams live output up to the cap, then says once that it stops there', async () => {
    const chunks: string[] = [];
    await sh('seq 1 20000', { maxOutputBytes: 4096, onOutput: (chunk) => void chunks.push(chunk) });
    const streamed = chunks.join('');
    expect(streamed.startsWith('1\n2\n')).toBe(true);
    expect(streamed.match(/live output stops here/g)).toHaveLength(1);
    expect(Buffer.byteLength(streamed)).toBeLessThan(4096 + 200);
  });

  it('runs in a terminal when asked: the program sees a tty', async () => {
    const result = await sh('test -t 1 && echo tty', { terminal: { cols: 80, rows: 24 } });
    expect(result.stdout.replace(/\r\n/g, '\n')).toBe('tty\n');
  });
});

describe('runner: environment', () => {
  const source = {
    PATH: '/usr/bin:/bin',
    HOME: '/home/someone',
    LANG: 'C.UTF-8',
    LC_TIME: 'C',
    PINCER_TOKEN: 'pk_secret_token_value',
    PINCER_HOME: '/data',
    AWS_SECRET_ACCESS_KEY: 'aws-secret',
    OPENAI_API_KEY: 'sk-secret',
    SHELL: 'pk_secret_token_value-copied',
    DISPLAY: ':0',
  };

  it('passes only allowlisted variables, never a PINCER_* one or a value holding a PINCER_* value', () => {
    expect(scrubbedEnvironment({ source })).toEqual({ PATH: '/usr/bin:/bin', HOME: '/home/someone', LANG: 'C.UTF-8', LC_TIME: 'C' });
  });

  it('passes the desktop session only when asked, and a chosen subset when asked', () => {
    expect(scrubbedEnvironment({ source, inherit: ['PATH', 'DISPLAY'] })).toEqual({ PATH: '/usr/bin:/bin', DISPLAY: ':0' });
  });

  it('adds the fixed entries of the call site, which win over inherited ones, but never a PINCER_* name', () => {
    const env = scrubbedEnvironment({ source, inherit: ['PATH', 'HOME'], set: { HOME: '/scratch', GIT_PAGER: 'cat', PINCER_X: '1' } });
    expect(env).toEqual({ PATH: '/usr/bin:/bin', HOME: '/scratch', GIT_PAGER: 'cat' });
  });

  it('falls back to a standard PATH when the gateway has none', () => {
    expect(scrubbedEnvironment({ source: {}, inherit: ['PATH'] })).toEqual({ PATH: '/usr/local/bin:/usr/bin:/bin' });
  });

  it('a run gets exactly the environment it is given; without one, the scrubbed gateway environment', async () => {
    const given = await runner.run({ kind: 'test', command: '/usr/bin/env', env: { PATH: '/usr/bin:/bin', ONLY: 'this' }, timeoutMs: 5000, maxOutputBytes: 4096 });
    expect(given.stdout.trim().split('\n').sort()).toEqual(['ONLY=this', 'PATH=/usr/bin:/bin']);

    const saved = process.env.PINCER_TOKEN;
    process.env.PINCER_TOKEN = 'pk_runner_test_secret_0123456789';
    try {
      const scrubbed = await runner.run({ kind: 'test', command: '/usr/bin/env', timeoutMs: 5000, maxOutputBytes: 64 * 1024 });
      expect(scrubbed.stdout).toContain('PATH=');
      expect(scrubbed.stdout).not.toContain('PINCER_TOKEN');
      expect(scrubbed.stdout).not.toContain('pk_runner_test_secret');
    } finally {
      if (saved === undefined) delete process.env.PINCER_TOKEN;
      else process.env.PINCER_TOKEN = saved;
    }
  });

  it('tags every process of a run when asked', async () => {
    const result = await sh('sh -c "env" | grep ^TOOL_RUN_TAG=', { tag: true, env: { PATH: '/usr/bin:/bin' } });
    expect(result.stdout).toMatch(/^TOOL_RUN_TAG=[\w-]{16}\n$/);
  });
});

describe('runner: long-lived children (plugin hosts, MCP stdio servers)', () => {
  it('talks over stdin and stdout, and stop() ends it with everything it started', async () => {
    const ledgerDir = join(folder(), 'run');
    const recorded = new ProcessRunner({ ledger: new ProcessLedger(ledgerDir) });
    const child = await recorded.start({
      kind: 'test-server',
      command: 'sh',
      args: ['-c', 'sleep 31.0110 & echo ready >&2; while read line; do echo "got $line"; done'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
    const lines: string[] = [];
    child.stdout.setEncoding('utf8').on('data', (text: string) => lines.push(text));
    child.stdin.write('hello\n');
    expect(await eventually(() => lines.join('') === 'got hello\n')).toBe(true);
    expect(await eventually(() => child.stderr() === 'ready\n')).toBe(true);
    expect(ledgerFiles(ledgerDir)).toHaveLength(1);
    expect(recorded.running).toBe(1);

    await child.stop(100);
    expect(await child.exited).toMatchObject({ exitCode: null, signal: 'SIGTERM' });
    expect(await eventually(() => !running('sleep 31.0110'))).toBe(true);
    expect(ledgerFiles(ledgerDir)).toEqual([]);
    expect(recorded.running).toBe(0);
  });

  it('with channel fd3 it talks over its file descriptor 3: what it prints on stdout is only its log', async () => {
    const child = await runner.start({
      kind: 'test-server',
      command: 'sh',
      args: ['-c', 'echo \'{"forged":true}\'; while read line <&3; do echo "got $line" >&3; echo "logged $line"; done'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      channel: 'fd3',
    });
    expect(child.stdin).toBe(child.stdout);
    const lines: string[] = [];
    child.stdout.setEncoding('utf8').on('data', (text: string) => lines.push(text));
    child.stdin.write('hello\n');
    expect(await eventually(() => lines.join('') === 'got hello\n')).toBe(true);
    expect(await eventually(() => child.stderr() === '{"forged":true}\nlogged hello\n')).toBe(true);
    await child.stop(0);
  });

  it('when it exits on its own, what it left running goes with it', async () => {
    const child = await runner.start({ kind: 'test-server', command: 'sh', args: ['-c', 'sleep 31.0111 & read line; exit 4'] });
    child.stdin.end('bye\n');
    expect(await child.exited).toEqual({ exitCode: 4, signal: null });
    expect(await eventually(() => !running('sleep 31.0111'))).toBe(true);
  });
});

describe('runner: sandbox hook', () => {
  it('starts the command line the wrapper returns, telling it where the run works', async () => {
    const cwd = folder();
    const seen: unknown[] = [];
    const result = await runner.run({
      kind: 'test',
      command: 'sh',
      args: ['-c', 'echo "$WRAPPED" "$0"', 'inner'],
      cwd,
      env: { PATH: '/usr/bin:/bin' },
      timeoutMs: 5000,
      maxOutputBytes: 4096,
      sandbox: (argv, context) => {
        seen.push({ argv, context });
        return ['env', 'WRAPPED=yes', ...argv];
      },
    });
    expect(result.stdout).toBe('yes inner\n');
    expect(seen).toEqual([{ argv: ['sh', '-c', 'echo "$WRAPPED" "$0"', 'inner'], context: { cwd } }]);
  });
});

describe('runner: ledger', () => {
  it('records a run with its pid and start time while it lasts, and forgets it when it ends', async () => {
    const ledgerDir = join(folder(), 'run');
    const recorded = new ProcessRunner({ ledger: new ProcessLedger(ledgerDir) });
    const pending = recorded.run({ kind: 'test', command: 'sh', args: ['-c', 'sleep 31.0109'], timeoutMs: 500, maxOutputBytes: 1024 });
    expect(await eventually(() => running('sleep 31.0109'))).toBe(true);
    const [owner] = readdirSync(ledgerDir);
    const [file] = ledgerFiles(ledgerDir);
    const record = JSON.parse(readFileSync(join(ledgerDir, owner!, file!), 'utf8')) as Record<string, unknown>;
    expect(record).toMatchObject({ kind: 'test', pid: expect.any(Number), start: expect.stringMatching(/^t\d+/) });
    // The owner is this process, named by its pid and start time.
    expect(owner!.startsWith(`${process.pid}-t`)).toBe(true);
    await pending;
    expect(ledgerFiles(ledgerDir)).toEqual([]);
  });
});

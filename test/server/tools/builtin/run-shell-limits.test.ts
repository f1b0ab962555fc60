import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allow } from '../../../../server/decision.js';
import { Sandbox, sandboxSupport } from '../../../../server/process/sandbox.js';
import { createRunShellTool, DEFAULT_SHELL_MEMORY_LIMIT_MB, type RunShellResult } from '../../../../server/tools/builtin/run-shell.js';
import { readJson, startGateway, type TestGateway } from '../../../helpers/gateway.js';

/**
 * run_shell's memory limit, for real: a command that allocates without end (`tail /dev/zero` grows by hundreds of MB a
 * second) is stopped at the limit with a note saying so, ordinary programs (git, node, python, java) still start under
 * the default limit, and a gateway that ran such a command still answers. Each runs without the OS sandbox and, where
 * bubblewrap can run, inside it. The runaway tests lower the limit to 64 MiB, so they allocate little.
 */

const support = sandboxSupport();
const bubblewrap = support.kind === 'bubblewrap';
if (!bubblewrap && process.env.CI) throw new Error(`CI must run the sandbox tests, but: ${support.detail}`);

let base: string;
let repo: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'pincer-shell-limits-')));
  repo = join(base, 'repo');
  execFileSync('git', ['init', '-q', repo]);
  writeFileSync(join(repo, 'a.txt'), 'a\nout of memory\n');
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

const modes = [
  { name: 'without the OS sandbox', sandboxed: false, skip: false },
  { name: 'inside bubblewrap', sandboxed: true, skip: !bubblewrap },
];

describe.each(modes)('run_shell memory limit, $name', ({ sandboxed, skip }) => {
  const sandbox = new Sandbox(support);
  function tool(memoryLimitMb?: number) {
    return createRunShellTool({
      resolveCwd: async () => ({ ok: true, path: repo }),
      ...(memoryLimitMb !== undefined && { memoryLimitMb }),
      ...(sandboxed && { sandbox: () => sandbox.wrapper({ readWrite: [base], hidden: [], network: false }) }),
    });
  }
  async function run(command: string, memoryLimitMb?: number, timeout_ms = 20_000): Promise<RunShellResult> {
    return (await tool(memoryLimitMb).handler({ command, timeout_ms }, { signal: new AbortController().signal, callId: 'c_mem', client: 'test' })) as RunShellResult;
  }

  it.skipIf(skip)('`tail /dev/zero` is stopped at the limit, long before its timeout, and the result says why', async () => {
    const result = await run('tail /dev/zero', 64);
    expect(result.timed_out).toBe(false);
    expect(result.exit_code).not.toBe(0);
    expect(result.output).toMatch(/memory exhausted/);
    expect(result.note).toBe("The command used more than 64 MiB of memory and was stopped (run_shell's limit for each program it starts).");
    expect(result.duration_ms).toBeLessThan(15_000);
  });

  it.skipIf(skip)('so is every program of a pipeline (`yes | tr -d "\\n" | tail -n 1`)', async () => {
    const result = await run("yes | tr -d '\\n' | tail -n 1", 64);
    expect(result.timed_out).toBe(false);
    expect(result.note).toMatch(/more than 64 MiB of memory and was stopped/);
  });

  it.skipIf(skip)('the limit binds the command and what it starts, and cannot be raised from inside', async () => {
    const result = await run('ulimit -d; bash -c "ulimit -Hd"', 64);
    expect(result.output.trim().split(/\s+/)).toEqual(['65536', '65536']);
    if (process.getuid?.() !== 0 || sandboxed) {
      // Root outside the sandbox keeps CAP_SYS_RESOURCE and could raise it; anyone else (and root inside) cannot.
      const raised = await run('ulimit -d unlimited && echo raised', 64);
      expect(raised.output).not.toContain('raised');
    }
  });

  it.skipIf(skip)('ordinary commands run under the default limit', async () => {
    expect(DEFAULT_SHELL_MEMORY_LIMIT_MB).toBeGreaterThanOrEqual(512);
    expect(DEFAULT_SHELL_MEMORY_LIMIT_MB).toBeLessThanOrEqual(4096);
    const commands = ['git status --short', 'node -e "console.log(6*7)"', 'python3 -c 1', 'ls', 'grep -rn memory .'];
    for (const program of ['rg', 'java']) if (onPath(program)) commands.push(program === 'rg' ? 'rg -n memory .' : 'java -version');
    const result = await run(commands.join(' && '));
    expect(result.exit_code, result.output).toBe(0);
    expect(result.output).toContain('42');
    expect(result.output).toContain('a.txt');
    expect(result.note).toBeUndefined();
  });

  it.skipIf(skip)('node, which reserves far more address space than it uses, starts even under 256 MiB', async () => {
    const result = await run('node -e "console.log(6*7)" && node -e "new WebAssembly.Memory({ initial: 1 }); console.log(\'wasm\')"', 256);
    expect(result.exit_code, result.output).toBe(0);
    expect(result.output_plain ?? result.output).toBe('42\nwasm\n');
  });

  it.skipIf(skip)('a command that only prints the words is not said to be stopped', async () => {
    const ok = await run('grep -n "out of memory" a.txt', 64);
    expect(ok.exit_code).toBe(0);
    expect(ok.note).toBeUndefined();
    const failed = await run('false', 64);
    expect(failed.note).toBeUndefined();
  });
});

describe('a gateway whose shell command ran into the limit', () => {
  let tg: TestGateway;

  beforeAll(async () => {
    // Forced to allow: the command below is not read-only; the limit is what is tested, not the policy.
    tg = await startGateway({ roots: [repo] }, { policy: { decide: () => allow('test:forced-allow', 'Forced by the test.') } });
  });
  afterAll(() => tg.close());

  it('stops the command at the default limit with the note and answers /health after', async () => {
    // One private writable mapping past the default limit (at most 4 GiB): refused at once, nothing is touched.
    const command = `python3 -c "import mmap; mmap.mmap(-1, ${DEFAULT_SHELL_MEMORY_LIMIT_MB + 1024} << 20, flags=mmap.MAP_PRIVATE)"`;
    const body = await readJson(await tg.api('/tools/run_shell/execute', { method: 'POST', json: { command } }));
    expect(body.success, JSON.stringify(body)).toBe(true);
    expect(body.result.exit_code).not.toBe(0);
    expect(body.result.output).toMatch(/Cannot allocate memory/);
    expect(body.result.note).toBe(`The command used more than ${DEFAULT_SHELL_MEMORY_LIMIT_MB} MiB of memory and was stopped (run_shell's limit for each program it starts).`);
    const health = await fetch(`${tg.url}/health`);
    expect(health.status).toBe(200);
    expect(await readJson(health)).toMatchObject({ sandbox: expect.anything() });
  });
});

function onPath(program: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, DataDirInUseError, loadConfig } from '../../../server/index.js';
import { BIN, freePort, runPincer, serve, START, type Served } from '../../helpers/cli.js';
import { readJson, startGateway, tempDir, type TestGateway } from '../../helpers/gateway.js';
import { processesMatching } from '../../helpers/processes.js';
import { until } from '../../helpers/wait.js';

/**
 * One gateway per data folder: a second `pincer serve` (or `npm start`, or the desktop app) on a folder in use says
 * so and changes nothing, CLI commands beside a running gateway use it and recover nothing, and a gateway that
 * stops — however it stops — leaves the folder to the next one.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const dirs: string[] = [];
const running: Served[] = [];
const dir = (prefix?: string) => {
  const made = tempDir(prefix);
  dirs.push(made);
  return made;
};

afterEach(async () => {
  for (const served of running.splice(0)) {
    if (served.child.exitCode === null && served.child.signalCode === null) {
      served.child.kill('SIGKILL');
      await served.exited;
    }
  }
  for (const made of dirs.splice(0)) rmSync(made, { recursive: true, force: true });
});

interface Folder {
  dataDir: string;
  root: string;
}

function folders(): Folder {
  return { dataDir: dir(), root: dir('pincer-root-') };
}

async function start({ dataDir, root }: Folder, env: NodeJS.ProcessEnv = {}, port = 0): Promise<Served> {
  const served = await serve(dataDir, port, root, { PINCER_ROOTS: root, ...env });
  running.push(served);
  return served;
}

const tokenOf = (dataDir: string) => readFileSync(join(dataDir, 'token'), 'utf8').trim();

function api(served: Served, dataDir: string, path: string, init: { json?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
  return fetch(`${served.url}${path}`, {
    method: init.json === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${tokenOf(dataDir)}`, 'content-type': 'application/json', ...init.headers },
    ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
  });
}

/** A run_shell call that runs until the test writes to the FIFO `gate` in the root: really in flight, for as long as needed. */
function gatedCall(served: Served, folder: Folder): { answer: Promise<Json>; release: () => void } {
  execFileSync('mkfifo', [join(folder.root, 'gate')]);
  const answer = api(served, folder.dataDir, '/tools/run_shell/execute', { json: { command: 'head -c 1 gate && echo finished', timeout_ms: 120_000 } }).then(readJson);
  // A test that fails before releasing it kills the gateway: that refused connection is not a second failure.
  answer.catch(() => undefined);
  return { answer, release: () => writeFileSync(join(folder.root, 'gate'), 'x') };
}

async function callsWith(served: Served, dataDir: string, status: string): Promise<Json[]> {
  return (await readJson(await api(served, dataDir, `/calls?status=${status}`))).calls;
}

/** Every file of the folder with its size and modification time: "nothing written" made checkable. */
function snapshot(folder: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(folder, { recursive: true, encoding: 'utf8' })) {
    const stat = statSync(join(folder, name));
    // The running gateway's own database files change as it works; that is not the second start writing.
    if (stat.isFile() && !name.startsWith('pincer.db')) out[name] = `${stat.size} ${stat.mtimeMs}`;
  }
  return out;
}

const inUseLine = (dataDir: string, served: Served) =>
  `pincer: the data folder ${dataDir} is in use by the gateway pid ${served.child.pid} on ${served.url}; stop it first or use --data-dir`;

describe('a second start on a data folder in use', { timeout: 120_000 }, () => {
  it('pincer serve and npm start say so in one line and change nothing: the running call finishes succeeded, the waiting approval stays pending', async () => {
    const folder = folders();
    const served = await start(folder);
    const inFlight = gatedCall(served, folder);
    const waiting = await readJson(
      await api(served, folder.dataDir, '/tools/run_shell/execute', { json: { command: 'rm -rf ./build && echo cleaned' }, headers: { prefer: 'respond-async' } }),
    );
    expect(waiting).toMatchObject({ pending: true });
    await until(async () => (await callsWith(served, folder.dataDir, 'running')).length === 1, 'the gated call to run', 30_000);
    // The bundled plugin writes its build and ledger entry as it starts: let the first gateway settle first.
    await until(async () => (await readJson(await api(served, folder.dataDir, '/plugins'))).plugins.every((p: Json) => p.status !== 'loading'), 'the plugins to load', 30_000);
    const before = snapshot(folder.dataDir);

    const second = await runPincer(['serve', '--data-dir', folder.dataDir, '--port', String(await freePort())], { PINCER_ROOTS: folder.root });
    expect(second.code).toBe(1);
    expect(second.stdout).toBe('');
    expect(second.stderr.trim().split('\n')).toEqual([inUseLine(folder.dataDir, served)]);

    // npm start checks the folder before building or launching anything, and says how to reach the running one.
    const npmStart = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [START, '--data-dir', folder.dataDir, '--port', String(0)],
        { env: { ...process.env, PINCER_TOKEN: '', PINCER_ROOTS: folder.root, ELECTRON_OVERRIDE_DIST_PATH: dir() }, timeout: 30_000 },
        (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
      );
    });
    expect(npmStart.code).toBe(1);
    expect(npmStart.stdout).toBe('');
    expect(npmStart.stderr.trim().split('\n')).toEqual([
      `Pincer: the data folder ${folder.dataDir} is in use by the gateway pid ${served.child.pid} on ${served.url}. ` +
        'Open its dashboard with "npx pincer login-url", stop it first, or start another with "npm start -- --data-dir DIR --port N".',
    ]);

    expect(snapshot(folder.dataDir)).toEqual(before);
    expect((await callsWith(served, folder.dataDir, 'running')).map((c) => c.tool)).toEqual(['run_shell']);
    expect((await readJson(await api(served, folder.dataDir, `/calls/${waiting.call_id}`))).status).toBe('pending');

    inFlight.release();
    const answer = await inFlight.answer;
    expect(answer).toMatchObject({ success: true });
    expect(JSON.stringify(answer.result)).toContain('finished');
    expect((await readJson(await api(served, folder.dataDir, `/calls/${answer.call_id}`))).status).toBe('succeeded');

    // The owner answers the approval from the CLI, without saying which port: the lock names the gateway.
    const allowed = await runPincer(['approvals', 'allow', waiting.approval_id, '--data-dir', folder.dataDir]);
    expect(allowed.code, allowed.stderr).toBe(0);
    await until(async () => (await readJson(await api(served, folder.dataDir, `/calls/${waiting.call_id}`))).status === 'succeeded', 'the approved call');
  });

  it('a gateway in the same process is refused before it touches anything; after close() the next one starts at once', async () => {
    const first: TestGateway = await startGateway();
    const config = { ...loadConfig({ flags: { dataDir: first.dataDir, port: 0, host: '127.0.0.1' }, env: {} }), roots: [first.workspace] };
    try {
      const waiting = await readJson(
        await first.api('/tools/run_shell/execute', { method: 'POST', json: { command: 'rm -rf ./build' }, headers: { prefer: 'respond-async' } }),
      );
      let refused: unknown;
      try {
        createGateway({ config, bundledPluginsDir: null });
      } catch (error) {
        refused = error;
      }
      expect(refused).toBeInstanceOf(DataDirInUseError);
      expect((refused as DataDirInUseError).holder).toMatchObject({ pid: process.pid, url: first.url });
      expect(first.gateway.approvals.pending().map((a) => a.id)).toEqual([waiting.approval_id]);
      expect((await readJson(await first.api(`/calls/${waiting.call_id}`))).status).toBe('pending');
    } finally {
      await first.gateway.close(1000);
    }
    expect(existsSync(join(first.dataDir, 'lock'))).toBe(false);
    const next = await startGateway({ dataDir: first.dataDir, roots: [first.workspace] });
    try {
      // The next one owns the folder: what the first left open is recovered now.
      expect((await readJson(await next.api('/calls?status=pending'))).calls).toEqual([]);
    } finally {
      await next.close();
      rmSync(first.dataDir, { recursive: true, force: true });
      rmSync(first.workspace, { recursive: true, force: true });
    }
  });
});

describe('CLI commands beside a running gateway', { timeout: 120_000 }, () => {
  it('use it wherever its port is, and recover nothing: the running call still finishes succeeded', async () => {
    const folder = folders();
    const served = await start(folder);
    const inFlight = gatedCall(served, folder);
    await until(async () => (await callsWith(served, folder.dataDir, 'running')).length === 1, 'the gated call to run', 30_000);

    // No --port: the gateway was started on a random one, and only the folder's lock says where.
    const at = ['--data-dir', folder.dataDir];
    // One after the other: each is a whole Node process, and this machine may be busy.
    const call = await runPincer(['call', 'calculate', '{"expression":"6*7"}', ...at]);
    const policy = await runPincer(['policy', 'check', 'calculate', '{"expression":"1+1"}', ...at]);
    const loginUrl = await runPincer(['login-url', ...at]);
    const token = await runPincer(['token', 'create', 'beside', ...at]);
    const approvals = await runPincer(['approvals', '--json', ...at]);
    const clients = await runPincer(['clients', ...at]);
    for (const result of [call, policy, loginUrl, token, approvals, clients]) expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(call.stdout)).toMatchObject({ success: true, result: { result: 42 } });
    expect(policy.stdout).toMatch(/^allow/);
    expect(loginUrl.stdout.trim().startsWith(`${served.url}/auth?code=`)).toBe(true);
    expect((await fetch(loginUrl.stdout.trim(), { redirect: 'manual' })).status).toBe(303);
    const named = await fetch(`${served.url}/calls?tool=calculate`, { headers: { authorization: `Bearer ${token.stdout.trim()}` } });
    expect(named.status).toBe(200);
    // The call ran in the running gateway: its history has it.
    expect((await readJson(await api(served, folder.dataDir, '/calls?tool=calculate'))).calls).toHaveLength(1);
    expect(clients.stdout).toMatch(/beside/);

    expect((await callsWith(served, folder.dataDir, 'running')).map((c) => c.tool)).toEqual(['run_shell']);
    inFlight.release();
    expect(await inFlight.answer).toMatchObject({ success: true });
  });

  it('pincer mcp forwards to it, wherever its port is', async () => {
    const tg = await startGateway();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--data-dir', tg.dataDir],
      env: getDefaultEnvironment(),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'lock-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      const result = (await client.callTool({ name: 'calculate', arguments: { expression: '3*3' } })) as CallToolResult;
      expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({ result: 9 });
      expect((await readJson(await tg.api('/calls?tool=calculate'))).calls[0]).toMatchObject({ via: 'mcp (lock-test)' });
    } finally {
      await client.close();
      await tg.close();
    }
  });
});

describe('a gateway that stops leaves the folder to the next one', { timeout: 120_000 }, () => {
  it('SIGTERM removes the lock file and frees the port: a gateway on the same folder and port starts right after', async () => {
    const folder = folders();
    const port = await freePort();
    const served = await start(folder, {}, port);
    expect(JSON.parse(readFileSync(join(folder.dataDir, 'lock'), 'utf8'))).toMatchObject({ pid: served.child.pid, url: served.url });
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
    expect(existsSync(join(folder.dataDir, 'lock'))).toBe(false);
    const next = await start(folder, {}, port);
    expect(next.url).toBe(served.url);
  });

  it('kill -9 leaves a stale lock that the next start takes over, and that start recovers; a CLI command in between recovers nothing', async () => {
    const folder = folders();
    // Without the sandbox (whose --die-with-parent would end it with the gateway) the sleep outlives a kill -9.
    const env = { PINCER_SANDBOX: 'off' };
    const served = await start(folder, env);
    const sleep = 'sleep 30.4747';
    void api(served, folder.dataDir, '/tools/run_shell/execute', { json: { command: sleep, timeout_ms: 120_000 } }).catch(() => undefined);
    await until(async () => (await callsWith(served, folder.dataDir, 'running')).length === 1 && processesMatching(sleep).length > 0, 'the sleep to run', 30_000);
    await until(() => ledgerPids(folder.dataDir) > 0, 'the ledger to record the sleep');

    served.child.kill('SIGKILL');
    await served.exited;
    expect(JSON.parse(readFileSync(join(folder.dataDir, 'lock'), 'utf8')).pid).toBe(served.child.pid);
    expect(processesMatching(sleep).length).toBeGreaterThan(0);

    // A command's own gateway takes the free folder for a moment but is not its owner: it leaves the leftovers.
    const call = await runPincer(['call', 'calculate', '{"expression":"1+1"}', '--data-dir', folder.dataDir], { ...env, PINCER_ROOTS: folder.root });
    expect(call.code, call.stderr).toBe(0);
    const history = await runPincer(['calls', 'export', '--data-dir', folder.dataDir]);
    const rows = history.stdout.trim().split('\n').map((line) => JSON.parse(line) as Json);
    expect(rows.find((row) => row.tool === 'run_shell')?.status).toBe('running');
    expect(processesMatching(sleep).length).toBeGreaterThan(0);

    const next = await start(folder, env);
    expect(JSON.parse(readFileSync(join(folder.dataDir, 'lock'), 'utf8')).pid).toBe(next.child.pid);
    expect(processesMatching(sleep)).toEqual([]);
    expect(next.output()).toMatch(/an earlier run of the gateway left run_shell \(pid \d+\)/);
    const [stale] = await callsWith(next, folder.dataDir, 'cancelled');
    expect(stale).toMatchObject({ tool: 'run_shell', error: expect.objectContaining({ name: 'CALL_CANCELLED' }) });
  });
});

/** Tool runs in the process ledger that have their pid (plugins' own runs left out). */
function ledgerPids(dataDir: string): number {
  const runDir = join(dataDir, 'run');
  if (!existsSync(runDir)) return 0;
  let count = 0;
  for (const owner of readdirSync(runDir)) {
    for (const name of readdirSync(join(runDir, owner))) {
      try {
        const record = JSON.parse(readFileSync(join(runDir, owner, name), 'utf8')) as { kind?: string; pid?: number };
        if (record.kind === 'run_shell' && typeof record.pid === 'number') count += 1;
      } catch {
        // being rewritten
      }
    }
  }
  return count;
}

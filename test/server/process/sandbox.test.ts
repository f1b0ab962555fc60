import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allow } from '../../../server/decision.js';
import { Sandbox, sandboxSupport } from '../../../server/process/sandbox.js';
import { readJson, startGateway, type TestGateway } from '../../helpers/gateway.js';

/**
 * The second wall: with the policy's decision forced to allow (a test-only policy handed to the gateway in-process,
 * never reachable by a client), run_shell and run_python still cannot read outside the roots, write to the home
 * folder, reach Pincer's data folder, or open a network connection — the OS sandbox stops them. CI installs
 * bubblewrap; a machine without it skips these (and says so), except under CI, where that is a failure.
 */

const support = sandboxSupport();
const available = support.kind === 'bubblewrap';
if (!available && process.env.CI) throw new Error(`CI must run the sandbox tests, but: ${support.detail}`);

let base: string;
let root: string;
let outside: string;
let listener: Server;
let listenerPort: number;
let connections = 0;
const probe = join(homedir(), `pincer-sandbox-probe-${process.pid}`);

beforeAll(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'pincer-sandbox-')));
  root = join(base, 'root');
  outside = join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(outside, 'notes.txt'), 'OUTSIDE-SECRET');
  symlinkSync(outside, join(root, 'link'));
  listener = createServer((socket) => {
    connections++;
    socket.end('LISTENER-REPLY');
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  listenerPort = (listener.address() as { port: number }).port;
});

afterAll(async () => {
  rmSync(base, { recursive: true, force: true });
  rmSync(probe, { force: true });
  await new Promise((resolve) => listener.close(resolve));
});

describe.skipIf(!available)('with every call forced to allow, the sandbox still holds', () => {
  let tg: TestGateway;

  beforeAll(async () => {
    tg = await startGateway({ roots: [root] }, { policy: { decide: () => allow('test:forced-allow', 'Forced by the test.') } });
  });
  afterAll(() => tg.close());

  async function shell(command: string) {
    const res = await tg.api('/tools/run_shell/execute', { method: 'POST', json: { command } });
    const body = await readJson(res);
    expect(body.success, JSON.stringify(body)).toBe(true);
    return body.result as { output: string; exit_code: number | null };
  }

  async function python(code: string) {
    const res = await tg.api('/tools/run_python/execute', { method: 'POST', json: { code } });
    const body = await readJson(res);
    expect(body.success, JSON.stringify(body)).toBe(true);
    return body.result as { stdout: string; stderr: string; exit_code: number | null };
  }

  it('ordinary work inside the root still runs (write, read, python)', async () => {
    const result = await shell('echo hello > made.txt && cat made.txt && python3 -c "print(6*7)" && git --version');
    expect(result.exit_code).toBe(0);
    expect(result.output).toContain('hello');
    expect(result.output).toContain('42');
    expect(readFileSync(join(root, 'made.txt'), 'utf8')).toBe('hello\n');
  });

  it('run_shell cannot read through a link inside the root to a folder outside it', async () => {
    const result = await shell('cat link/notes.txt');
    expect(result.exit_code).not.toBe(0);
    expect(result.output).not.toContain('OUTSIDE-SECRET');
  });

  it('run_shell cannot read an absolute path outside the roots', async () => {
    const result = await shell(`cat ${outside}/notes.txt; cat /etc/shadow; ls ${homedir()}`);
    expect(result.output).not.toContain('OUTSIDE-SECRET');
    expect(result.output).not.toMatch(/root:[^:]*:\d+:/);
  });

  it("run_shell cannot read Pincer's data folder (the token)", async () => {
    const result = await shell(`cat ${tg.dataDir}/token`);
    expect(result.exit_code).not.toBe(0);
    expect(result.output).not.toContain(tg.token);
  });

  it('run_shell cannot write to the home folder', async () => {
    const result = await shell(`echo pwned > ${probe}`);
    expect(result.exit_code).not.toBe(0);
    expect(existsSync(probe)).toBe(false);
  });

  it('run_shell cannot connect to a listener on loopback', async () => {
    const before = connections;
    const result = await shell(`exec 3<>/dev/tcp/127.0.0.1/${listenerPort} && cat <&3`);
    expect(result.output).not.toContain('LISTENER-REPLY');
    expect(connections).toBe(before);
  });

  it('run_shell sees no other process (its own PID namespace: no /proc/<pid>/environ with the token)', async () => {
    const result = await shell(`grep -a -l ${tg.token} /proc/*/environ 2>/dev/null; ls /proc | grep -c '^[0-9]'`);
    expect(result.output).not.toContain('environ');
    expect(Number(result.output.trim().split(/\s+/).pop())).toBeLessThan(10);
  });

  it('run_python cannot read outside, write home, or connect', async () => {
    const result = await python(
      [
        'import socket',
        'for attempt in (',
        `    lambda: open(${JSON.stringify(`${outside}/notes.txt`)}).read(),`,
        `    lambda: open(${JSON.stringify(probe)}, "w").write("x"),`,
        `    lambda: socket.create_connection(("127.0.0.1", ${listenerPort}), timeout=2).recv(100),`,
        `    lambda: open(${JSON.stringify(`${tg.dataDir}/token`)}).read(),`,
        '):',
        '    try:',
        '        print("GOT", attempt())',
        '    except Exception as e:',
        '        print("BLOCKED", type(e).__name__)',
      ].join('\n'),
    );
    expect(result.stdout.match(/BLOCKED/g)?.length, result.stdout + result.stderr).toBe(4);
    expect(result.stdout).not.toContain('OUTSIDE-SECRET');
    expect(existsSync(probe)).toBe(false);
  });
});

describe.skipIf(!available)('an approved call runs with the sandbox widened to what the approval showed', () => {
  let tg: TestGateway;

  beforeAll(async () => {
    tg = await startGateway({ roots: [root] });
  });
  afterAll(() => tg.close());

  async function approveAndRun(command: string) {
    const pending = await tg.api('/tools/run_shell/execute', { method: 'POST', json: { command }, headers: { prefer: 'respond-async' } });
    expect(pending.status).toBe(202);
    const { approval_id: id, call_id: callId } = await readJson(pending);
    const approvals = await readJson(await tg.asOwner('/approvals'));
    const approval = approvals.approvals.find((a: { id: string }) => a.id === id);
    const answer = await tg.asOwner(`/approvals/${id}`, { json: { decision: 'allow_once' } });
    expect(answer.status).toBe(200);
    for (let i = 0; i < 200; i++) {
      // A keep-alive socket the server closed while this machine was busy is retried, as any client would.
      const call = await readJson(await tg.api(`/calls/${callId}`).catch(() => tg.api(`/calls/${callId}`)));
      if (call.status !== 'running' && call.status !== 'pending') return { approval, call };
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the approved call did not finish');
  }

  it('a read outside the roots, approved, reads exactly that (and the card said so)', async () => {
    const { approval, call } = await approveAndRun(`cat ${outside}/notes.txt`);
    expect(approval.sandbox).toMatch(/runs in the sandbox, which then also lets it read .*notes\.txt/);
    expect(JSON.stringify(call.result)).toContain('OUTSIDE-SECRET');
  });

  it('a command whose reach cannot be known runs outside the sandbox, and the card said so first', async () => {
    const { approval, call } = await approveAndRun(`python3 -c "print(open('${outside}/notes.txt').read())"`);
    expect(approval.sandbox).toMatch(/outside the sandbox/);
    expect(JSON.stringify(call.result)).toContain('OUTSIDE-SECRET');
  });
});

describe.skipIf(!available)('the sandbox itself', () => {
  const sandbox = new Sandbox(support);

  /** Runs a command in the sandbox without blocking this process (the loopback listener lives here). */
  function run(scope: Parameters<Sandbox['wrapper']>[0], command: string): Promise<{ status: number; stdout: string; stderr: string }> {
    const argv = sandbox.wrapper(scope)!(['bash', '-c', command], { cwd: root });
    return new Promise((resolve) => {
      execFile(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: homedir() } }, (error, stdout, stderr) =>
        resolve({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
    });
  }

  it('a path granted read-only can be read but not written', async () => {
    const scope = { readWrite: [root], readOnly: [outside], hidden: [], network: false };
    expect((await run(scope, `cat ${outside}/notes.txt`)).stdout).toBe('OUTSIDE-SECRET');
    const write = await run(scope, `echo x >> ${outside}/notes.txt`);
    expect(write.status).not.toBe(0);
    expect(write.stderr).toMatch(/Read-only file system/);
    expect(readFileSync(join(outside, 'notes.txt'), 'utf8')).toBe('OUTSIDE-SECRET');
  });

  it('a hidden folder inside a root stays out of sight', async () => {
    const hidden = join(root, 'hidden-data');
    mkdirSync(hidden, { recursive: true });
    writeFileSync(join(hidden, 'token'), 'HIDDEN-TOKEN');
    const result = await run({ readWrite: [root], hidden: [hidden], network: false }, `cat ${hidden}/token; ls ${hidden}`);
    expect(result.stdout).not.toContain('HIDDEN-TOKEN');
  });

  it("a path granted inside a hidden folder is not bound; the program's own files there are, read-only", async () => {
    const hidden = join(base, 'data');
    const own = join(hidden, 'plugins', 'mine');
    mkdirSync(own, { recursive: true });
    writeFileSync(join(hidden, 'token'), 'HIDDEN-TOKEN');
    writeFileSync(join(own, 'code.js'), 'OWN-CODE');
    const scope = { readWrite: [root], readOnly: [join(hidden, 'token')], hidden: [hidden], network: false, program: [own] };
    const result = await run(scope, `cat ${hidden}/token; cat ${own}/code.js; echo x > ${own}/planted`);
    expect(result.stdout).toBe('OWN-CODE');
    expect(result.stderr).toMatch(/Read-only file system/);
    // Granted a folder that holds the hidden one: the hidden one is emptied, the program's files inside stay.
    const wide = await run({ ...scope, readOnly: [base] }, `cat ${hidden}/token; cat ${own}/code.js; cat ${outside}/notes.txt`);
    expect(wide.stdout).toBe('OWN-CODEOUTSIDE-SECRET');
  });

  it('a granted path that is a link into the hidden folder is not bound; one leading to a folder holding it shows it emptied', async () => {
    const hidden = join(base, 'linked-data');
    mkdirSync(hidden, { recursive: true });
    writeFileSync(join(hidden, 'token'), 'LINKED-TOKEN');
    const elsewhere = join(base, 'elsewhere');
    mkdirSync(elsewhere, { recursive: true });
    // A declared or granted path that is a link (made by anything that could write there) into the data folder.
    const intoData = join(elsewhere, 'shared');
    symlinkSync(hidden, intoData);
    // And one that leads to the folder holding it (here: base), through a link of its own.
    const toParent = join(elsewhere, 'parent');
    symlinkSync(base, toParent);
    const scope = { readWrite: [root], readOnly: [intoData, toParent], hidden: [hidden], network: false };
    const result = await run(scope, `cat ${intoData}/token; cat ${toParent}/linked-data/token; cat ${toParent}/outside/notes.txt`);
    expect(result.stdout).toBe('OUTSIDE-SECRET');
    expect(result.stdout + result.stderr).not.toContain('LINKED-TOKEN');
    // Granted to write, the same links fare no better.
    const written = await run({ readWrite: [root], writable: [intoData, toParent], hidden: [hidden], network: false }, `cat ${intoData}/token; cat ${toParent}/linked-data/token; echo x > ${toParent}/linked-data/planted`);
    expect(written.stdout).toBe('');
    expect(existsSync(join(hidden, 'planted'))).toBe(false);
  });

  it("Pincer's code reached through a writable link stays read-only", async () => {
    const code = join(base, 'code');
    mkdirSync(code, { recursive: true });
    writeFileSync(join(code, 'index.js'), 'ORIGINAL');
    const toCode = join(base, 'to-code');
    symlinkSync(base, toCode);
    const result = await run({ readWrite: [root], writable: [toCode], hidden: [], locked: [code], network: false }, `echo planted > ${toCode}/code/index.js; echo ok > ${toCode}/outside/made.txt`);
    expect(result.stderr).toMatch(/Read-only file system/);
    expect(readFileSync(join(code, 'index.js'), 'utf8')).toBe('ORIGINAL');
    expect(readFileSync(join(outside, 'made.txt'), 'utf8')).toBe('ok\n');
  });

  it('with the network granted, the loopback listener is reachable (the wall is the namespace, not a broken socket)', async () => {
    const before = connections;
    const result = await run({ readWrite: [root], hidden: [], network: true }, `exec 3<>/dev/tcp/127.0.0.1/${listenerPort} && cat <&3`);
    expect(result.stdout).toContain('LISTENER-REPLY');
    expect(connections).toBe(before + 1);
  });
});

it('says what it found about the sandbox here', () => {
  expect(support.detail.length).toBeGreaterThan(10);
  if (!available) console.warn(`sandbox tests skipped: ${support.detail}`);
});

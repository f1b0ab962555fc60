import { existsSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort, runPincer, serve, type CliResult, type Served } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/gateway.js';

describe('pincer owner commands', () => {
  let dataDir: string;
  let workspace: string;
  let port: number;
  let served: Served | undefined;
  let token: string;

  /** Runs `pincer <args> --data-dir … --port …`; never throws, so exit codes can be checked. */
  async function pincer(...args: string[]): Promise<CliResult> {
    return runPincer([...args, '--data-dir', dataDir, '--port', String(port)], { PINCER_TOKEN: '' });
  }


  /** A request as the default client, the way an assistant would send it. */
  async function client(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
    const response = await fetch(`${served!.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: await response.json() };
  }

  /** The rules as the owner reads them (`pincer rules list --json`): a client token reads them without patterns. */
  async function ownerRules(): Promise<any[]> {
    const listed = await pincer('rules', 'list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    return JSON.parse(listed.stdout).rules;
  }

  /** Starts a call that has to wait for the owner; answers its approval and call ids at once. */
  async function askingCall(tool: string, args: unknown): Promise<{ approval_id: string; call_id: string }> {
    const { status, json } = await client('POST', `/tools/${tool}/execute`, args, { prefer: 'respond-async' });
    expect(status).toBe(202);
    expect(json).toMatchObject({ pending: true });
    return json;
  }

  async function callRecord(id: string): Promise<any> {
    for (let i = 0; ; i++) {
      const { json } = await client('GET', `/calls/${id}`);
      if (json.status !== 'running' && json.status !== 'pending') return json;
      if (i > 200) throw new Error(`call ${id} never finished: ${JSON.stringify(json)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  beforeEach(async () => {
    dataDir = tempDir();
    workspace = realpathSync(tempDir('pincer-ws-'));
    port = await freePort();
  });
  afterEach(async () => {
    if (served && served.child.exitCode === null) {
      served.child.kill('SIGKILL');
      await served.exited;
    }
    served = undefined;
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  async function start(): Promise<void> {
    served = await serve(dataDir, port, workspace);
    token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
  }

  it('rules add / list / rm act as the owner, which a client token cannot', async () => {
    await start();
    const refused = await client('POST', '/rules', { effect: 'allow', tool: 'run_shell', scope: 'tool' });
    expect(refused.status).toBe(403);

    const added = await pincer('rules', 'add', 'allow', 'run_shell', '--scope', 'prefix', '--pattern', 'git push', '--note', 'deploys');
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^Added rule r_\S+: allow run_shell \(prefix git push\)/);
    // A client token reads the ledger without patterns and notes; the owner's command reads it whole.
    expect((await client('GET', '/rules')).json.rules).toEqual([expect.objectContaining({ scope: 'prefix', pattern: null, note: null })]);
    const json = { rules: await ownerRules() };
    expect(json.rules).toEqual([expect.objectContaining({ effect: 'allow', tool: 'run_shell', scope: 'prefix', pattern: 'git push', note: 'deploys', created_by: 'owner' })]);
    const id = json.rules[0].id as string;

    const listed = await pincer('rules');
    expect(listed.stdout).toMatch(/^ID\s+EFFECT\s+TOOL\s+SCOPE\s+PATTERN\s+USES\s+LAST USED\s+EXPIRES/);
    expect(listed.stdout).toContain(id);
    const asJson = JSON.parse((await pincer('rules', 'list', '--json')).stdout);
    expect(asJson.rules).toHaveLength(1);

    const exact = await pincer('rules', 'add', 'deny', 'calculate', '--args', '{"expression":"6*7"}', '--expires', '2099-01-01T00:00:00Z');
    expect(exact.code).toBe(0);
    expect((await client('POST', '/policy/check', { name: 'calculate', arguments: { expression: '6*7' } })).json).toMatchObject({ decision: 'deny' });

    expect((await pincer('rules', 'rm', id)).code).toBe(0);
    expect((await ownerRules()).map((r: { id: string }) => r.id)).not.toContain(id);
    const again = await pincer('rules', 'rm', id);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^pincer: NOT_FOUND: /);

    // Never leaks the owner's credentials.
    for (const out of [added, listed, exact]) expect(out.stdout + out.stderr).not.toMatch(/pincer_session|code=/);
  });

  it('owner commands refuse bad usage with exit 2', async () => {
    const mistakes = [
      ['rules', 'add', 'maybe', 'run_shell'],
      ['rules', 'add', 'allow', 'run_shell', '--scope', 'prefix'],
      ['rules', 'add', 'allow', 'calculate', '--scope', 'exact'],
      ['rules', 'add', 'allow', 'calculate', '--args', 'not json'],
      ['rules', 'add', 'allow', 'calculate', '--expires', 'someday'],
      ['rules', 'rm'],
      ['rules', 'frob'],
      ['rules', 'list', '--note', 'x'],
      ['approvals', 'allow'],
      ['approvals', 'allow', 'a_1', '--scope', 'tool'],
      ['approvals', 'deny', 'a_1', '--always'],
      ['clients', 'tools', 'x'],
      ['clients', 'tools', 'x', 'calculate', '--max', '3'],
      ['clients', 'budget', 'x', '0'],
      ['clients', 'budget', 'x'],
      ['tools', 'disable'],
      ['pause', 'now'],
    ];
    for (const args of mistakes) {
      const result = await pincer(...args);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toMatch(/^pincer: /);
    }
  });

  it('approvals lists pending calls; deny refuses one, allow runs one, --always grants a rule', async () => {
    await start();
    const denied = await askingCall('run_shell', { command: 'rm nothing.txt' });
    const listed = await pincer('approvals');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ID\s+TOOL\s+CLIENT\s+RULE\s+EXPIRES\s+ARGUMENTS/);
    expect(listed.stdout).toMatch(new RegExp(`^${denied.approval_id}\\s+run_shell\\s+default\\s+\\S+\\s+\\S+\\s+\\{"command":"rm nothing.txt"`, 'm'));
    expect(JSON.parse((await pincer('approvals', 'list', '--json')).stdout).approvals).toHaveLength(1);

    const deny = await pincer('approvals', 'deny', denied.approval_id, '--message', 'not now');
    expect(deny.code).toBe(0);
    const deniedCall = await callRecord(denied.call_id);
    expect(deniedCall).toMatchObject({ status: 'denied', error: expect.objectContaining({ name: 'APPROVAL_DENIED' }) });
    expect(JSON.stringify(deniedCall.error)).toContain('not now');
    expect((await pincer('approvals')).stdout).toMatch(/No pending approvals/);

    // Already decided: the gateway's refusal, as `pincer: NAME: message`.
    const late = await pincer('approvals', 'allow', denied.approval_id);
    expect(late.code).toBe(1);
    expect(late.stderr).toMatch(/^pincer: NOT_FOUND: /);

    writeFileSync(join(workspace, 'once.txt'), 'x');
    const once = await askingCall('file_delete', { path: join(workspace, 'once.txt') });
    expect((await pincer('approvals', 'allow', once.approval_id)).code).toBe(0);
    expect(await callRecord(once.call_id)).toMatchObject({ status: 'succeeded' });
    expect(existsSync(join(workspace, 'once.txt'))).toBe(false);
    expect(await ownerRules()).toEqual([]);

    writeFileSync(join(workspace, 'always.txt'), 'x');
    const always = await askingCall('file_delete', { path: join(workspace, 'always.txt') });
    const allowed = await pincer('approvals', 'allow', always.approval_id, '--always', '--scope', 'tool');
    expect(allowed.code).toBe(0);
    expect(await callRecord(always.call_id)).toMatchObject({ status: 'succeeded' });
    expect(await ownerRules()).toEqual([expect.objectContaining({ effect: 'allow', tool: 'file_delete', scope: 'tool' })]);
    expect((await client('POST', '/policy/check', { name: 'file_delete', arguments: { path: join(workspace, 'other.txt') } })).json).toMatchObject({
      decision: 'allow',
    });

    // A command that runs a file a client wrote says which and who, under the table.
    const wrote = await client('POST', '/tools/file_write/execute', { path: join(workspace, 'Makefile'), content: 'all:\n\tid\n' });
    expect(wrote.json.success).toBe(true);
    const make = await askingCall('run_shell', { command: 'make', cwd: workspace });
    const withFiles = await pincer('approvals');
    expect(withFiles.stdout).toContain('Files a client wrote that these calls run:');
    expect(withFiles.stdout).toContain(`${make.approval_id} runs ${join(workspace, 'Makefile')} (make), written by client default at `);
    expect(withFiles.stdout).toContain(`(file_write, call ${wrote.json.call_id})`);
    expect((await pincer('approvals', 'deny', make.approval_id)).code).toBe(0);

    // A client can read its own approvals but never decide one.
    const pending = await askingCall('run_shell', { command: 'rm nothing.txt' });
    expect((await client('POST', `/approvals/${pending.approval_id}`, { decision: 'allow_once' })).status).toBe(403);
    expect((await pincer('approvals', 'deny', pending.approval_id)).code).toBe(0);
  });

  it('pause stops every call until resume; tools disable hides a tool; clients tools restricts a client', async () => {
    await start();
    expect((await pincer('pause')).code).toBe(0);
    const paused = await client('POST', '/tools/calculate/execute', { expression: '1+1' });
    expect(paused.status).toBe(409);
    expect(paused.json.error.name).toBe('TOOLS_PAUSED');
    expect((await pincer('resume')).code).toBe(0);
    expect((await client('POST', '/tools/calculate/execute', { expression: '1+1' })).status).toBe(200);

    const names = async (bearer = token) => {
      const response = await fetch(`${served!.url}/tools/openai`, { headers: { authorization: `Bearer ${bearer}` } });
      return ((await response.json()) as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name);
    };
    expect(await names()).toContain('get_time');
    expect((await pincer('tools', 'disable', 'get_time')).code).toBe(0);
    expect(await names()).not.toContain('get_time');
    expect((await pincer('tools', 'enable', 'get_time')).code).toBe(0);
    expect(await names()).toContain('get_time');
    const unknown = await pincer('tools', 'disable', 'no_such_tool');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^pincer: TOOL_NOT_FOUND: /);

    const cursor = (await runPincer(['token', 'create', 'cursor', '--data-dir', dataDir])).stdout.trim();
    expect((await names(cursor)).length).toBeGreaterThan(2);
    const restricted = await pincer('clients', 'tools', 'cursor', 'calculate,get_time');
    expect(restricted.code).toBe(0);
    expect((await names(cursor)).sort()).toEqual(['calculate', 'get_time']);
    expect((await names()).length).toBeGreaterThan(2);
    const clientsList = await pincer('clients');
    expect(clientsList.stdout).toMatch(/^cursor\s+own\s+own\s+-\s+calculate,get_time$/m);
    const bad = await pincer('clients', 'tools', 'cursor', 'calculate,nope');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^pincer: \w+: .*nope/);
    expect((await pincer('clients', 'tools', 'cursor', 'all')).code).toBe(0);
    expect((await names(cursor)).length).toBeGreaterThan(2);
  });

  it('works with no gateway running, through one started in-process', async () => {
    const added = await pincer('rules', 'add', 'deny', 'run_python', '--note', 'offline');
    expect(added.code).toBe(0);
    const listed = await pincer('rules');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^r_\S+\s+deny\s+run_python\s+tool\s/m);
    expect((await pincer('pause')).code).toBe(0);
    // The running gateway, started afterwards, reads what the in-process one stored.
    await start();
    expect(await ownerRules()).toEqual([expect.objectContaining({ effect: 'deny', tool: 'run_python', note: 'offline' })]);
    expect((await client('POST', '/tools/calculate/execute', { expression: '1+1' })).status).toBe(409);
  });
});

import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort, runPincer, serve, type Served } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/gateway.js';

const pincer = runPincer;

describe('pincer CLI', () => {
  let dataDir: string;
  let served: Served | undefined;

  beforeEach(() => {
    dataDir = tempDir();
  });
  afterEach(async () => {
    if (served && served.child.exitCode === null) {
      served.child.kill('SIGKILL');
      await served.exited;
    }
    served = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serve prints the address and a working one-time login link, and answers /health', async () => {
    served = await serve(dataDir, await freePort());
    const health = await fetch(`${served.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });

    const link = /login link[^:]*: (\S+)/.exec(served.output())![1]!;
    const first = await fetch(link, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('set-cookie')).toMatch(/pincer_session=.*HttpOnly.*SameSite=Strict/i);
    const replay = await fetch(link, { redirect: 'manual' });
    expect(replay.status).toBe(401);
    expect(replay.headers.get('set-cookie')).toBeNull();
  });

  it('call, tools and stats go through the running gateway and are recorded', async () => {
    const port = await freePort();
    served = await serve(dataDir, port);
    const call = await pincer(['call', 'calculate', '{"expression":"6*7"}', '--data-dir', dataDir, '--port', String(port)]);
    expect(call.code).toBe(0);
    expect(JSON.parse(call.stdout)).toMatchObject({ success: true, result: { result: 42 } });

    const failing = await pincer(['call', 'calculate', '{"expression":"1/0"}', '--data-dir', dataDir, '--port', String(port)]);
    expect(failing.code).toBe(1);
    expect(JSON.parse(failing.stdout)).toMatchObject({ success: false, error: { name: 'INVALID_EXPRESSION' } });

    const tools = await pincer(['tools', '--json', '--data-dir', dataDir, '--port', String(port)]);
    const names = (JSON.parse(tools.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['calculate', 'json_parse', 'text_process', 'get_time']));

    const stats = await pincer(['stats', '--data-dir', dataDir, '--port', String(port)]);
    expect(stats.stdout).toMatch(/^calculate\s+2\s+50\.0%/m);
  });

  it('call works without a running gateway, through the same pipeline and history', async () => {
    const port = await freePort();
    const call = await pincer(['call', 'calculate', '{"expression":"2**8"}', '--data-dir', dataDir, '--port', String(port)]);
    expect(call.code).toBe(0);
    expect(JSON.parse(call.stdout)).toMatchObject({ success: true, result: { result: 256 } });
    served = await serve(dataDir, port);
    const read = async (token: string) =>
      ((await (await fetch(`${served!.url}/calls`, { headers: { authorization: `Bearer ${token}` } })).json()) as { calls: { tool: string; client: string; status: string }[] })
        .calls;
    // The default token reads every call; a named client, only its own.
    expect(await read(readFileSync(join(dataDir, 'token'), 'utf8').trim())).toEqual([
      expect.objectContaining({ tool: 'calculate', client: 'default', status: 'succeeded' }),
    ]);
    expect(await read((await pincer(['token', 'create', 'reader', '--data-dir', dataDir])).stdout.trim())).toEqual([]);
  });

  it('token create issues a working named token; revoke stops it at once', async () => {
    const port = await freePort();
    served = await serve(dataDir, port);
    const created = await pincer(['token', 'create', 'cursor', '--data-dir', dataDir]);
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^pk_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).toMatch(/shown only now/);

    const execute = () =>
      fetch(`${served!.url}/tools/calculate/execute`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{"expression":"1+1"}',
      });
    expect((await execute()).status).toBe(200);
    const history = (await (await fetch(`${served.url}/calls?client=cursor`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      calls: unknown[];
    };
    expect(history.calls).toHaveLength(1);

    const list = await pincer(['token', 'list', '--data-dir', dataDir]);
    expect(list.stdout).toMatch(/^cursor\s+…\S{4}\s/m);
    expect(list.stdout).not.toContain(token);

    expect((await pincer(['token', 'create', 'cursor', '--data-dir', dataDir])).code).toBe(1);
    expect((await pincer(['token', 'revoke', 'cursor', '--data-dir', dataDir])).code).toBe(0);
    expect((await execute()).status).toBe(401);
    expect((await pincer(['token', 'revoke', 'cursor', '--data-dir', dataDir])).code).toBe(1);

    // Issued again: a new client under the old name, which does not read what the revoked token did.
    const again = await pincer(['token', 'create', 'cursor', '--data-dir', dataDir]);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/The earlier "cursor" \(revoked\) keeps its calls and memories as "cursor~revoked-[0-9T:.Z-]+"; this token does not read them\./);
    const renewed = again.stdout.trim();
    const own = (await (await fetch(`${served.url}/calls`, { headers: { authorization: `Bearer ${renewed}` } })).json()) as { calls: unknown[] };
    expect(own.calls).toEqual([]);
  });

  it('policy check prints the decision, the rule and the reason without running anything', async () => {
    const port = await freePort();
    const allowed = await pincer(['policy', 'check', 'calculate', '{"expression":"1+1"}', '--data-dir', dataDir, '--port', String(port)]);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(/^allow\s+\(risk:safe\)/);
    const asked = await pincer(['policy', 'check', 'clipboard', '{"action":"read"}', '--json', '--data-dir', dataDir, '--port', String(port)]);
    expect(JSON.parse(asked.stdout)).toMatchObject({ decision: 'ask', rule: 'clipboard:read' });
    const unknown = await pincer(['policy', 'check', 'no_such_tool', '--data-dir', dataDir, '--port', String(port)]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/TOOL_NOT_FOUND/);
    expect((await pincer(['policy', 'frob', '--data-dir', dataDir])).code).toBe(2);
  });

  it('login-url prints a fresh link the running gateway accepts', async () => {
    const port = await freePort();
    served = await serve(dataDir, port);
    const { stdout, code } = await pincer(['login-url', '--data-dir', dataDir, '--port', String(port)]);
    expect(code).toBe(0);
    const response = await fetch(stdout.trim(), { redirect: 'manual' });
    expect(response.status).toBe(303);
  });

  it('SIGINT lets a running call finish, records it, and exits 0', async () => {
    served = await serve(dataDir, await freePort());
    const token = await readToken(dataDir);
    const events = await fetch(`${served.url}/events`, { headers: { authorization: `Bearer ${token}` } });
    const started = readUntil(events.body!, /"phase":"started"/);
    // A catastrophic regex keeps text_process busy until its own time limit: a call that is really in flight.
    const inFlight = fetch(`${served.url}/tools/text_process/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: `${'a'.repeat(40)}b`, operation: 'match', pattern: '(a+)+$' }),
    });
    await started;
    served.child.kill('SIGINT');
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { call_id: string };
    expect(await served.exited).toBe(0);
    expect(served.output()).toMatch(/Stopping \(SIGINT\)/);

    // The history, read by a fresh gateway on the same data directory, has the call.
    const port = await freePort();
    served = await serve(dataDir, port);
    const record = await fetch(`${served.url}/calls/${body.call_id}`, { headers: { authorization: `Bearer ${await readToken(dataDir)}` } });
    expect(record.status).toBe(200);
    expect(((await record.json()) as { status: string }).status).not.toBe('running');
  });

  it('SIGTERM stops an idle gateway cleanly', async () => {
    served = await serve(dataDir, await freePort());
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
  });

  it('a bad configuration stops start-up with one line naming the key', async () => {
    const badPort = await pincer(['serve', '--data-dir', dataDir, '--port', 'http']);
    expect(badPort.code).toBe(2);
    expect(badPort.stderr.trim().split('\n')).toHaveLength(1);
    expect(badPort.stderr).toMatch(/port \(from --port\).*"http"/);

    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ port: 7800, prot: 1 }));
    const typo = await pincer(['serve', '--data-dir', dataDir]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/unknown key "prot" in config\.json/);

    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ port: 7800 }));
    const noAuth = await pincer(['serve', '--data-dir', dataDir, '--host', '0.0.0.0', '--no-auth']);
    expect(noAuth.code).toBe(2);
    expect(noAuth.stderr).toMatch(/--no-auth is refused/);
  });

  it('refuses unknown commands and options with usage help', async () => {
    const unknown = await pincer(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "frobnicate"/);
    const option = await pincer(['tools', '--colour', '--data-dir', dataDir]);
    expect(option.code).toBe(2);
    expect(option.stderr).toBe('pincer: unknown option "--colour" (this command takes --data-dir, --host, --port, --json). A value that starts with "-" goes after "--", as in: -- "--colour"\n');
    const misspelt = await pincer(['tools', '--jsn', '--data-dir', dataDir]);
    expect(misspelt.code).toBe(2);
    expect(misspelt.stderr).toBe('pincer: unknown option "--jsn"; did you mean "--json"?\n');
    const status = await pincer(['calls', 'export', '--status', 'success', '--data-dir', dataDir]);
    expect(status.code).toBe(2);
    expect(status.stderr).toMatch(/--status must be "running", .* got "success"; did you mean "succeeded"\?/);
    expect((await pincer(['help'])).stdout).toMatch(/pincer serve/);
  });
});

async function readToken(dataDir: string): Promise<string> {
  return readFileSync(join(dataDir, 'token'), 'utf8').trim();
}

/** Reads a stream until its text matches, then lets go of it. */
async function readUntil(stream: ReadableStream<Uint8Array>, pattern: RegExp): Promise<void> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!pattern.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before ${pattern}: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  void reader.cancel().catch(() => undefined);
}

describe('pincer serve after kill -9', () => {
  it('opens the database clean and marks the call that was running as cancelled', async () => {
    const dataDir = tempDir();
    let served = await serve(dataDir, await freePort());
    try {
      const token = await readToken(dataDir);
      const auth = { authorization: `Bearer ${token}` };
      const done = await pincer(['call', 'calculate', '{"expression":"1+1"}', '--data-dir', dataDir, '--port', new URL(served.url).port]);
      expect(done.code).toBe(0);
      void fetch(`${served.url}/tools/text_process/execute`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ text: `${'a'.repeat(40)}b`, operation: 'match', pattern: '(a+)+$' }),
      }).catch(() => undefined);
      // Wait until history shows it running, then kill the process without warning.
      for (let i = 0; ; i++) {
        const { calls } = (await (await fetch(`${served.url}/calls?status=running`, { headers: auth })).json()) as { calls: unknown[] };
        if (calls.length > 0) break;
        if (i > 500) throw new Error('the slow call never showed as running');
        await new Promise((r) => setTimeout(r, 10));
      }
      served.child.kill('SIGKILL');
      await served.exited;

      served = await serve(dataDir, await freePort());
      const { calls } = (await (await fetch(`${served.url}/calls`, { headers: auth })).json()) as {
        calls: { tool: string; status: string; error: { name: string } | null }[];
      };
      expect(calls).toEqual([
        expect.objectContaining({ tool: 'text_process', status: 'cancelled', error: expect.objectContaining({ name: 'CALL_CANCELLED' }) }),
        expect.objectContaining({ tool: 'calculate', status: 'succeeded' }),
      ]);
    } finally {
      served.child.kill('SIGKILL');
      await served.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

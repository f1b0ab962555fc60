import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { finishedCall } from '../../helpers/calls.js';
import { EventStream } from '../../helpers/events.js';
import { readJson, startGateway, type TestGateway } from '../../helpers/gateway.js';
import { fake } from '../../helpers/secret-samples.js';
import { until } from '../../helpers/wait.js';
import { last, startWithStub, type LlmSetup } from '../llm/gateway-with-llm.js';

/**
 * Secrets inside strings never reach what Pincer keeps or shows — GET /calls, /calls/{id}, /calls/export, GET /events,
 * approval cards, stored conversations — through the real gateway; the caller still gets its own answer whole.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const bearer = fake(40, ALNUM);
const openaiKey = `sk-proj-${fake(48, ALNUM)}`;
const githubToken = `ghp_${fake(36, ALNUM)}`;
const awsKeyId = 'AKIAQWERTYUIOPASDFGH';
const awsSecret = fake(40, `${ALNUM}+/`);
const b64url = (text: string) => Buffer.from(text).toString('base64url');
const jwt = `${b64url('{"alg":"RS256","typ":"JWT"}')}.${b64url('{"sub":"ann","scope":"admin"}')}.${fake(86, `${ALNUM}-_`)}`;
const SECRETS = { bearer, openaiKey, githubToken, awsKeyId, awsSecret, jwt };

/** The attack's text: a curl command, an env line, a token, and AWS keys and a JWT inside JSON text. */
const curl = `curl -H "Authorization: Bearer ${bearer}" https://api.example.com/v1/me`;
const envLine = `OPENAI_API_KEY=${openaiKey} python3 run.py --push ${githubToken}`;
const jsonText = JSON.stringify({ aws: { aws_access_key_id: awsKeyId, aws_secret_access_key: awsSecret }, session: { note: `jwt ${jwt}` } });

function expectNoSecret(text: string, where: string, secrets: Record<string, string> = SECRETS): void {
  for (const [name, secret] of Object.entries(secrets)) expect(text.includes(secret), `${where} shows ${name}`).toBe(false);
}

async function exportText(tg: TestGateway, query = ''): Promise<string> {
  const res = await tg.api(`/calls/export${query}`);
  expect(res.status).toBe(200);
  return res.text();
}

describe('token-shaped secrets in the arguments and results of real calls', () => {
  let tg: TestGateway;
  let stream: EventStream;

  beforeAll(async () => {
    tg = await startGateway({}, { loadPlugins: false });
    stream = await EventStream.open(tg);
  });
  afterAll(async () => {
    await stream.close();
    await tg.close();
  });

  it('json_parse: the caller gets its own answer whole; /calls, /calls/{id}, the export and /events show none of it', async () => {
    const text = JSON.stringify({ command: curl, env: envLine, data: jsonText });
    const res = await tg.api('/tools/json_parse/execute', { method: 'POST', json: { text } });
    const answer = await readJson(res);
    expect(answer.success).toBe(true);
    // What the client asked for, it gets.
    expect(answer.result.value.command).toBe(curl);
    expect(answer.result.value.data).toBe(jsonText);

    const record = await readJson(await tg.api(`/calls/${answer.call_id}`));
    expectNoSecret(JSON.stringify(record), 'GET /calls/{id}');
    // Redaction keeps the context around each secret.
    expect(record.arguments.text).toContain('Authorization: Bearer [REDACTED]');
    expect(record.arguments.text).toContain('OPENAI_API_KEY=[REDACTED] python3 run.py --push [REDACTED]');
    expect(record.result.value.command).toBe('curl -H "Authorization: Bearer [REDACTED]" https://api.example.com/v1/me');
    expect(JSON.parse(record.result.value.data)).toEqual({
      aws: { aws_access_key_id: '[REDACTED]', aws_secret_access_key: '[REDACTED]' },
      session: { note: 'jwt [REDACTED]' },
    });

    expectNoSecret(JSON.stringify(await readJson(await tg.api('/calls?tool=json_parse'))), 'GET /calls');
    expectNoSecret(await exportText(tg), 'GET /calls/export');
    await stream.next((e) => e.event === 'call' && e.data.call.id === answer.call_id && e.data.phase === 'succeeded');
    expectNoSecret(JSON.stringify(stream.events), 'GET /events');
  });

  it('run_shell: the command, its output and its live output are redacted; the caller reads the output whole', async () => {
    const command = `echo '${curl}'; echo '${envLine}'; printf '%s\\n' '${jsonText}'`;
    const answer = await readJson(await tg.api('/tools/run_shell/execute', { method: 'POST', json: { command } }));
    expect(answer.success, JSON.stringify(answer)).toBe(true);
    expect(answer.result.output).toContain(githubToken);

    const record = await readJson(await tg.api(`/calls/${answer.call_id}`));
    expectNoSecret(JSON.stringify(record), 'GET /calls/{id}');
    expect(record.result.output).toContain('Authorization: Bearer [REDACTED]');
    expectNoSecret(JSON.stringify(await readJson(await tg.api('/calls?tool=run_shell'))), 'GET /calls');
    expectNoSecret(await exportText(tg, '?tool=run_shell'), 'GET /calls/export');

    await stream.next((e) => e.event === 'call' && e.data.call.id === answer.call_id && e.data.phase === 'succeeded');
    const live = stream.events.filter((e) => e.event === 'output' && e.data.call_id === answer.call_id);
    expect(live.map((e) => e.data.chunk).join('')).toContain('OPENAI_API_KEY=[REDACTED]');
    expectNoSecret(JSON.stringify(stream.events), 'GET /events');
  });

  it('a refused call (bad arguments) is recorded redacted too, its error message included', async () => {
    const res = await tg.api('/tools/json_parse/execute', { method: 'POST', json: { text: curl, path: 7 } });
    expect(res.status).toBe(400);
    const { call_id } = await readJson(res);
    expectNoSecret(JSON.stringify(await readJson(await tg.api(`/calls/${call_id}`))), 'the refused call');
  });

  it('nothing on disk holds the secrets: not the database, not its write-ahead log', () => {
    tg.gateway.store.calls.count();
    for (const file of readdirSync(tg.dataDir).filter((f) => f.startsWith('pincer.db'))) {
      expectNoSecret(readFileSync(join(tg.dataDir, file)).toString('latin1'), file);
    }
  });

  it('history written before a secret was redacted (an older gateway) leaves redacted all the same', async () => {
    const id = 'c_old0000000000001';
    tg.gateway.store.calls.save(
      finishedCall(id, new Date().toISOString(), { tool: 'file_read', arguments: { path: '.env' }, result: { content: `GITHUB_TOKEN=${githubToken}\n` } }),
    );
    const record = await readJson(await tg.api(`/calls/${id}`));
    expect(record.result.content).toBe('GITHUB_TOKEN=[REDACTED]\n');
    expectNoSecret(JSON.stringify(await readJson(await tg.api('/calls?tool=file_read'))), 'GET /calls');
    expectNoSecret(await exportText(tg, '?tool=file_read'), 'GET /calls/export');
  });
});

describe('secrets Pincer knows, redacted by value', () => {
  let tg: TestGateway | undefined;
  afterEach(async () => {
    await tg?.close();
    tg = undefined;
  });

  /** file_read of a file holding `content`: the caller's answer, then the record, the export and the events. */
  async function readBack(gateway: TestGateway, content: string): Promise<{ answer: Json; shown: string }> {
    writeFileSync(join(gateway.workspace, 'notes.txt'), content);
    const stream = await EventStream.open(gateway);
    try {
      const answer = await readJson(await gateway.api('/tools/file_read/execute', { method: 'POST', json: { path: 'notes.txt' } }));
      expect(answer.success, JSON.stringify(answer)).toBe(true);
      await stream.next((e) => e.event === 'call' && e.data.call.id === answer.call_id && e.data.phase === 'succeeded');
      const shown = [
        JSON.stringify(await readJson(await gateway.api(`/calls/${answer.call_id}`))),
        JSON.stringify(await readJson(await gateway.api('/calls'))),
        await exportText(gateway),
        JSON.stringify(stream.events),
      ].join('\n');
      return { answer, shown };
    } finally {
      await stream.close();
    }
  }

  it('the configured LLM key (of no known shape) in a file_read result: redacted in /calls, the export and /events', async () => {
    const llmKey = 'zq9-LocalLLM-Key-0042-custom';
    tg = await startGateway({ llmApiKey: llmKey }, { loadPlugins: false });
    const { answer, shown } = await readBack(tg, `llm:\n  key: ${llmKey.toUpperCase()}\n  raw=${llmKey}\n`);
    expect(answer.result.content).toContain(llmKey);
    expectNoSecret(shown, 'history', { llmKey });
    expect(shown).toContain('raw=[REDACTED]');
  });

  it('an LLM key set while the gateway runs is redacted from then on', async () => {
    const llmKey = 'later-set-llm-key-7781';
    tg = await startGateway({}, { loadPlugins: false });
    tg.gateway.config.llmApiKey = llmKey;
    const { shown } = await readBack(tg, `the key is ${llmKey}.`);
    expectNoSecret(shown, 'history', { llmKey });
  });

  it('a default token from PINCER_TOKEN and the owner secret are redacted wherever they appear', async () => {
    const token = 'my-own-default-token-0001';
    tg = await startGateway({ token }, { loadPlugins: false });
    const ownerSecret = readFileSync(join(tg.dataDir, 'owner-secret'), 'utf8').trim();
    const { shown } = await readBack(tg, `token=${token}\nsecret ${ownerSecret}\n`);
    expectNoSecret(shown, 'history', { token, ownerSecret });
  });

  it('a named client token is found by its pk_ shape (only its hash is kept)', async () => {
    tg = await startGateway({}, { loadPlugins: false });
    const named = tg.gateway.credentials.createClient('reader');
    expect(named).toMatch(/^pk_[A-Za-z0-9_-]{43}$/);
    const { shown } = await readBack(tg, `PINCER=${named}\n`);
    expectNoSecret(shown, 'history', { named });
  });

  it("an imported server's secret-named env values and its HTTP token are redacted; its other settings are not", async () => {
    const serviceToken = 'svc-token-value-9876';
    const httpToken = 'remote-mcp-bearer-1234';
    const logLevel = 'debug-level-verbose';
    tg = await startGateway(
      {
        mcpServers: {
          local: { command: 'definitely-not-a-command', env: { SERVICE_API_TOKEN: serviceToken, LOG_LEVEL: logLevel } },
          remote: { url: 'http://127.0.0.1:9/mcp', token: httpToken },
        },
      },
      { loadPlugins: false },
    );
    const { shown } = await readBack(tg, `${serviceToken} ${httpToken} ${logLevel}`);
    expectNoSecret(shown, 'history', { serviceToken, httpToken });
    expect(shown).toContain(logLevel);
  });

  it('a server added while the gateway runs has its secrets redacted at once', async () => {
    const added = 'added-server-secret-5555';
    tg = await startGateway({}, { loadPlugins: false });
    const res = await tg.asOwner('/mcp-servers/added', { method: 'PUT', json: { command: 'definitely-not-a-command', env: { GH_TOKEN: added } } });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    const { shown } = await readBack(tg, `value ${added}`);
    expectNoSecret(shown, 'history', { added });
  });
});

describe("an imported server's error", () => {
  it('that quotes a token is shown to clients and in the event stream redacted (the owner reads it whole)', async () => {
    // A protocol-faithful enough server that refuses the connection and echoes a token in its error body.
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `token ${githubToken} was revoked` }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const tg = await startGateway({ mcpServers: { remote: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` } } });
    const stream = await EventStream.open(tg);
    try {
      const failed = await until(async () => {
        const view = await readJson(await tg.api('/mcp-servers/remote'));
        return view.last_error ? view : undefined;
      }, 'the server to fail');
      expect(failed.last_error).toContain('[REDACTED]');
      expectNoSecret(JSON.stringify(failed), 'GET /mcp-servers/remote', { githubToken });
      expect((await readJson(await tg.asOwner('/mcp-servers/remote'))).last_error).toContain(githubToken);
      await stream.next((e) => e.event === 'mcp_servers' && e.data.last_error !== null);
      expectNoSecret(JSON.stringify(stream.events), 'GET /events', { githubToken });
    } finally {
      await stream.close();
      await tg.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('approval cards', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await startGateway({}, { loadPlugins: false });
  });
  afterAll(() => tg.close());

  it('show the command, its scopes and reason redacted; "always allow" of this exact call still makes an exact rule', async () => {
    const stream = await EventStream.open(tg);
    try {
      const command = `OPENAI_API_KEY=${openaiKey} python3 -c 'print(6*7)'`;
      const res = await tg.api('/tools/run_shell/execute', { method: 'POST', json: { command }, headers: { prefer: 'respond-async' } });
      expect(res.status).toBe(202);
      const pending = await readJson(res);
      const requested = await stream.next((e) => e.event === 'approval' && e.data.phase === 'requested' && e.data.approval.id === pending.approval_id);
      expectNoSecret(JSON.stringify(requested.data), 'the approval event', { openaiKey });
      expect(requested.data.approval.arguments.command).toBe("OPENAI_API_KEY=[REDACTED] python3 -c 'print(6*7)'");
      const listed = await until(async () => ((await readJson(await tg.asOwner('/approvals'))).approvals as Json[]).find((a) => a.id === pending.approval_id), 'the approval');
      expectNoSecret(JSON.stringify(listed), 'GET /approvals', { openaiKey });
      const prefix = (listed.scopes as Json[]).find((s) => s.scope === 'prefix');
      expect(prefix?.pattern).toBe('OPENAI_API_KEY=[REDACTED] python3');

      const decided = await tg.asOwner(`/approvals/${pending.approval_id}`, { json: { decision: 'allow_always', scope: 'exact' } });
      expect(decided.status).toBe(200);
      await stream.next((e) => e.event === 'call' && e.data.call.id === pending.call_id && ['succeeded', 'failed'].includes(e.data.phase));
      // The rule was built from the real arguments: the same call is now allowed by it, without asking.
      const again = await readJson(await tg.asOwner('/policy/check', { json: { name: 'run_shell', arguments: { command } } }));
      expect(again).toMatchObject({ decision: 'allow' });
      expect(again.rule).toMatch(/^rule:/);
      // A client may not dry-run arguments holding a secret (the answer would confirm a guess of it), and reads the
      // rules without their patterns.
      const guessed = await tg.api('/policy/check', { method: 'POST', json: { name: 'run_shell', arguments: { command } } });
      expect(guessed.status).toBe(403);
      expectNoSecret(await guessed.text(), 'a refused dry run', { openaiKey });
      const asClient = await readJson(await tg.api('/rules'));
      expect(asClient.rules.find((r: Json) => `rule:${r.id}` === again.rule)).toMatchObject({ pattern: null, note: null });
      // The owner reads the rules: the exact rule's pattern (the real arguments) is shown redacted.
      const rules = await readJson(await tg.asOwner('/rules'));
      expect(rules.rules.find((r: Json) => `rule:${r.id}` === again.rule).pattern).toContain('OPENAI_API_KEY=[REDACTED]');
      expectNoSecret(JSON.stringify(rules), 'GET /rules', { openaiKey });
      expectNoSecret(JSON.stringify(await readJson(await tg.api(`/calls/${pending.call_id}`))), 'the call', { openaiKey });
      expectNoSecret(JSON.stringify(stream.events), 'GET /events', { openaiKey });
    } finally {
      await stream.close();
    }
  });
});

describe('conversations of the LLM bridge', () => {
  let setup: LlmSetup | undefined;
  afterEach(async () => {
    await setup?.close();
    setup = undefined;
  });

  it('are kept redacted — the message, the tool call and its result — while the model reads the tool result whole', async () => {
    const password = `Hunter2-${fake(10, ALNUM)}`;
    setup = await startWithStub('openai', (request) => {
      const lastMessage = last(request.messages);
      if (lastMessage.role === 'user') return { tool_calls: [{ name: 'json_parse', arguments: { text: JSON.stringify({ token: githubToken, curl }) } }] };
      return { content: 'Parsed it.' };
    });
    const done = await readJson(await setup.tg.api('/chat', { method: 'POST', json: { message: `my password: ${password} — parse this please` } }));
    expect(done.answer).toBe('Parsed it.');
    // The model read the tool's answer as the tool gave it.
    const toolMessage = setup.stub.requests.at(-1)!.messages.find((m) => m.role === 'tool')!;
    expect(String(toolMessage.content)).toContain(githubToken);

    const kept = JSON.stringify(await readJson(await setup.tg.api(`/chat/conversations/${done.conversation_id}`)));
    expectNoSecret(kept, 'the stored conversation', { password, githubToken, bearer });
    expect(kept).toContain('my password: [REDACTED]');
    expectNoSecret(JSON.stringify(await readJson(await setup.tg.api('/calls?tool=json_parse'))), 'GET /calls', { githubToken, bearer });
  });
});

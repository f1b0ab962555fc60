import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../server/index.js';
import { PACKAGE_ROOT } from '../../../server/version.js';
import { EventStream } from '../../helpers/events.js';
import { startGateway, tempDir, type TestGateway } from '../../helpers/gateway.js';

/**
 * GET/PATCH /settings through real HTTP: who may use them, what they answer, what they write into config.json, and
 * that a change is in force for the very next call (and after a restart).
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const read = async (res: Response): Promise<Json> => res.json();

const patch = (tg: TestGateway, json: unknown) => tg.asOwner('/settings', { method: 'PATCH', json });
const configFile = (tg: TestGateway) => join(tg.dataDir, 'config.json');
const readConfig = (tg: TestGateway): Json => JSON.parse(readFileSync(configFile(tg), 'utf8'));

/** A folder with one file in it, removed after the test file. */
const made: string[] = [];
function folderWith(file: string, content: string): string {
  const dir = tempDir('pincer-settings-root-');
  made.push(dir);
  writeFileSync(join(dir, file), content);
  return dir;
}

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** Runs a tool as the default client and returns status and envelope. */
async function call(tg: TestGateway, tool: string, args: Json): Promise<{ status: number; body: Json }> {
  const res = await tg.api(`/tools/${tool}/execute`, { method: 'POST', json: args });
  return { status: res.status, body: await read(res) };
}

describe('only the owner reaches the settings', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await startGateway();
  });
  afterAll(async () => {
    await tg.close();
  });

  it('a client token gets 403 on GET /settings', async () => {
    const res = await tg.api('/settings');
    expect(res.status).toBe(403);
    expect((await read(res)).error.message).toMatch(/only the owner/i);
  });

  it('a client token gets 403 on PATCH /settings, and nothing changes', async () => {
    const elsewhere = folderWith('x.txt', 'x');
    const res = await tg.api('/settings', { method: 'PATCH', json: { roots: [elsewhere], approval_timeout_s: 10, paused: true } });
    expect(res.status).toBe(403);
    expect(existsSync(configFile(tg))).toBe(false);
    expect(tg.gateway.access.paused).toBe(false);
    expect(tg.gateway.approvals.timeoutMs).toBe(120_000);
  });

  it('a named client token gets 403 too', async () => {
    const token = tg.gateway.credentials.createClient('settings-prober');
    const headers = { authorization: `Bearer ${token}` };
    expect((await tg.api('/settings', { headers })).status).toBe(403);
    expect((await tg.api('/settings', { method: 'PATCH', headers, json: { paused: true } })).status).toBe(403);
  });

  it('the owner cookie without Origin is refused on PATCH (CSRF)', async () => {
    const { cookie } = await tg.ownerHeaders();
    const res = await fetch(`${tg.url}/settings`, {
      method: 'PATCH',
      headers: { cookie: cookie!, 'content-type': 'application/json' },
      body: JSON.stringify({ approval_timeout_s: 10 }),
    });
    expect(res.status).toBe(403);
    expect((await read(res)).error.name).toBe('ORIGIN_NOT_ALLOWED');
    expect(existsSync(configFile(tg))).toBe(false);
  });

  it('the owner cookie with a foreign Origin is refused on PATCH', async () => {
    const { cookie } = await tg.ownerHeaders();
    const res = await fetch(`${tg.url}/settings`, {
      method: 'PATCH',
      headers: { cookie: cookie!, origin: 'http://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ paused: true }),
    });
    expect(res.status).toBe(403);
    expect(tg.gateway.access.paused).toBe(false);
  });
});

describe('GET /settings', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await startGateway();
  });
  afterAll(async () => {
    await tg.close();
  });

  it('answers every setting, the address and data directory, and nothing locked', async () => {
    const res = await tg.asOwner('/settings');
    expect(res.status).toBe(200);
    expect(await read(res)).toEqual({
      paused: false,
      address: tg.url,
      data_dir: tg.dataDir,
      roots: [tg.workspace],
      approval_timeout_s: 120,
      llm: { base_url: 'http://127.0.0.1:11434', model: null, api: 'ollama', max_context: 32768, max_tools: null },
      locked: {},
      sandbox: { kind: expect.any(String), detail: expect.any(String) },
      history: { retention_days: 90, max_rows: null, pruning_confirmed: true, prunable: 0, pruned: 0, last_pruned_at: null },
      ollama_proxy: { tokenless: false, client: 'ollama-app' },
      mcp_sampling: false,
    });
  });
});

describe('PATCH /settings', () => {
  let tg: TestGateway;
  let events: EventStream;
  const original = () => ({ roots: [tg.workspace], approval_timeout_s: 120, llm: { base_url: 'http://127.0.0.1:11434', model: null, api: 'ollama' } });

  beforeAll(async () => {
    tg = await startGateway();
    // The dashboard's stream: the marks below are client tool-set changes, which reach only the owner and that client.
    events = await EventStream.openAsOwner(tg);
  });
  afterAll(async () => {
    await events.close();
    await tg.close();
  });
  afterEach(async () => {
    // Each test starts from the defaults and no config.json.
    rmSync(configFile(tg), { force: true });
    await patch(tg, {
      roots: [tg.workspace],
      approval_timeout_s: 120,
      llm: { base_url: 'http://127.0.0.1:11434', model: null, api: 'ollama', max_context: null, max_tools: null },
      history: { retention_days: 90, max_rows: null },
      paused: false,
    });
    // The client a test picked may be revoked by now: back to the default as start-up would set it.
    tg.gateway.config.ollamaProxy = { tokenless: false, client: 'ollama-app' };
    rmSync(configFile(tg), { force: true });
  });

  it('saves the change to config.json, answers the full settings, and announces it', async () => {
    const elsewhere = folderWith('a.txt', 'A');
    const res = await patch(tg, { roots: [elsewhere], approval_timeout_s: 300, llm: { base_url: 'http://127.0.0.1:9999/', model: 'llama3.1', api: 'openai' } });
    expect(res.status).toBe(200);
    const body = await read(res);
    expect(body).toEqual({
      paused: false,
      address: tg.url,
      data_dir: tg.dataDir,
      roots: [elsewhere],
      approval_timeout_s: 300,
      llm: { base_url: 'http://127.0.0.1:9999', model: 'llama3.1', api: 'openai', max_context: 32768, max_tools: null },
      locked: {},
      sandbox: { kind: expect.any(String), detail: expect.any(String) },
      history: { retention_days: 90, max_rows: null, pruning_confirmed: true, prunable: 0, pruned: 0, last_pruned_at: null },
      ollama_proxy: { tokenless: false, client: 'ollama-app' },
      mcp_sampling: false,
    });
    expect(await read(await tg.asOwner('/settings'))).toEqual(body);
    expect(readConfig(tg)).toEqual({
      roots: [elsewhere],
      approval_timeout_s: 300,
      llm: { base_url: 'http://127.0.0.1:9999', model: 'llama3.1', api: 'openai' },
    });
    expect(statSync(configFile(tg)).mode & 0o777).toBe(0o600);
    await events.next((e) => e.event === 'tools' && e.data.reason === 'settings');
  });

  it('keeps the other keys in config.json, including ones it does not know', async () => {
    writeFileSync(configFile(tg), JSON.stringify({ http_allow: ['192.168.1.10'], llm: { model: 'kept' }, my_note: { any: ['thing'] } }));
    expect((await patch(tg, { approval_timeout_s: 45, llm: { api: 'openai' } })).status).toBe(200);
    expect(readConfig(tg)).toEqual({
      http_allow: ['192.168.1.10'],
      llm: { model: 'kept', api: 'openai' },
      my_note: { any: ['thing'] },
      approval_timeout_s: 45,
    });
  });

  it('leaves no temporary file next to config.json', async () => {
    expect((await patch(tg, { approval_timeout_s: 46 })).status).toBe(200);
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(tg.dataDir).filter((f) => f.includes('config'))).toEqual(['config.json']);
  });

  it('llm.model null clears the model from config.json', async () => {
    await patch(tg, { llm: { model: 'llama3.1' } });
    const res = await patch(tg, { llm: { model: null } });
    expect((await read(res)).llm.model).toBeNull();
    expect(readConfig(tg).llm).toEqual({});
  });

  it('llm.max_context caps the window asked of Ollama; a bad value is refused naming it; null is the default again', async () => {
    const set = await read(await patch(tg, { llm: { max_context: 8192 } }));
    expect(set.llm.max_context).toBe(8192);
    expect(tg.gateway.config.llm.maxContext).toBe(8192);
    expect(readConfig(tg).llm).toEqual({ max_context: 8192 });
    const bad = await patch(tg, { llm: { max_context: 100 } });
    expect(bad.status).toBe(400);
    expect((await read(bad)).error.message).toContain('llm.max_context');
    expect(tg.gateway.config.llm.maxContext).toBe(8192);
    const cleared = await read(await patch(tg, { llm: { max_context: null } }));
    expect(cleared.llm.max_context).toBe(32768);
    expect(readConfig(tg).llm).toEqual({});
  });

  it('history limits and the token-less Ollama proxy are saved under their own keys, the rest of config.json kept', async () => {
    writeFileSync(configFile(tg), JSON.stringify({ http_allow: ['10.0.0.3'], history: { max_rows: 5000 }, ollama_proxy: { client: 'ollama-app' }, my_note: 1 }));
    tg.gateway.credentials.createClient('settings-jan');
    const res = await patch(tg, { history: { retention_days: 30 }, ollama_proxy: { tokenless: true, client: 'settings-jan' } });
    expect(res.status).toBe(200);
    const body = await read(res);
    expect(body.history).toMatchObject({ retention_days: 30, max_rows: null, pruning_confirmed: true });
    expect(body.ollama_proxy).toEqual({ tokenless: true, client: 'settings-jan' });
    expect(readConfig(tg)).toEqual({
      http_allow: ['10.0.0.3'],
      // max_rows was in the file but the gateway started without it: the file keeps the owner's value.
      history: { max_rows: 5000, retention_days: 30 },
      ollama_proxy: { client: 'settings-jan', tokenless: true },
      my_note: 1,
    });
    await events.next((e) => e.event === 'tools' && e.data.reason === 'settings');

    const rows = await read(await patch(tg, { history: { max_rows: 250 } }));
    expect(rows.history).toMatchObject({ retention_days: 30, max_rows: 250 });
    expect(readConfig(tg).history).toEqual({ max_rows: 250, retention_days: 30 });
    // null lifts the row limit: the key leaves config.json, as a cleared model does.
    const lifted = await read(await patch(tg, { history: { max_rows: null }, ollama_proxy: { tokenless: false } }));
    expect(lifted.history).toMatchObject({ retention_days: 30, max_rows: null });
    expect(lifted.ollama_proxy).toEqual({ tokenless: false, client: 'settings-jan' });
    expect(readConfig(tg)).toMatchObject({ history: { retention_days: 30 }, ollama_proxy: { client: 'settings-jan', tokenless: false } });
    expect(tg.gateway.config.history).toEqual({ retentionDays: 30, maxRows: undefined });
    expect((await tg.asOwner('/clients/settings-jan', { method: 'DELETE' })).status).toBe(200);
  });

  it('the token-less client may only be a named client with a working token, or the one already set', async () => {
    tg.gateway.credentials.createClient('settings-kept');
    tg.gateway.credentials.createClient('settings-gone');
    expect((await tg.asOwner('/clients/settings-gone', { method: 'DELETE' })).status).toBe(200);
    for (const [client, status] of [['settings-kept', 200], ['ollama-app', 200], ['settings-gone', 400], ['default', 400], ['nobody-made-me', 400]] as const) {
      tg.gateway.config.ollamaProxy = { tokenless: false, client: 'ollama-app' };
      const res = await patch(tg, { ollama_proxy: { client } });
      expect(res.status, client).toBe(status);
      if (status === 400) {
        const message = (await read(res)).error.message;
        expect(message).toContain(
          client === 'default'
            ? `ollama_proxy.client must be a named client (the default client and the owner read every client's calls and memories), got "default"`
            : `ollama_proxy.client: must be a named client ("settings-kept", "ollama-app"; create one under Tokens first), got "${client}"`,
        );
        expect(tg.gateway.config.ollamaProxy.client).toBe('ollama-app');
      }
    }
  });

  it('paused stays in the database, not in config.json, and still announces paused/resumed', async () => {
    const res = await patch(tg, { paused: true });
    expect(res.status).toBe(200);
    expect(await read(res)).toMatchObject({ paused: true, roots: [tg.workspace] });
    await events.next((e) => e.event === 'tools' && e.data.reason === 'paused');
    expect(existsSync(configFile(tg))).toBe(false);
    expect((await call(tg, 'calculate', { expression: '1+1' })).body.error.name).toBe('TOOLS_PAUSED');
    await patch(tg, { paused: false });
    await events.next((e) => e.event === 'tools' && e.data.reason === 'resumed');
  });

  it('announces a change of paused alone once, not also as "settings"', async () => {
    // Events with a reason of their own mark where this PATCH's events start and end on the stream.
    const mark = async (name: string) => {
      expect((await tg.asOwner(`/clients/${name}/tools`, { method: 'PUT', json: { tools: null } })).status).toBe(200);
      return events.events.indexOf(await events.next((e) => e.event === 'tools' && e.data.reason === `client:${name}`));
    };
    const from = await mark('settings-mark-1');
    expect((await patch(tg, { paused: true })).status).toBe(200);
    const to = await mark('settings-mark-2');
    expect(events.events.slice(from + 1, to).map((e) => `${e.event}:${e.data.reason}`)).toEqual(['tools:paused']);
  });

  it('new roots take effect for file_read at once: the new root is readable, the old one is out of bounds', async () => {
    writeFileSync(join(tg.workspace, 'old.txt'), 'OLD');
    const elsewhere = folderWith('new.txt', 'NEW');
    expect((await call(tg, 'file_read', { path: 'old.txt' })).body.result.content).toBe('OLD');

    expect((await patch(tg, { roots: [elsewhere] })).status).toBe(200);

    const fresh = await call(tg, 'file_read', { path: join(elsewhere, 'new.txt') });
    expect(fresh.status).toBe(200);
    expect(fresh.body.result.content).toBe('NEW');
    // A relative path now starts at the new first root.
    expect((await call(tg, 'file_read', { path: 'new.txt' })).body.result.content).toBe('NEW');
    // The policy refuses the old root before anything runs…
    const stale = await call(tg, 'file_read', { path: join(tg.workspace, 'old.txt') });
    expect(stale.status).toBe(403);
    expect(stale.body.error).toMatchObject({ name: 'POLICY_DENIED', details: { rule: 'path:outside-roots' } });
    expect(stale.body.error.message).toContain(realpathSync(elsewhere));
    // …and the handler's own re-check (what a call already past the policy meets) says PATH_NOT_ALLOWED.
    const handler = tg.gateway.registry.get('file_read')!.definition.handler;
    await expect(
      handler({ path: join(tg.workspace, 'old.txt') }, { signal: new AbortController().signal, callId: 'test', client: 'test' }),
    ).rejects.toMatchObject({ errorName: 'PATH_NOT_ALLOWED', details: { rule: 'path:outside-roots' } });
    // The shell's working folder and its analysis follow too.
    const list = await call(tg, 'file_list', { path: '.' });
    expect(JSON.stringify(list.body.result)).toContain('new.txt');
    const shellCwd = await tg.api('/policy/check', { method: 'POST', json: { name: 'run_shell', arguments: { command: 'ls', cwd: tg.workspace } } });
    expect(await read(shellCwd)).toMatchObject({ decision: 'deny', rule: 'path:outside-roots' });
    const wipe = await tg.api('/policy/check', { method: 'POST', json: { name: 'run_shell', arguments: { command: `rm -rf ${elsewhere}` } } });
    expect(await read(wipe)).toMatchObject({ decision: 'deny', rule: 'shell:catastrophic:wipe-workspace' });
  });

  it('roots given through a symlink are saved as given and guarded by their real path', async () => {
    const real = folderWith('via-link.txt', 'LINKED');
    const link = join(tempDir('pincer-settings-link-'), 'link');
    made.push(join(link, '..'));
    symlinkSync(real, link);
    const res = await patch(tg, { roots: [link] });
    expect(res.status).toBe(200);
    expect((await read(res)).roots).toEqual([link]);
    expect(readConfig(tg).roots).toEqual([link]);
    expect((await call(tg, 'file_read', { path: 'via-link.txt' })).body.result.content).toBe('LINKED');
  });

  it('a new approval timeout applies to the next approval', async () => {
    writeFileSync(join(tg.workspace, 'doomed.txt'), 'x');
    expect((await patch(tg, { approval_timeout_s: 42 })).status).toBe(200);
    const res = await tg.api('/tools/file_delete/execute', { method: 'POST', json: { path: 'doomed.txt' }, headers: { prefer: 'respond-async' } });
    expect(res.status).toBe(202);
    const { approval_id } = await read(res);
    const approval = (await read(await tg.asOwner('/approvals'))).approvals.find((a: Json) => a.id === approval_id);
    expect(Date.parse(approval.expires_at) - Date.parse(approval.created_at)).toBe(42_000);
    await tg.asOwner(`/approvals/${approval_id}`, { json: { decision: 'deny' } });
  });

  describe('refuses bad values with 400 naming the key, and changes nothing', () => {
    it.each([
      [{ mcp_sampling: 'yes' }, 'mcp_sampling must be true or false'],
      [{ approval_timeout_s: 3 }, 'approval_timeout_s must be a whole number from 5 to 86400'],
      [{ approval_timeout_s: 86_401 }, 'approval_timeout_s must be a whole number from 5 to 86400'],
      [{ approval_timeout_s: 1.5 }, 'approval_timeout_s must be a whole number from 5 to 86400'],
      [{ approval_timeout_s: 'soon' }, 'approval_timeout_s must be a whole number from 5 to 86400'],
      [{ approval_timeout_s: null }, 'approval_timeout_s must be a whole number'],
      [{ roots: ['/nope/pincer-no-such-folder'] }, 'roots: The root folder "/nope/pincer-no-such-folder" does not exist'],
      [{ roots: '/tmp' }, 'roots: must be a list of folders'],
      [{ roots: [42] }, 'roots must be a list of folders'],
      [{ roots: ['relative/folder'] }, 'roots: "relative/folder" is not an absolute path'],
      [{ llm: { api: 'claude' } }, 'llm.api must be one of ollama, openai'],
      [{ llm: { base_url: 'ftp://files.example.com' } }, 'llm.base_url must be an http:// or https:// URL'],
      [{ llm: { base_url: 'not a url' } }, 'llm.base_url must be an http:// or https:// URL'],
      [{ llm: { model: '' } }, 'llm.model must be a non-empty string'],
      [{ llm: 'ollama' }, 'llm must be an object'],
      [{ paused: 'yes' }, 'paused must be true or false'],
      [{ history: { retention_days: -1 } }, 'history.retention_days must be a whole number from 0 to 36500, got -1'],
      [{ history: { retention_days: 36_501 } }, 'history.retention_days must be a whole number from 0 to 36500'],
      [{ history: { retention_days: 7.5 } }, 'history.retention_days must be a whole number from 0 to 36500'],
      [{ history: { retention_days: null } }, 'history.retention_days must be a whole number from 0 to 36500'],
      [{ history: { retention_days: 'forever' } }, 'history.retention_days must be a whole number from 0 to 36500'],
      [{ history: { max_rows: 99 } }, 'history.max_rows must be a whole number from 100 to 1000000000, got 99'],
      [{ history: { max_rows: 1_000_000_001 } }, 'history.max_rows must be a whole number from 100 to 1000000000'],
      [{ history: { max_rows: 'all' } }, 'history.max_rows must be a whole number from 100 to 1000000000'],
      [{ history: 90 }, 'history must be an object like {"retention_days": 90, "max_rows": 100000}'],
      [{ ollama_proxy: { tokenless: 'yes' } }, 'ollama_proxy.tokenless must be true or false, got "yes"'],
      [{ ollama_proxy: { tokenless: null } }, 'ollama_proxy.tokenless must be true or false'],
      [{ ollama_proxy: { client: 'two words' } }, 'ollama_proxy.client must be a client name'],
      [{ ollama_proxy: { client: 42 } }, 'ollama_proxy.client must be a client name'],
      [{ ollama_proxy: { client: 'nobody-made-me' } }, 'ollama_proxy.client: must be a named client'],
      [{ ollama_proxy: true }, 'ollama_proxy must be an object like {"tokenless": true, "client": "ollama-app"}'],
    ])('%j', async (body, message) => {
      const res = await patch(tg, body);
      expect(res.status).toBe(400);
      const error = (await read(res)).error;
      expect(error.name).toBe('INVALID_ARGUMENTS');
      expect(error.message).toContain(message);
      expect(error.message).toMatch(/nothing was changed/i);
      expect(existsSync(configFile(tg))).toBe(false);
      expect(await read(await tg.asOwner('/settings'))).toMatchObject({
        ...original(),
        paused: false,
        history: { retention_days: 90, max_rows: null },
        ollama_proxy: { tokenless: false, client: 'ollama-app' },
      });
    });

    it('a root that is a file', async () => {
      const dir = folderWith('plain.txt', 'x');
      const res = await patch(tg, { roots: [join(dir, 'plain.txt')] });
      expect(res.status).toBe(400);
      expect((await read(res)).error.message).toMatch(/roots: .*is not a folder/);
    });

    it("a root inside Pincer's data directory", async () => {
      const inside = join(tg.dataDir, 'plugins');
      mkdirSync(inside, { recursive: true });
      for (const root of [tg.dataDir, inside]) {
        const res = await patch(tg, { roots: [root] });
        expect(res.status).toBe(400);
        expect((await read(res)).error.message).toContain(`roots may not hold "${root}" (it is ${root === inside ? 'inside ' : ''}Pincer's data folder`);
      }
      expect((await call(tg, 'file_list', { path: '.' })).status).toBe(200);
      expect(await read(await tg.asOwner('/settings'))).toMatchObject({ roots: [tg.workspace] });
    });

    it("a root that is Pincer's package folder, its bundled plugins, or a folder inside them", async () => {
      const cases: [string, RegExp][] = [
        [PACKAGE_ROOT, /it is Pincer's own package folder \(its code\)/],
        [join(PACKAGE_ROOT, 'server'), /it is inside Pincer's own package folder/],
        [join(PACKAGE_ROOT, 'plugins'), /it is Pincer's bundled plugins folder/],
        [join(PACKAGE_ROOT, 'plugins', 'investment'), /it is inside Pincer's bundled plugins folder/],
      ];
      for (const [root, why] of cases) {
        const res = await patch(tg, { roots: [tg.workspace, root] });
        expect(res.status, root).toBe(400);
        const { message } = (await read(res)).error;
        expect(message).toContain(`roots may not hold "${root}"`);
        expect(message).toMatch(why);
        expect(message).toMatch(/nothing was changed/i);
      }
      expect(existsSync(configFile(tg))).toBe(false);
      expect(await read(await tg.asOwner('/settings'))).toMatchObject({ roots: [tg.workspace] });
    });

    it('every problem at once, each named, and the good keys in the same body are not applied', async () => {
      const good = folderWith('good.txt', 'x');
      const res = await patch(tg, { roots: [good], paused: true, approval_timeout_s: 1, llm: { api: 'nope' } });
      expect(res.status).toBe(400);
      const error = (await read(res)).error;
      expect(error.details.errors.map((e: Json) => e.key)).toEqual(['approval_timeout_s', 'llm.api']);
      expect(error.message).toContain('approval_timeout_s');
      expect(error.message).toContain('llm.api');
      expect(await read(await tg.asOwner('/settings'))).toMatchObject({ ...original(), paused: false });
      expect(existsSync(configFile(tg))).toBe(false);
    });
  });

  it.each([
    [{ port: 7801 }, '"port"'],
    [{ roots: ['/tmp'], token: 'x' }, '"token"'],
    [{ llm: { modle: 'x' } }, '"llm.modle"'],
    [{ history: { days: 3 } }, '"history.days"'],
    [{ ollama_proxy: { token: 'x' } }, '"ollama_proxy.token"'],
    [{ __proto__x: 1 }, '"__proto__x"'],
  ])('refuses unknown keys %j with 400 naming them', async (body, named) => {
    const res = await patch(tg, body);
    expect(res.status).toBe(400);
    const message = (await read(res)).error.message;
    expect(message).toContain(named);
    expect(message).toContain('approval_timeout_s');
    expect(existsSync(configFile(tg))).toBe(false);
  });

  it('refuses an empty body and a body that is not an object', async () => {
    expect((await patch(tg, {})).status).toBe(400);
    expect((await patch(tg, [{ paused: true }])).status).toBe(400);
    expect(tg.gateway.access.paused).toBe(false);
  });

  it('keeps config.json byte for byte when a PATCH is refused', async () => {
    const text = '{\n  "http_allow": ["10.0.0.2"],\n  "approval_timeout_s": 90\n}\n';
    writeFileSync(configFile(tg), text);
    for (const body of [{ approval_timeout_s: 2 }, { roots: ['/nope/pincer-no-such-folder'] }, { surprise: true }]) {
      expect((await patch(tg, body)).status).toBe(400);
      expect(readFileSync(configFile(tg), 'utf8')).toBe(text);
    }
  });

  it('refuses with 409 and leaves config.json alone when it is not valid JSON', async () => {
    const text = '{ "roots": [ "/half-edited", \n';
    writeFileSync(configFile(tg), text);
    const res = await patch(tg, { approval_timeout_s: 30 });
    expect(res.status).toBe(409);
    const error = (await read(res)).error;
    expect(error.name).toBe('CONFIG_FILE_INVALID');
    expect(error.message).toContain('not valid JSON');
    expect(readFileSync(configFile(tg), 'utf8')).toBe(text);
    expect(tg.gateway.approvals.timeoutMs).toBe(120_000);
  });

  it('answers 500 and applies nothing when config.json cannot be written', async () => {
    // A config.json link into a folder that does not exist: it can be neither read nor replaced.
    symlinkSync(join(tg.dataDir, 'no-such-folder', 'config.json'), configFile(tg));
    const res = await patch(tg, { approval_timeout_s: 30, paused: true });
    expect(res.status).toBe(500);
    expect((await read(res)).error).toMatchObject({ name: 'CONFIG_WRITE_FAILED', message: expect.stringMatching(/nothing was changed/) });
    expect(tg.gateway.approvals.timeoutMs).toBe(120_000);
    expect(tg.gateway.access.paused).toBe(false);
  });
});

describe('settings survive a restart', () => {
  it('a gateway started again on the same data directory reads back what PATCH saved', async () => {
    const dataDir = tempDir();
    const workspace = tempDir('pincer-root-');
    const elsewhere = folderWith('kept.txt', 'KEPT');
    made.push(dataDir, workspace);
    let first: TestGateway | undefined = await startGateway({ dataDir, roots: [workspace] });
    let second: TestGateway | undefined;
    try {
      const saved = await patch(first, { roots: [elsewhere], approval_timeout_s: 600, llm: { base_url: 'http://llm.lan:8000', model: 'qwen3', api: 'openai' } });
      expect(saved.status).toBe(200);
      expect(JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8'))).toEqual({
        roots: [elsewhere],
        approval_timeout_s: 600,
        llm: { base_url: 'http://llm.lan:8000', model: 'qwen3', api: 'openai' },
      });
      await first.close();
      first = undefined;

      // Started as `pincer serve` would be: the configuration comes from loadConfig, roots from config.json.
      second = await startGateway(loadConfig({ flags: { dataDir, port: 0, host: '127.0.0.1' }, env: {}, cwd: workspace }));
      const body = await read(await second.asOwner('/settings'));
      expect(body).toMatchObject({
        roots: [elsewhere],
        approval_timeout_s: 600,
        llm: { base_url: 'http://llm.lan:8000', model: 'qwen3', api: 'openai' },
        locked: {},
      });
      expect(second.gateway.approvals.timeoutMs).toBe(600_000);
      expect((await call(second, 'file_read', { path: 'kept.txt' })).body.result.content).toBe('KEPT');
    } finally {
      await first?.close();
      await second?.close();
    }
  });
});

describe('settings held by the environment or a flag are locked', () => {
  let tg: TestGateway;
  let dataDir: string;
  let envRoot: string;

  beforeAll(async () => {
    dataDir = tempDir();
    envRoot = tempDir('pincer-root-');
    made.push(dataDir, envRoot);
    writeFileSync(join(dataDir, '.env'), 'PINCER_LLM_API=openai\n');
    const config = loadConfig({
      flags: { dataDir, port: 0, host: '127.0.0.1' },
      env: { PINCER_ROOTS: envRoot, PINCER_LLM_MODEL: 'from-env', OLLAMA_HOST: 'gpu-box:11434' },
      cwd: envRoot,
    });
    tg = await startGateway(config);
  });
  afterAll(async () => {
    await tg.close();
  });

  it('GET /settings names the variable holding each locked key', async () => {
    expect((await read(await tg.asOwner('/settings'))).locked).toEqual({
      roots: 'PINCER_ROOTS',
      'llm.model': 'PINCER_LLM_MODEL',
      'llm.base_url': 'OLLAMA_HOST',
      'llm.api': 'PINCER_LLM_API',
    });
  });

  it('PATCH of a locked key is 409 naming the variable, and nothing is written', async () => {
    const elsewhere = folderWith('x.txt', 'x');
    const res = await patch(tg, { roots: [elsewhere], approval_timeout_s: 30 });
    expect(res.status).toBe(409);
    const error = (await read(res)).error;
    expect(error.name).toBe('SETTING_LOCKED');
    expect(error.message).toContain('roots is set by the environment variable PINCER_ROOTS');
    expect(error.details.locked).toEqual({ roots: 'PINCER_ROOTS' });
    expect(existsSync(join(dataDir, 'config.json'))).toBe(false);
    expect(tg.gateway.approvals.timeoutMs).toBe(120_000);
    expect((await call(tg, 'file_read', { path: join(elsewhere, 'x.txt') })).status).toBe(403);
  });

  it('a key from the data directory .env is locked too, naming that file', async () => {
    const res = await patch(tg, { llm: { api: 'ollama' } });
    expect(res.status).toBe(409);
    expect((await read(res)).error.message).toContain(`PINCER_LLM_API in ${join(dataDir, '.env')}`);
  });

  it('keys that are not locked can still be changed', async () => {
    const res = await patch(tg, { approval_timeout_s: 30 });
    expect(res.status).toBe(200);
    expect((await read(res)).locked).toHaveProperty('roots', 'PINCER_ROOTS');
    expect(JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8'))).toEqual({ approval_timeout_s: 30 });
  });

  it('a flag locks what it sets', () => {
    const config = loadConfig({ flags: { dataDir, port: '7999' }, env: {}, cwd: envRoot });
    expect(config.sources.port).toEqual({ kind: 'flag', name: '--port' });
  });
});

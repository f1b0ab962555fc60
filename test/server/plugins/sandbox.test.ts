import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxSupport } from '../../../server/process/sandbox.js';
import { readJson, startGateway, type TestGateway } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';
import { pluginFiles, pluginSteps, toolPlugin, writePlugin } from './helpers.js';

/**
 * Plugins run inside the OS sandbox on top of Node's permission model: each attack a plugin could try with what
 * Node 20 alone does not stop (signals, raw sockets, links out of an allowed folder, a program it starts, a pipe
 * flooded without line breaks), one by one, through a real gateway, real bubblewrap and real processes. CI installs
 * bubblewrap; a machine without it skips these (and says so), except under CI, where that is a failure.
 */

const support = sandboxSupport();
const available = support.kind === 'bubblewrap';
if (!available && process.env.CI) throw new Error(`CI must run the plugin sandbox tests, but: ${support.detail}`);

let tg: TestGateway;
let steps: ReturnType<typeof pluginSteps>;
let listener: Server;
let listenerPort: number;
let connections = 0;
let stub: HttpServer;
let stubUrl: string;
const homeProbe = join(homedir(), `pincer-plugin-probe-${process.pid}`);

beforeAll(async () => {
  listener = createServer((socket) => {
    connections++;
    socket.end('LISTENER-REPLY');
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  listenerPort = (listener.address() as { port: number }).port;
  stub = createHttpServer((_req, res) => res.end('stub says hi'));
  await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
  stubUrl = `http://127.0.0.1:${(stub.address() as { port: number }).port}`;
  writeFileSync(homeProbe, 'HOME-SECRET');
  if (!available) return;
  // The owner points the plugin at a local service and opens loopback for it, as for a local mirror.
  tg = await startGateway({ httpAllow: ['127.0.0.1'], plugins: { netter: { base_url: stubUrl } } }, { bundledPluginsDir: null });
  steps = pluginSteps(tg);
});
afterAll(async () => {
  await tg?.close();
  rmSync(homeProbe, { force: true });
  await new Promise((resolve) => listener.close(resolve));
  await new Promise((resolve) => stub.close(resolve));
});

const health = async () => expect((await readJson(await fetch(`${tg.url}/health`))).status).toBe('ok');
const listed = async (name: string) => (await readJson(await tg.api('/plugins'))).plugins.find((p: { name: string }) => p.name === name);

describe.skipIf(!available)('a plugin inside the sandbox', () => {
  it('GET /plugins says each plugin runs in bubblewrap, and what that means', async () => {
    await steps.installed('plain', toolPlugin({ plain_ok: { body: 'return "ok";' } }));
    expect((await steps.call('plain_ok')).body.result).toBe('ok');
    expect(await listed('plain')).toMatchObject({ sandbox: { kind: 'bubblewrap', detail: expect.stringMatching(/own process namespace.*no network/) } });
  });

  it('sees its own process namespace only: its parent is the sandbox init, and no gateway process is there', async () => {
    const body = 'return { ppid: process.ppid, pid: process.pid };';
    await steps.installed('looker', toolPlugin({ looker_look: { body } }));
    const { result } = (await steps.call('looker_look')).body;
    expect(result.ppid).toBe(1);
    expect(result.pid).not.toBe(process.pid);
  });

  it("process.kill(process.ppid, 'SIGKILL') in a call hits the sandbox's init, not the gateway", async () => {
    await steps.installed('parricide', toolPlugin({ parricide_kill: { body: "process.kill(process.ppid, 'SIGKILL'); return process.ppid;" } }));
    expect((await steps.call('parricide_kill')).body).toMatchObject({ success: true, result: 1 });
    await health();
    expect((await steps.call('parricide_kill')).body.success).toBe(true);
  });

  it("process.kill(process.ppid, 'SIGKILL') at load (before any call) leaves the gateway answering", async () => {
    await steps.installed('eagerkill', toolPlugin({ eagerkill_ok: { body: 'return "still here";' } }, {}, "process.kill(process.ppid, 'SIGKILL');"));
    await health();
    expect((await steps.call('eagerkill_ok')).body.result).toBe('still here');
  });

  it('net.connect to a loopback listener gets nothing through, while ctx.http.fetch through the gateway reaches the allowed host', async () => {
    const body = `const net = await import('node:net');
      const direct = await new Promise((resolve) => {
        const socket = net.connect(${listenerPort}, '127.0.0.1');
        socket.setTimeout(3000, () => (socket.destroy(), resolve('timed out')));
        socket.on('data', (d) => resolve('GOT ' + d));
        socket.on('error', (e) => resolve(e.code));
      });
      const answer = await ctx.http.fetch(ctx.config.base_url + '/hello');
      return { direct, fetched: answer.text() };`;
    const before = connections;
    await steps.installed('netter', toolPlugin({ netter_go: { body } }));
    const { result } = (await steps.call('netter_go')).body;
    expect(result.direct).not.toMatch(/GOT/);
    expect(result.fetched).toBe('stub says hi');
    expect(connections).toBe(before);
  });

  it('links in a folder its manifest lets it read lead nowhere: not to the data folder, not to the home folder', async () => {
    const shared = join(tg.workspace, 'shared');
    mkdirSync(shared, { recursive: true });
    writeFileSync(join(shared, 'notes.txt'), 'SHARED-NOTES');
    symlinkSync(join(tg.dataDir, 'token'), join(shared, 'token-link'));
    symlinkSync(homeProbe, join(shared, 'home-link'));
    // Node's permission model follows a link that sits in an allowed folder: only the sandbox stops these.
    const body = `const fs = await import('node:fs'); const out = {};
      for (const name of ['notes.txt', 'token-link', 'home-link']) {
        try { out[name] = fs.readFileSync(${JSON.stringify(shared)} + '/' + name, 'utf8'); } catch (e) { out[name] = e.code; } }
      return out;`;
    await steps.installed('linker', toolPlugin({ linker_read: { body } }, { permissions: { read: [shared] } }));
    const answer = (await steps.call('linker_read')).body;
    expect(answer.result).toEqual({ 'notes.txt': 'SHARED-NOTES', 'token-link': 'ENOENT', 'home-link': 'ENOENT' });
    expect(JSON.stringify(answer)).not.toContain(tg.token);
  });

  it('a declared path that is itself a link to /proc shows nothing of it; one into the data folder fails the plugin, naming it', async () => {
    const area = join(tg.workspace, 'declared-links');
    mkdirSync(area, { recursive: true });
    // Made by anything that could write there (another program, a tool).
    symlinkSync('/proc', join(area, 'proc'));
    const body = `const fs = await import('node:fs');
      try { return fs.readFileSync(${JSON.stringify(join(area, 'proc'))} + '/${process.pid}/environ', 'latin1'); } catch (e) { return e.code; }`;
    await steps.installed('declared', toolPlugin({ declared_read: { body } }, { permissions: { read: [join(area, 'proc')] } }));
    const answer = (await steps.call('declared_read')).body;
    expect(answer.success, JSON.stringify(answer)).toBe(true);
    expect(['ENOENT', 'ERR_ACCESS_DENIED']).toContain(answer.result);
    expect(JSON.stringify(answer)).not.toContain(tg.token);

    // Into the data folder: refused when the manifest is read (the sandbox would show nothing of it either,
    // test/server/process/sandbox.test.ts).
    symlinkSync(tg.dataDir, join(area, 'shared'));
    const reader = toolPlugin({ shared_read: { body: 'return "ran";' } }, { permissions: { read: [join(area, 'shared')] } });
    writePlugin(join(tg.dataDir, 'plugins'), 'sharedreader', ...pluginFiles(reader));
    await tg.gateway.plugins.rescan();
    const failed = await until(() => {
      const v = tg.gateway.plugins.get('sharedreader');
      return v && v.status !== 'loading' && v;
    }, 'the plugin to settle', 30_000);
    expect(failed.status).toBe('failed');
    expect(failed.reason).toContain(`"${join(area, 'shared')}" leads into Pincer's data folder`);
  });

  it("a declared read of /proc shows the sandbox's own processes, never the gateway's environment", async () => {
    const body = `const fs = await import('node:fs');
      try { return fs.readFileSync('/proc/${process.pid}/environ', 'latin1'); } catch (e) { return e.code; }`;
    await steps.installed('procreader', toolPlugin({ procreader_read: { body } }, { permissions: { read: ['/proc'] } }));
    expect((await steps.call('procreader_read')).body.result).toBe('ENOENT');
  });

  it('a path its manifest lets it write is written inside the sandbox; its own folder stays read-only', async () => {
    const out = join(tg.workspace, 'plugin-out.txt');
    const body = `const fs = await import('node:fs'); const out = {};
      try { fs.writeFileSync(${JSON.stringify(out)}, 'written'); out.declared = 'ok'; } catch (e) { out.declared = e.code; }
      try { fs.writeFileSync(new URL('./planted.js', import.meta.url), 'x'); out.own = 'ok'; } catch (e) { out.own = e.code; }
      return out;`;
    await steps.installed('writer', toolPlugin({ writer_write: { body } }, { permissions: { write: [out] } }));
    expect((await steps.call('writer_write')).body.result).toEqual({ declared: 'ok', own: 'ERR_ACCESS_DENIED' });
    expect(readFileSync(out, 'utf8')).toBe('written');
    expect(existsSync(join(steps.pluginsDir, 'writer', 'planted.js'))).toBe(false);
  });

  it('a program a plugin may start (childProcess) runs, and cannot read the data folder or the home folder either', async () => {
    // Node's permission model does not reach the programs a plugin starts: the sandbox does.
    const body = `const { execSync } = await import('node:child_process');
      const run = (command) => { try { return execSync(command, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim(); } catch (e) { return 'FAILED ' + e.status; } };
      return { echo: run('echo started'), token: run('cat ${join(tg.dataDir, 'token')}'), home: run('cat ${homeProbe}'),
        own: run('touch planted.txt'), procs: run("ls /proc | grep -c '^[0-9]'") };`;
    await steps.installed('runner', toolPlugin({ runner_go: { body } }, { permissions: { childProcess: true } }));
    const answer = (await steps.call('runner_go')).body;
    // Its folder (the program's working folder) is mounted read-only.
    expect(answer.result).toMatchObject({ echo: 'started', token: expect.stringMatching(/^FAILED/), home: expect.stringMatching(/^FAILED/), own: expect.stringMatching(/^FAILED/) });
    expect(existsSync(join(steps.pluginsDir, 'runner', 'planted.txt'))).toBe(false);
    expect(Number(answer.result.procs)).toBeLessThan(10);
    expect(JSON.stringify(answer)).not.toContain(tg.token);
    expect(JSON.stringify(answer)).not.toContain('HOME-SECRET');
  });

  it('its HOME and TMPDIR are a private scratch folder it may write, removed when its process ends', async () => {
    const body = `const os = await import('node:os'); const fs = await import('node:fs');
      fs.writeFileSync(os.tmpdir() + '/scratch.txt', 'x');
      return { home: os.homedir(), tmp: os.tmpdir(), wrote: fs.readFileSync(os.tmpdir() + '/scratch.txt', 'utf8') };`;
    await steps.installed('scratcher', toolPlugin({ scratcher_go: { body } }));
    const { result } = (await steps.call('scratcher_go')).body;
    expect(result.home).toBe(result.tmp);
    expect(basename(result.tmp)).toMatch(/^pincer-plugin-/);
    expect(result.wrote).toBe('x');
    expect(existsSync(join(result.tmp, 'scratch.txt'))).toBe(true);
    expect((await tg.asOwner('/plugins/scratcher/disable', { method: 'POST' })).status).toBe(200);
    await until(() => !existsSync(result.tmp), 'the scratch folder to go');
  });
});

it('says what it found about the sandbox here', () => {
  expect(support.detail.length).toBeGreaterThan(10);
  if (!available) console.warn(`plugin sandbox tests skipped: ${support.detail}`);
  expect(readFileSync(homeProbe, 'utf8')).toBe('HOME-SECRET');
});

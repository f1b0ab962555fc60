import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, leftovers, runPincer, serve, type Served } from '../../helpers/cli.js';
import { PACKAGE_ROOT } from '../../../server/version.js';

/** A model server on loopback that answers Ollama's model list as Ollama does. */
async function stubOllama(models: string[]): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/api/tags') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ models: models.map((name) => ({ name, model: name, size: 1, details: { family: 'qwen2' } })) }));
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('404 page not found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('pincer doctor', () => {
  const { dir, servers, keep } = leftovers('pincer-doctor-');
  let served: Served | undefined;

  const line = (stdout: string, topic: string) => stdout.split('\n').find((l) => new RegExp(`^(OK|WARN|FAIL)\\s+${topic}\\b`).test(l));

  it('on a first run, with no data folder yet: checks everything and creates nothing', async () => {
    const home = join(dir(), 'not-yet');
    const result = await runPincer(['doctor', '--data-dir', home, '--port', String(await freePort())], { PINCER_LLM_BASE_URL: 'http://127.0.0.1:9' });
    expect(result.stderr).not.toMatch(/Cannot open database/);
    expect(line(result.stdout, 'port')).toMatch(/^OK\s+port\s.*no gateway is running on this data folder/);
    expect(existsSync(home)).toBe(false);
  });

  it('against a running gateway and a model server: each check OK or what to do, exit 0', async () => {
    const home = dir();
    const llm = await stubOllama(['qwen2.5:7b', 'llama3.2:3b']);
    servers.push(llm.server);
    const env = { PINCER_LLM_BASE_URL: llm.url, PINCER_LLM_MODEL: 'qwen2.5:7b' };
    // Started in Pincer's own folder, which it never shares: the folder added below is the only one.
    served = keep(await serve(home, await freePort(), PACKAGE_ROOT, env));
    const shared = dir();
    expect((await runPincer(['roots', 'add', shared, '--data-dir', home], env)).code).toBe(0);

    const result = await runPincer(['doctor', '--data-dir', home], env);
    expect(result.code).toBe(0);
    expect(line(result.stdout, 'sandbox')).toMatch(/^(OK|WARN)\s+sandbox/);
    expect(line(result.stdout, 'electron')).toBeDefined();
    expect(line(result.stdout, 'model')).toBe(`OK    model     ${llm.url} answers (2 models: qwen2.5:7b, llama3.2:3b); llm.model is qwen2.5:7b`);
    expect(line(result.stdout, 'gateway')).toMatch(new RegExp(`^OK    gateway   the gateway pid ${served.child.pid} on ${served.url} serves this data folder`));
    expect(line(result.stdout, 'folders')).toBe(`OK    folders   Folders file tools may touch: ${shared}`);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('Nothing stops Pincer from starting.');
  });

  it('a port another program holds and no model server: FAIL with the advice, WARN for the model, exit 1', async () => {
    const home = dir();
    const other = createServer((_req, res) => res.end('not pincer'));
    servers.push(other);
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const port = (other.address() as AddressInfo).port;
    const down = `http://127.0.0.1:${await freePort()}`;

    const result = await runPincer(['doctor', '--data-dir', home, '--port', String(port)], { PINCER_LLM_BASE_URL: down });
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'port')).toBe(`FAIL  port      127.0.0.1:${port} is taken by another program`);
    expect(result.stdout).toContain(`→ start on another port: "pincer serve --port ${port + 1}" (or "npm start -- --port ${port + 1}"), or set "port" in config.json`);
    expect(line(result.stdout, 'model')).toMatch(new RegExp(`^WARN  model     the model server at ${down} \\(ollama API\\) does not answer: .*Tools work without it; chat does not\\.$`));
    expect(result.stdout).toContain('→ start Ollama ("ollama serve"), or set llm.base_url in config.json');
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('1 problem above stops Pincer from starting as set up.');
  });

  it('a config.json the gateway would refuse: FAIL naming line, column and the closest key, the sandbox still checked, exit 1', async () => {
    const home = dir();
    writeFileSync(join(home, 'config.json'), '{\n  "port": 7800,\n  "tool_timout_ms": 5000\n}\n');
    const result = await runPincer(['doctor', '--data-dir', home]);
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'config')).toMatch(/^FAIL  config    .*unknown key "tool_timout_ms".*line 3, column 3.*did you mean "tool_timeout_ms"/);
    expect(result.stdout).toContain('→ correct the setting named above, then run "pincer doctor" again for the other checks');
    expect(line(result.stdout, 'sandbox')).toMatch(/^(OK|WARN)\s+sandbox/);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('1 problem above stops Pincer from starting as set up.');

    const json = await runPincer(['doctor', '--data-dir', home, '--json']);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as { ok: boolean; data_dir: unknown; checks: { topic: string; level: string }[] };
    expect(report).toMatchObject({ ok: false, data_dir: null });
    expect(report.checks.map((c) => `${c.topic}:${c.level}`)).toContain('config:fail');
  });

  it('with a display but no Electron binary, a fetch that failed before is named with how to try again', async () => {
    const home = dir();
    const mirror = `http://127.0.0.1:${await freePort()}/`;
    const version = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'node_modules/electron/package.json'), 'utf8')) as { version: string }).version;
    const marker = { version, mirror, reason: `no connection to ${mirror} could be made`, at: '2026-12-01T10:00:00.000Z' };
    writeFileSync(join(home, 'electron-fetch-failed.json'), JSON.stringify(marker));
    const env = { DISPLAY: ':99', ELECTRON_MIRROR: mirror, ELECTRON_OVERRIDE_DIST_PATH: dir(), PINCER_LLM_BASE_URL: `http://127.0.0.1:${await freePort()}` };
    const result = await runPincer(['doctor', '--data-dir', home], env);
    expect(line(result.stdout, 'electron')).toMatch(
      new RegExp(`^WARN  electron  "npm start" runs the gateway headless instead: .*; fetching the binary failed on ${marker.at} \\(no connection to .* could be made\\)$`),
    );
    expect(result.stdout).toContain(`→ run "npx install-electron" to try again (ELECTRON_MIRROR names a mirror), or delete ${join(home, 'electron-fetch-failed.json')} so "npm start" tries once more`);
    // A warning: the headless gateway still starts.
    expect(result.code).toBe(0);
  });

  it('the port held by a gateway of another data folder is named as such; no shared folder says how to share one', async () => {
    const port = await freePort();
    served = keep(await serve(dir(), port));
    const result = await runPincer(['doctor', '--data-dir', dir(), '--port', String(port), '--json'], { PINCER_LLM_BASE_URL: `http://127.0.0.1:${await freePort()}` });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as { ok: boolean; checks: { topic: string; level: string; text: string; fix?: string }[] };
    expect(report.ok).toBe(false);
    expect(report.checks.find((c) => c.topic === 'port')).toMatchObject({ level: 'fail', text: `127.0.0.1:${port} is taken by a Pincer gateway of another data folder` });
    expect(report.checks.map((c) => c.topic)).toEqual(['sandbox', 'electron', 'model', 'port', 'folders']);
    // Run in Pincer's own checkout, which is never shared by default.
    expect(report.checks.find((c) => c.topic === 'folders')).toMatchObject({ level: 'warn', fix: expect.stringContaining('"pincer roots add ') });
  });
});

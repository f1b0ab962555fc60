import { chmodSync, copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PackageVersions, runPackage } from '../../../../server/mcp/client/package-version.js';
import { McpPins } from '../../../../server/mcp/client/pins.js';
import { openStore } from '../../../../server/store/index.js';
import { runPincer } from '../../../helpers/cli.js';
import { readJson, startGateway, tempDir, type TestGateway } from '../../../helpers/gateway.js';
import { until } from '../../../helpers/wait.js';

/**
 * A server started with `npx -y pkg` (no version) runs whatever npx installs at each start: the version that ran is
 * read from npx's cache and shown; when it changes, the server's tools are held until the owner accepts them. A
 * program that is not on the PATH leaves the server failed, saying so and naming the PATH searched.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const work = tempDir('pincer-npx-');
const bin = join(work, 'bin');
const cache = join(work, 'npm-cache');
const versionFile = join(work, 'version.txt');
const PATH = `${bin}:${dirname(process.execPath)}`;
const env = { PATH, npm_config_cache: cache, FAKE_NPX_VERSION_FILE: versionFile, FAKE_NPX_SERVER: resolve(import.meta.dirname, '../fixtures/held-server.mjs') };
const floating = { command: 'npx', args: ['-y', '@example/held-pkg'], env };
let tg: TestGateway;

const view = async (name: string): Promise<Json> => readJson(await tg.api(`/mcp-servers/${name}`));
const toolOf = (server: Json, name: string): Json => server.tools.find((t: Json) => t.name === name);
/** What the acceptance store keeps of a server's package: its own row (tool ''), with the owner's acceptances. */
const packageAccepted = (name: string): unknown => tg.gateway.store.acceptances.get('mcp', name, '')?.accepted;
async function running(name: string, restarts = 0): Promise<Json> {
  return until(async () => {
    const server = await view(name);
    return server.status === 'running' && server.restarts >= restarts && server.tools.length > 0 && server;
  }, `${name} running`, 30_000);
}

beforeAll(async () => {
  mkdirSync(bin, { recursive: true });
  copyFileSync(resolve(import.meta.dirname, '../fixtures/fake-npx.mjs'), join(bin, 'npx'));
  chmodSync(join(bin, 'npx'), 0o755);
  writeFileSync(versionFile, '1.0.0');
  tg = await startGateway(
    {
      mcpServers: {
        floating,
        pinned: { command: 'npx', args: ['-y', '@example/held-pkg@1.0.0'], env },
        fetch: { command: 'uvx', args: ['mcp-server-fetch'], env: { PATH: bin } },
      },
    },
    { mcpBackoffMs: [50, 100] },
  );
}, 60_000);
afterAll(async () => {
  await tg?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('a server run by npx without a version', { timeout: 60_000 }, () => {
  it('shows the version that ran, found as npx installed it, found on the PATH the server was given', async () => {
    const server = await running('floating');
    expect(server.package).toEqual({ runner: 'npx', name: '@example/held-pkg', spec: '@example/held-pkg', pinned: null, version: '1.0.0' });
    expect(server.server_info).toEqual({ name: 'held', version: '1.0.0' });
    expect(toolOf(server, 'plain')).toMatchObject({ status: 'active', change: null });
    expect(packageAccepted('floating')).toEqual({ version: '1.0.0' });
    expect(existsSync(join(tg.dataDir, 'mcp-packages.json'))).toBe(false);
  });

  it('holds every tool when another version runs, through the HTTP routes and /mcp, until the owner accepts', async () => {
    await tg.asOwner('/mcp-servers/floating/accept', { json: { tools: ['plain', 'restart'], risk: 'safe' } });
    expect(await readJson(await tg.api('/tools/floating__plain/execute', { method: 'POST', json: { n: 1 } }))).toMatchObject({ success: true, result: '2' });

    writeFileSync(versionFile, '1.1.0');
    const before = (await view('floating')).restarts;
    await tg.api('/tools/floating__restart/execute', { method: 'POST', json: {} });
    const server = await running('floating', before + 1);
    expect(server.package).toMatchObject({ version: '1.1.0', pinned: null });
    for (const name of ['plain', 'restart', 'changing']) {
      expect(toolOf(server, name)).toMatchObject({ status: 'changed', accepted: false, change: [{ field: 'version', before: '1.0.0', after: '1.1.0' }] });
    }
    const held = await tg.api('/tools/floating__plain/execute', { method: 'POST', json: { n: 1 } });
    expect(held.status).toBe(409);
    const error = (await readJson(held)).error;
    expect(error).toMatchObject({ name: 'TOOL_HELD' });
    expect(error.message).toContain('the package it runs, @example/held-pkg, is now version 1.1.0, not 1.0.0 as when the owner accepted it');
    expect(error.message).toContain('pincer mcp-servers accept floating --tool plain');

    const client = new Client({ name: 'npx-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${tg.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tg.token}` } } }));
    try {
      const result = (await client.callTool({ name: 'floating__plain', arguments: { n: 1 } })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect((result.content[0] as { text: string }).text).toMatch(/^TOOL_HELD: .*version 1\.1\.0/s);
    } finally {
      await client.close();
    }

    const listed = await runPincer(['mcp-servers', '--data-dir', tg.dataDir], { PINCER_TOKEN: '' });
    expect(listed.stdout).toContain('package: @example/held-pkg (npx, no version pinned: it runs the newest at each start; version 1.1.0 ran last)');
    expect(listed.stdout).toContain('~ plain: changed version since accepted');

    const accepted = await runPincer(['mcp-servers', 'accept', 'floating', '--data-dir', tg.dataDir], { PINCER_TOKEN: '' });
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toMatch(/plain\s+active\s+safe/);
    expect(await readJson(await tg.api('/tools/floating__plain/execute', { method: 'POST', json: { n: 2 } }))).toMatchObject({ success: true, result: '3' });
    expect(packageAccepted('floating')).toEqual({ version: '1.1.0' });
  });

  it('accepting one tool by name releases that tool at the new version only; the others stay held', async () => {
    writeFileSync(versionFile, '1.2.0');
    const before = (await view('floating')).restarts;
    await tg.api('/tools/floating__restart/execute', { method: 'POST', json: {} });
    await running('floating', before + 1);
    await tg.asOwner('/mcp-servers/floating/accept', { json: { tools: ['plain'] } });
    const server = await view('floating');
    expect(toolOf(server, 'plain')).toMatchObject({ status: 'active', accepted: true, risk: 'safe' });
    expect(toolOf(server, 'restart')).toMatchObject({ status: 'changed', change: [{ field: 'version', before: '1.1.0', after: '1.2.0' }] });
    expect((await tg.api('/tools/floating__restart/execute', { method: 'POST', json: {} })).status).toBe(409);
    expect(packageAccepted('floating')).toEqual({ version: '1.1.0', tools: { plain: '1.2.0' } });
  });

  it('a version written on the command line is shown as pinned and never holds anything', async () => {
    const server = await running('pinned');
    expect(server.package).toEqual({ runner: 'npx', name: '@example/held-pkg', spec: '@example/held-pkg@1.0.0', pinned: '1.0.0', version: '1.0.0' });
    expect(toolOf(server, 'plain')).toMatchObject({ status: 'active' });
    expect(packageAccepted('pinned')).toBeUndefined();
  });

  it('a program that is not on the PATH fails the server, naming the PATH searched, and is not restarted', async () => {
    const server = await until(async () => {
      const v = await view('fetch');
      return v.status === 'failed' && v;
    }, 'fetch failed');
    expect(server.last_error).toBe(`could not start: the command "uvx" was not found on the PATH (searched: ${bin}); install it, or give its full path as "command"`);
    expect(server.restarts).toBe(0);
    expect(server.package).toEqual({ runner: 'uvx', name: 'mcp-server-fetch', spec: 'mcp-server-fetch', pinned: null, version: null });
  });

  it('removing the server forgets the version accepted with it: added again, the version that runs is the accepted one', async () => {
    expect((await tg.asOwner('/mcp-servers/floating', { method: 'DELETE' })).status).toBe(200);
    expect(tg.gateway.store.acceptances.list('mcp', 'floating')).toEqual([]);

    writeFileSync(versionFile, '1.3.0');
    expect((await tg.asOwner('/mcp-servers/floating', { method: 'PUT', json: floating })).status).toBe(200);
    const server = await running('floating');
    expect(server.package).toMatchObject({ version: '1.3.0' });
    expect(toolOf(server, 'restart')).toMatchObject({ status: 'active', change: null });
    expect(packageAccepted('floating')).toEqual({ version: '1.3.0' });
  });
});

describe('the package versions the owner accepted', () => {
  // No data folder: the store lives in memory, as a gateway's would without one.
  const store = openStore(':memory:');
  afterAll(() => store.close());

  it('takes the first version seen as accepted, for the whole server or for the tools named, with no data folder', () => {
    const versions = new PackageVersions(store.acceptances);
    expect(versions.accepted('s', 'a')).toBeUndefined();
    versions.seen('s', '1.0.0');
    versions.seen('s', '2.0.0');
    expect(versions.accepted('s', 'a')).toBe('1.0.0');
    versions.accept('s', '2.0.0', ['a']);
    expect([versions.accepted('s', 'a'), versions.accepted('s', 'b')]).toEqual(['2.0.0', '1.0.0']);
    versions.accept('s', '3.0.0');
    expect([versions.accepted('s', 'a'), versions.accepted('s', 'b')]).toEqual(['3.0.0', '3.0.0']);
    // Kept in the store, so another reader of the same database sees the same.
    expect(new PackageVersions(store.acceptances).accepted('s', 'a')).toBe('3.0.0');
  });

  it('cannot be overwritten through a tool named "" (the server\'s own row holds the version)', () => {
    const versions = new PackageVersions(store.acceptances);
    const pins = new McpPins(store.acceptances);
    versions.seen('t', '1.0.0');
    expect(() => pins.accept('t', '', { description: 'x', inputSchema: { type: 'object' } }, 'safe')).toThrow(/without a name/);
    expect(() => pins.disable('t', '', { description: 'x', inputSchema: { type: 'object' } })).toThrow(/without a name/);
    expect(pins.get('t', '')).toBeUndefined();
    expect(versions.accepted('t', 'any')).toBe('1.0.0');
  });
});

describe('what a command line runs', () => {
  it('reads npx and uvx command lines, pinned or not, and leaves alone what it does not understand', () => {
    expect(runPackage('npx', ['-y', '@modelcontextprotocol/server-memory@2026.8.31'])).toEqual({ runner: 'npx', name: '@modelcontextprotocol/server-memory', spec: '@modelcontextprotocol/server-memory@2026.8.31', pinned: '2026.8.31' });
    expect(runPackage('C:\\npm\\npx.cmd', ['--yes', 'pkg@latest', 'x'])).toMatchObject({ name: 'pkg', pinned: null });
    expect(runPackage('npx', ['-y', 'pkg@^1.2.0'])).toMatchObject({ name: 'pkg', pinned: null });
    expect(runPackage('npx', ['--package', 'a', 'b'])).toBeUndefined();
    expect(runPackage('npx', ['./local-folder'])).toBeUndefined();
    expect(runPackage('/usr/bin/node', ['server.js'])).toBeUndefined();
    expect(runPackage('uvx', ['--from', 'mcp-server-git==2025.11.25', 'mcp-server-git'])).toEqual({ runner: 'uvx', name: 'mcp-server-git', spec: 'mcp-server-git==2025.11.25', pinned: '2025.11.25' });
    expect(runPackage('uvx', ['mcp-server-fetch'])).toMatchObject({ name: 'mcp-server-fetch', pinned: null });
    expect(runPackage('uvx', ['--from', 'git+https://github.com/oraios/serena@v0.1.4', 'serena', 'start-mcp-server'])).toMatchObject({ pinned: 'v0.1.4' });
    expect(runPackage('uvx', ['--from', 'git+https://github.com/oraios/serena', 'serena'])).toMatchObject({ pinned: null });
  });
});

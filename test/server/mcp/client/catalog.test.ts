import { readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogServerEntry, mcpCatalog } from '../../../../server/mcp/client/catalog.js';
import { runPackage } from '../../../../server/mcp/client/package-version.js';
import { runPincer } from '../../../helpers/cli.js';
import { readJson, startGateway, tempDir, type TestGateway } from '../../../helpers/gateway.js';
import { until } from '../../../helpers/wait.js';

/**
 * The catalogue of well-known MCP servers: pinned versions (the npm ones are the very packages installed here), served
 * to the owner only with the filesystem server pointed at the shared folders, added by `pincer mcp-servers add
 * --from-catalog`, run as written (npx offline from the local tree), its tools unaccepted and asking; the uvx ones
 * written as documented and failing with a clear "not found" where uv is not installed.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const PACKAGE_ROOT = resolve(import.meta.dirname, '../../../..');
const NAMES = ['filesystem', 'memory', 'everything', 'sequential-thinking', 'fetch', 'git', 'serena'];
const work = tempDir('pincer-catalog-');
let tg: TestGateway;

const installedVersion = (pkg: string) => (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;

beforeAll(async () => {
  tg = await startGateway({}, { mcpBackoffMs: [50, 100] });
}, 60_000);
afterAll(async () => {
  await tg?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('the catalogue', () => {
  it('pins every entry to an exact version, the npm ones to the packages installed here', () => {
    const catalog = mcpCatalog(['/srv/a', '/srv/b']);
    expect(catalog.map((c) => c.name)).toEqual(NAMES);
    for (const entry of catalog) {
      // What the command line runs, read back the way the server view reads it: pinned, at the entry's version.
      expect(runPackage(entry.command, entry.args), entry.name).toMatchObject({ runner: entry.runner, name: entry.package, pinned: entry.version });
      if (entry.runner === 'npx') {
        expect(entry.args.slice(0, 2)).toEqual(['-y', `${entry.package}@2026.8.31`]);
        if (entry.name !== 'sequential-thinking') expect(installedVersion(entry.package)).toBe(entry.version);
      } else {
        expect(entry.args[0]).toBe('--from');
        expect(entry.note).toMatch(/Needs uv/);
      }
    }
    expect(catalog.find((c) => c.name === 'filesystem')!.args.slice(2)).toEqual(['/srv/a', '/srv/b']);
    expect(catalog.find((c) => c.name === 'everything')!.args.slice(2)).toEqual(['stdio']);
    expect(catalog.find((c) => c.name === 'serena')!.args).toEqual(['--from', 'serena-agent==2.1.0', 'serena', 'start-mcp-server']);
  });

  it('refuses the filesystem server while no folder is shared, and an unknown name listing the known ones', () => {
    expect(catalogServerEntry('filesystem', [])).toEqual({ problem: expect.stringMatching(/none is shared yet: share one first/) });
    expect(mcpCatalog([]).find((c) => c.name === 'filesystem')!.problem).toMatch(/none is shared yet/);
    expect(catalogServerEntry('memory', [])).toEqual({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory@2026.8.31'] });
    expect(catalogServerEntry('nosuch', [])).toEqual({ problem: `the catalogue has no server named "nosuch" (it has ${NAMES.join(', ')})` });
  });
});

describe('GET /mcp-servers/catalog', () => {
  it('is the owner\'s only, with the filesystem server pointed at the shared folders', async () => {
    expect((await tg.api('/mcp-servers/catalog')).status).toBe(403);
    const answer = await readJson(await tg.asOwner('/mcp-servers/catalog'));
    expect(answer.catalog.map((c: Json) => c.name)).toEqual(NAMES);
    expect(answer.catalog.find((c: Json) => c.name === 'filesystem')).toMatchObject({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem@2026.8.31', tg.workspace], problem: null });
  });

  it('is not a server: no server may be named "catalog"', async () => {
    const refused = await tg.asOwner('/mcp-servers/catalog', { method: 'PUT', json: { command: 'node' } });
    expect(refused.status).toBe(400);
    expect((await readJson(refused)).error.message).toMatch(/"catalog" is taken by the catalogue/);
  });
});

describe('a server added from the catalogue', { timeout: 90_000 }, () => {
  it('runs as written (npx, offline, from the local tree): its tools are imported unaccepted, rated sensitive, and a call asks the owner', async () => {
    const entry = catalogServerEntry('everything', [tg.workspace]);
    if ('problem' in entry) throw new Error(entry.problem);
    // Offline, from this package's folder: npx finds the pinned version installed there and fetches nothing.
    const put = await tg.asOwner('/mcp-servers/everything', { method: 'PUT', json: { ...entry, cwd: PACKAGE_ROOT, env: { npm_config_offline: 'true', npm_config_update_notifier: 'false' } } });
    expect(put.status).toBe(200);
    const server = await until(async () => {
      const view = await readJson(await tg.api('/mcp-servers/everything'));
      return view.status === 'running' && view.tools.length > 0 && view;
    }, 'everything running', 60_000);
    expect(server.package).toEqual({ runner: 'npx', name: '@modelcontextprotocol/server-everything', spec: '@modelcontextprotocol/server-everything@2026.8.31', pinned: '2026.8.31', version: '2026.8.31' });
    // Nothing is accepted for the owner; what imports is rated sensitive. (A tool whose schema this gateway cannot
    // compile is invalid, never active.)
    for (const tool of server.tools) {
      expect(tool.accepted, tool.name).toBe(false);
      expect(['active', 'invalid'], tool.name).toContain(tool.status);
      if (tool.status === 'active') expect(tool.risk).not.toBe('safe');
    }
    if (server.tools.find((t: Json) => t.name === 'echo').status === 'active') {
      const call = await readJson(await tg.api('/tools/everything__echo/execute', { method: 'POST', json: { message: 'hi' }, headers: { prefer: 'respond-async' } }));
      expect(call).toMatchObject({ success: false, pending: true });
      await tg.asOwner(`/approvals/${call.approval_id}`, { json: { decision: 'deny' } });
    }
    await tg.asOwner('/mcp-servers/everything', { method: 'DELETE' });
  });

  it('pincer mcp-servers add --from-catalog writes the pinned command line; a uvx one fails, saying uvx is not found and where it looked', async () => {
    const cli = (...args: string[]) => runPincer(['mcp-servers', ...args, '--data-dir', tg.dataDir], { PINCER_TOKEN: '' });
    const added = await cli('add', '--from-catalog', 'fetch');
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('Added the MCP server fetch from the catalogue: uvx --from mcp-server-fetch==2026.10.24 mcp-server-fetch');
    expect(added.stdout).toMatch(/Needs uv/);
    const named = await cli('add', 'repo', '--from-catalog', 'git');
    expect(named.code, named.stderr).toBe(0);
    const saved = JSON.parse(readFileSync(join(tg.dataDir, 'config.json'), 'utf8')).mcp_servers;
    expect(saved.fetch).toEqual({ command: 'uvx', args: ['--from', 'mcp-server-fetch==2026.10.24', 'mcp-server-fetch'] });
    expect(saved.repo).toEqual({ command: 'uvx', args: ['--from', 'mcp-server-git==2026.10.19', 'mcp-server-git'] });

    const failed = await until(async () => {
      const view = await readJson(await tg.api('/mcp-servers/fetch'));
      return view.status === 'failed' && view;
    }, 'fetch failed', 30_000);
    expect(failed.last_error).toMatch(/^could not start: the command "uvx" was not found on the PATH \(searched: .+\); install it, or give its full path as "command"$/);
    expect(failed.package).toMatchObject({ runner: 'uvx', name: 'mcp-server-fetch', pinned: '2026.10.24' });
    const nothing = await cli('accept', 'fetch');
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toMatch(/nothing to accept: .*it has no tools \(it is failed: could not start: the command "uvx" was not found/);

    const unknown = await cli('add', '--from-catalog', 'nosuch');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`pincer: the catalogue has no server named "nosuch" (it has ${NAMES.join(', ')})`);
    const listed = await cli('catalog');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/serena\s+uvx serena-agent\s+2\.1\.0/);
  });

  it('with no folder shared, the filesystem server is refused by the CLI, saying what to do', async () => {
    const dataDir = tempDir();
    try {
      // No gateway runs on this folder: the command's own one answers, started where nothing is shared.
      const refused = await runPincer(['mcp-servers', 'add', '--from-catalog', 'filesystem', '--data-dir', dataDir], { PINCER_TOKEN: '', PINCER_ROOTS: '' });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/none is shared yet: share one first/);
      const memory = await runPincer(['mcp-servers', 'add', '--from-catalog', 'memory', '--data-dir', dataDir], { PINCER_TOKEN: '', PINCER_ROOTS: '' });
      expect(memory.code, memory.stderr).toBe(0);
      expect(JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8')).mcp_servers).toEqual({ memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory@2026.8.31'] } });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

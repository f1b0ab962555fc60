import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../server/cli.js';
import type { SourceList, SourceView } from '../../../server/contract/sources.js';
import { readJson, startGateway, tempDir, type TestGateway } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';
import { declared, entry, writePlugin } from '../plugins/helpers.js';

/**
 * GET /sources lists every tool source of both kinds in one vocabulary, while each kind's own routes keep their own
 * words (a new plugin still reads `new` on /plugins); only the owner acts on a source through /sources.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const STUB = resolve(import.meta.dirname, '../mcp/fixtures/stub-server.mjs');
let tg: TestGateway;

const sources = async (): Promise<SourceView[]> => ((await readJson(await tg.api('/sources'))) as SourceList).sources;
const source = async (kind: string, name: string) => (await sources()).find((s) => s.kind === kind && s.name === name);

beforeAll(async () => {
  const work = tempDir('pincer-sources-');
  writeFileSync(join(work, 'description.txt'), 'Echoes the text it is given.');
  writeFileSync(join(work, 'pids.txt'), '');
  const env = { STUB_DESCRIPTION_FILE: join(work, 'description.txt'), STUB_PIDS_FILE: join(work, 'pids.txt') };
  tg = await startGateway({ mcpServers: { stub: { command: process.execPath, args: [STUB], env } } }, { loadPlugins: true, pluginDebounceMs: 60_000, mcpBackoffMs: [50] });
  const tools: Record<string, { body: string; risk?: string }> = { hello: { body: 'return "hi";' } };
  writePlugin(join(tg.dataDir, 'plugins'), 'hello', { 'index.js': entry(tools) }, { tools: declared(tools) });
  await tg.gateway.plugins.rescan();
  await until(async () => (await source('mcp', 'stub'))?.status === 'running' && (await source('plugin', 'hello'))?.status === 'held', 'both sources', 30_000);
}, 60_000);
afterAll(async () => {
  await tg?.close();
});

describe('GET /sources', () => {
  it('lists both kinds in one vocabulary, each with where its own view is', async () => {
    expect(await source('plugin', 'hello')).toMatchObject({ status: 'held', held_because: 'new', detail: '/plugins/hello', tools: [{ name: 'hello', tool: 'hello', status: 'held', held_because: 'new' }] });
    const stub = (await source('mcp', 'stub'))!;
    expect(stub).toMatchObject({ status: 'running', held_because: null, detail: '/mcp-servers/stub' });
    expect(stub.tools.find((t) => t.name === 'add_numbers')).toMatchObject({ tool: 'stub__add_numbers', status: 'held', held_because: 'flagged' });
    expect(stub.tools.find((t) => t.name === 'echo')).toMatchObject({ status: 'active', risk: 'sensitive', accepted: false });
  });

  it('leaves the kinds\' own routes their own words', async () => {
    expect(((await readJson(await tg.api('/plugins/hello'))) as Json).status).toBe('new');
    const stub = (await readJson(await tg.api('/mcp-servers/stub'))) as Json;
    expect(stub.tools.find((t: Json) => t.name === 'add_numbers').status).toBe('flagged');
  });
});

describe('POST /sources/{kind}/{name}/…', () => {
  it('is the owner\'s alone', async () => {
    const answer = await tg.api('/sources/plugin/hello/accept', { method: 'POST', json: {} });
    expect(answer.status).toBe(403);
    expect((await source('plugin', 'hello'))?.status).toBe('held');
  });

  it('refuses what a kind does not take, an unknown kind and an unknown field', async () => {
    const partial = await tg.asOwner('/sources/plugin/hello/accept', { json: { tools: ['hello'] } });
    expect(partial.status).toBe(400);
    expect(((await readJson(partial)) as Json).error.message).toMatch(/as a whole/);
    expect((await tg.asOwner('/sources/nosuch/hello/accept', { json: {} })).status).toBe(404);
    expect((await tg.asOwner('/sources/mcp/stub/accept', { json: { risk: 'harmless' } })).status).toBe(400);
    expect((await tg.asOwner('/sources/mcp/stub/accept', { json: { tool: ['echo'] } })).status).toBe(400);
    expect((await tg.asOwner('/sources/mcp/nosuch/accept', { json: {} })).status).toBe(404);
  });

  it('accepts a plugin as a whole and an MCP tool by name, rated by the owner', async () => {
    const plugin = (await readJson(await tg.asOwner('/sources/plugin/hello/accept', { json: {} }))) as SourceView;
    expect(plugin.kind).toBe('plugin');
    await until(async () => (await source('plugin', 'hello'))?.status === 'running', 'the plugin to run', 30_000);
    const mcp = (await readJson(await tg.asOwner('/sources/mcp/stub/accept', { json: { tools: ['add_numbers'], risk: 'safe' } }))) as SourceView;
    expect(mcp.tools.find((t) => t.name === 'add_numbers')).toMatchObject({ status: 'active', risk: 'safe', accepted: true });
    expect(tg.gateway.registry.get('stub__add_numbers')?.definition.risk).toBe('safe');
  });

  it('disables one MCP tool and enables a whole source again', async () => {
    const off = (await readJson(await tg.asOwner('/sources/mcp/stub/disable', { json: { tools: ['echo'] } }))) as SourceView;
    expect(off.tools.find((t) => t.name === 'echo')?.status).toBe('disabled');
    const plugin = (await readJson(await tg.asOwner('/sources/plugin/hello/disable', { json: {} }))) as SourceView;
    expect(plugin.status).toBe('disabled');
    expect((await tg.asOwner('/sources/plugin/hello/enable', { json: { tools: [] } })).status).toBe(400);
    await tg.asOwner('/sources/plugin/hello/enable', { json: {} });
    await until(async () => (await source('plugin', 'hello'))?.status === 'running', 'the plugin to run again', 30_000);
  });
});

describe('pincer sources', () => {
  const cli = async (...args: string[]) => {
    const lines: string[] = [];
    const errors: string[] = [];
    const code = await main(['sources', ...args, '--data-dir', tg.dataDir, '--port', String(tg.port)], { log: (l) => lines.push(l), error: (l) => errors.push(l) });
    return { code, stdout: lines.join('\n'), stderr: errors.join('\n') };
  };

  it('lists every source with its kind, status and the tools waiting for the owner', async () => {
    const listed = await cli();
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^KIND\s+SOURCE\s+STATUS\s+ACTIVE\s+WAITING/);
    expect(listed.stdout).toMatch(/plugin\s+hello\s+running/);
    expect(listed.stdout).toMatch(/mcp\s+stub\s+running/);
    const json = JSON.parse((await cli('--json')).stdout) as SourceList;
    expect(json.sources.map((s) => `${s.kind}:${s.name}`).sort()).toEqual(['mcp:stub', 'plugin:hello']);
  });

  it('refuses what it does not know', async () => {
    const refused = await cli('accept', 'hello');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/usage:\s+pincer sources/);
  });
});

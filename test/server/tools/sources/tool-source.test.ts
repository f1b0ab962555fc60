import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpSource } from '../../../../server/mcp/client/source.js';
import { PluginSource } from '../../../../server/plugins/source.js';
import type { ToolSource } from '../../../../server/tools/sources/source.js';
import { SourceRegistry } from '../../../../server/tools/sources/registry.js';
import { readJson, startGateway, tempDir, type TestGateway } from '../../../helpers/gateway.js';
import { until } from '../../../helpers/wait.js';
import { declared, entry, writePlugin } from '../../plugins/helpers.js';

/**
 * The ToolSource contract, run with the same steps against every adapter, each on a real gateway with a real source:
 * a plugin's own process, and an MCP server as a child process over stdio. What differs between kinds is only how a
 * source comes to hold a tool back (a new plugin; a poisoned-looking MCP tool) and which names they use.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface Kind {
  kind: 'plugin' | 'mcp';
  /** A gateway with one source named `name` holding back the tool `tool` (registered as `registered`). */
  start(): Promise<TestGateway>;
  adapter(tg: TestGateway): ToolSource;
  name: string;
  tool: string;
  registered: string;
  /** What the owner sends to accept the held tool. */
  accept: { tools?: string[] };
  /** The source's status while the tool is held. */
  heldStatus: string;
  heldBecause: string;
}

const STUB = resolve(import.meta.dirname, '../../mcp/fixtures/stub-server.mjs');

const KINDS: Kind[] = [
  {
    kind: 'plugin',
    async start() {
      const tg = await startGateway({}, { loadPlugins: true, pluginDebounceMs: 60_000 });
      const tools: Record<string, { body: string; risk?: string }> = { greet: { body: 'return `hello ${args.text}`;' } };
      writePlugin(join(tg.dataDir, 'plugins'), 'greeter', { 'index.js': entry(tools) }, { tools: declared(tools) });
      await tg.gateway.plugins.rescan();
      return tg;
    },
    adapter: (tg) => new PluginSource(tg.gateway.plugins),
    name: 'greeter',
    tool: 'greet',
    registered: 'greet',
    accept: {},
    heldStatus: 'held',
    heldBecause: 'new',
  },
  {
    kind: 'mcp',
    async start() {
      const work = tempDir('pincer-source-mcp-');
      writeFileSync(join(work, 'description.txt'), 'Echoes the text it is given.');
      writeFileSync(join(work, 'pids.txt'), '');
      const env = { STUB_DESCRIPTION_FILE: join(work, 'description.txt'), STUB_PIDS_FILE: join(work, 'pids.txt') };
      return startGateway({ mcpServers: { stub: { command: process.execPath, args: [STUB], env } } }, { loadPlugins: true, mcpBackoffMs: [50, 100] });
    },
    adapter: (tg) => new McpSource(tg.gateway.mcpServers),
    name: 'stub',
    tool: 'add_numbers',
    registered: 'stub__add_numbers',
    accept: { tools: ['add_numbers'] },
    heldStatus: 'running',
    heldBecause: 'flagged',
  },
];

describe.each(KINDS)('the $kind adapter of ToolSource', (k) => {
  let tg: TestGateway;
  let source: ToolSource;
  const view = () => source.status(k.name);
  const tool = () => source.tools(k.name)?.find((t) => t.name === k.tool);
  const execute = (name: string) => tg.api(`/tools/${name}/execute`, { method: 'POST', json: { a: 1, b: 2, text: 'x' }, headers: { prefer: 'respond-async' } });

  beforeAll(async () => {
    tg = await k.start();
    source = k.adapter(tg);
    await until(() => tool()?.status === 'held' && view()?.status === k.heldStatus, `${k.name} to hold ${k.tool} back`, 30_000);
  }, 60_000);
  afterAll(async () => {
    await tg?.close();
  });

  it('lists the source with its kind, and a held tool with why it waits', () => {
    expect(source.status().map((s) => [s.kind, s.name])).toContainEqual([k.kind, k.name]);
    expect(view()).toMatchObject({ kind: k.kind, name: k.name, status: k.heldStatus, detail: expect.stringContaining(k.name) });
    expect(tool()).toMatchObject({ tool: k.registered, status: 'held', held_because: k.heldBecause, accepted: false });
  });

  it('refuses a call to the held tool with TOOL_HELD (409), naming what releases it', async () => {
    const answer = await execute(k.registered);
    expect(answer.status).toBe(409);
    const body = (await readJson(answer)) as Json;
    expect(body.error).toMatchObject({ name: 'TOOL_HELD', details: { tool: k.registered } });
    expect(body.error.message).toMatch(/accept/);
  });

  it('accepting releases the tool: it is registered and active', async () => {
    const accepted = await source.accept(k.name, k.accept, 'owner');
    expect(accepted.kind).toBe(k.kind);
    await until(() => tool()?.status === 'active' && view()?.status === 'running', `${k.tool} to be active`, 30_000);
    expect(tool()).toMatchObject({ accepted: true, held_because: null });
    expect(tg.gateway.registry.get(k.registered)?.source).toBe(`${k.kind}:${k.name}`);
    expect(tg.gateway.store.acceptances.list(k.kind, k.name).length).toBeGreaterThan(0);
  });

  it('disabling turns the source off and takes its tools away; enabling brings them back', async () => {
    const disabled = await source.disable(k.name);
    await until(() => view()?.status === 'disabled', `${k.name} to be disabled`, 30_000);
    expect(disabled.kind).toBe(k.kind);
    // A plugin still lists what its manifest declares; a stopped MCP server lists nothing until it runs again.
    expect(source.tools(k.name)!.filter((t) => t.status !== 'disabled')).toEqual([]);
    expect(tg.gateway.registry.get(k.registered)).toBeUndefined();
    await source.enable(k.name);
    await until(() => view()?.status === 'running' && tool()?.status === 'active', `${k.name} to run again`, 30_000);
    expect(tg.gateway.registry.get(k.registered)).toBeDefined();
  });

  it('refuses an unknown source with NOT_FOUND', async () => {
    await expect(source.accept('nosuch', {}, 'owner')).rejects.toMatchObject({ errorName: 'NOT_FOUND' });
    await expect(source.disable('nosuch')).rejects.toMatchObject({ errorName: 'NOT_FOUND' });
    expect(source.status('nosuch')).toBeUndefined();
    expect(source.tools('nosuch')).toBeUndefined();
  });

  it('removing stops the source, takes its tools away and forgets what the owner accepted', async () => {
    await source.remove(k.name);
    await until(() => view() === undefined, `${k.name} to be gone`, 30_000);
    expect(tg.gateway.registry.get(k.registered)).toBeUndefined();
    expect(tg.gateway.store.acceptances.list(k.kind, k.name)).toEqual([]);
  });

  it('a registry of sources stops the kind as a whole: none of its tools remain', async () => {
    const registry = new SourceRegistry([source]);
    expect(registry.get(k.kind)).toBe(source);
    expect(() => registry.get('nosuch')).toThrow(/nosuch/);
    await registry.stop();
    expect(tg.gateway.registry.list().filter((t) => t.source.startsWith(`${k.kind}:`))).toEqual([]);
    expect(registry.list()).toEqual([]);
  });
});

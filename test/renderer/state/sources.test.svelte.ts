import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayFeed } from '../../../renderer/src/state/feed.svelte';
import { SourceBoard, type Source } from '../../../renderer/src/state/sources.svelte';
import { mount, openDashboard, until, type Dashboard } from './dashboard.svelte';

// Real sources on a real gateway: a plugin folder in the owner's plugins folder (run in its own process once
// accepted), and the published memory MCP server started as a child process over stdio.

let page: Dashboard;
const MEMORY_SERVER = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');

/** A plugin with one safe tool, `shout`, as a plugin author writes it. */
function writePlugin(name: string, reply = 'HELLO'): void {
  const dir = join(page.gateway.dataDir, 'plugins', name);
  mkdirSync(dir, { recursive: true });
  const tools = [{ name: 'shout', risk: 'safe' }];
  writeFileSync(join(dir, 'plugin.json'), JSON.stringify({ name, version: '1.0.0', description: `Test plugin ${name}.`, entry: 'index.js', tools }));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  writeFileSync(
    join(dir, 'index.js'),
    `import { definePlugin, defineTool } from 'pincer/plugin';
export default definePlugin({ tools: [defineTool({ name: 'shout', description: 'Says hello loudly.', risk: 'safe',
  parameters: { type: 'object', properties: {} }, handler: async () => ({ said: ${JSON.stringify(reply)} }) })] });
`,
  );
}

/** The Sources view: the board following the stream. */
function shownBoard() {
  const feed = new GatewayFeed();
  const shown = mount(
    () => {
      const board = new SourceBoard();
      board.listen(feed);
      return board;
    },
    (board) => void [feed.status, board.sources],
  );
  return { ...shown, feed };
}

const find = (board: SourceBoard, kind: Source['kind'], name: string) => board.sources.find((s) => s.kind === kind && s.name === name);

beforeAll(async () => {
  page = await openDashboard();
});
afterAll(async () => {
  await page?.close();
});

describe('SourceBoard', () => {
  it('lists nothing on a fresh gateway, with the plugins folder it reads', async () => {
    const { state: board, unmount } = mount(() => new SourceBoard());
    await board.load();
    expect(board.loaded).toBe(true);
    expect(board.error).toBeNull();
    expect(board.sources).toEqual([]);
    expect(board.folder).toBe(join(page.gateway.dataDir, 'plugins'));
    unmount();
  });

  it('finds a new plugin on rescan, held until the owner accepts it; accepted, its tool runs', async () => {
    writePlugin('greeter');
    const { state: board, unmount } = shownBoard();
    await board.load();
    await board.rescan();
    const held = await until(() => {
      const s = find(board, 'plugin', 'greeter');
      return s?.view.status === 'held' && s;
    }, 'the held plugin');
    expect(held.view.held_because).toBe('new');
    expect(held.view.tools.map((t) => [t.name, t.status])).toEqual([['shout', 'held']]);
    expect((await page.execute('shout', {})).status).not.toBe(200);

    const accepting = board.act(held, { kind: 'accept' });
    expect(board.busy(held)).toEqual({ kind: 'accept' });
    expect(await board.act(held, { kind: 'disable' })).toBe(false);
    expect(await accepting).toBe(true);
    expect(board.busy(held)).toBeUndefined();
    expect(board.announcement).toBe('Accepted the plugin greeter.');
    await until(() => find(board, 'plugin', 'greeter')?.view.status === 'running', 'the plugin to run', 30_000);
    const ran = await page.execute('shout', {});
    expect(ran.status).toBe(200);
    unmount();
  });

  it('holds a plugin again when its files change, until the owner accepts what it is now', async () => {
    const { state: board, unmount } = shownBoard();
    await board.load();
    writePlugin('greeter', 'HI THERE');
    await board.rescan();
    const changed = await until(() => {
      const s = find(board, 'plugin', 'greeter');
      return s?.view.status === 'held' && s;
    }, 'the changed plugin');
    expect(changed.view.held_because).toBe('changed');
    expect(changed.kind === 'plugin' && changed.plugin.changes?.files?.changed).toContain('index.js');
    expect(await board.act(changed, { kind: 'accept' })).toBe(true);
    await until(() => find(board, 'plugin', 'greeter')?.view.status === 'running', 'the plugin to run again', 30_000);
    const ran = await page.execute('shout', {});
    expect(JSON.stringify(await ran.json())).toContain('HI THERE');
    unmount();
  });

  it('disables and enables a source, and removes it', async () => {
    const { state: board, unmount } = shownBoard();
    await board.load();
    const greeter = find(board, 'plugin', 'greeter')!;
    expect(await board.act(greeter, { kind: 'disable' })).toBe(true);
    expect(board.announcement).toBe('Disabled the plugin greeter.');
    await until(() => find(board, 'plugin', 'greeter')?.view.status === 'disabled', 'disabled');
    expect(await board.act(find(board, 'plugin', 'greeter')!, { kind: 'enable' })).toBe(true);
    await until(() => find(board, 'plugin', 'greeter')?.view.status === 'running', 'running again', 30_000);
    expect(await board.act(find(board, 'plugin', 'greeter')!, { kind: 'remove' })).toBe(true);
    expect(board.announcement).toBe('Removed the plugin greeter.');
    expect(find(board, 'plugin', 'greeter')).toBeUndefined();
    unmount();
  });

  it('adds an MCP server (its tools run at once: the owner added it), rates a tool and turns one off', async () => {
    const { state: board, unmount } = shownBoard();
    await board.load();
    expect(await board.add('bad name!', { command: process.execPath })).toMatch(/name/i);
    expect(
      await board.add('memory', { command: process.execPath, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: join(page.gateway.dataDir, 'memory-graph.jsonl') } }),
    ).toBeNull();
    expect(board.announcement).toBe('Added the MCP server memory.');
    const server = await until(() => {
      const s = find(board, 'mcp', 'memory');
      return s && s.view.status === 'running' && s.view.tools.length > 0 && s;
    }, 'the server and its tools', 30_000);
    expect(server.kind === 'mcp' && server.server.name).toBe('memory');
    expect(server.view.tools.every((t) => t.status === 'active')).toBe(true);
    expect(server.view.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['read_graph', 'delete_entities']));

    expect(await board.act(server, { kind: 'accept', tools: ['read_graph'], risk: 'safe' })).toBe(true);
    expect(board.announcement).toBe('Accepted the tool read_graph of memory as safe.');
    await until(() => find(board, 'mcp', 'memory')?.view.tools.find((t) => t.name === 'read_graph')?.risk === 'safe', 'the new rating');
    expect((await page.execute('memory__read_graph', {})).status).toBe(200);

    expect(await board.act(find(board, 'mcp', 'memory')!, { kind: 'disable', tools: ['delete_entities'] })).toBe(true);
    expect(board.announcement).toBe('Disabled the tool delete_entities of memory.');
    await until(() => find(board, 'mcp', 'memory')?.view.tools.find((t) => t.name === 'delete_entities')?.status === 'disabled', 'the tool off');
    expect((await page.execute('memory__delete_entities', { entityNames: ['x'] })).status).not.toBe(200);
    unmount();
  });

  it('says why an action was refused, and keeps the source as it was', async () => {
    const { state: board, unmount } = shownBoard();
    await board.load();
    const server = find(board, 'mcp', 'memory');
    expect(server).toBeDefined();
    expect(await board.act(server!, { kind: 'accept', tools: ['no_such_tool'] })).toBe(false);
    expect(board.error).toMatch(/^Could not accept the tool no_such_tool of memory: /);
    expect(find(board, 'mcp', 'memory')!.view.tools.find((t) => t.name === 'read_graph')?.status).toBe('active');
    unmount();
  });

  it('follows a source changed elsewhere (the CLI, another window)', async () => {
    const { state: board, unmount, feed } = shownBoard();
    await board.load();
    await until(() => feed.status === 'live', 'the stream');
    const off = await page.gateway.asOwner('/sources/mcp/memory/disable', { method: 'POST' });
    expect(off.status).toBe(200);
    await until(() => find(board, 'mcp', 'memory')?.view.status === 'disabled', 'the disabled server');
    unmount();
  });

  it('says why the sources could not be read, and clears it once they can', async () => {
    const { state: board, unmount } = mount(() => new SourceBoard());
    await page.gateway.stop();
    try {
      await board.load();
    } finally {
      await page.gateway.start();
    }
    expect(board.error).toMatch(/The gateway is not answering/);
    await board.load();
    expect(board.error).toBeNull();
    unmount();
  });
});

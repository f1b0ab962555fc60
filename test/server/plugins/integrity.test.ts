import { appendFileSync, linkSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson, startGateway, tempDir, type TestGateway } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';
import { hashPluginFolder } from '../../../server/plugins/integrity.js';
import { entry, toolPlugin, writePlugin } from './helpers.js';

/**
 * Everything a plugin loads is inside its folder and hashed, and the hash is checked again before every start and
 * every restart after a crash. This gateway acts on folder changes only when told to (a rescan, a start, a
 * restart), so each test shows what those checks catch on their own, without the folder watcher's help.
 */

let tg: TestGateway;
let pluginsDir: string;
let parent: string;

beforeAll(async () => {
  parent = tempDir('pincer-integrity-');
  mkdirSync(join(parent, 'data'));
  tg = await quietGateway();
});
afterAll(async () => tg?.close());

function quietGateway(): Promise<TestGateway> {
  return startGateway({ dataDir: join(parent, 'data') }, { bundledPluginsDir: null, pluginDebounceMs: 3_600_000 }).then((started) => {
    pluginsDir = join(started.dataDir, 'plugins');
    return started;
  });
}

const view = (name: string) => tg.gateway.plugins.get(name);
async function settled(name: string, status: string) {
  return until(() => {
    const v = view(name);
    return v?.status === status && v;
  }, `plugin ${name} to be ${status}`, 30_000);
}
async function seen(name: string, status: string) {
  await tg.gateway.plugins.rescan();
  return settled(name, status);
}
async function acceptAndRun(name: string) {
  expect((await tg.asOwner(`/plugins/${name}/accept`, { json: {} })).status).toBe(200);
  return settled(name, 'running');
}
const call = async (tool: string, args: Record<string, unknown> = {}) => {
  const response = await tg.api(`/tools/${tool}/execute`, { method: 'POST', json: args });
  return { status: response.status, body: await readJson(response) };
};
const ownerSecret = () => join(tg.dataDir, 'owner-secret');

describe('a link or hard link out of the plugin folder makes it invalid, saying which', () => {
  it('readme.txt -> <data>/owner-secret: invalid, naming the link and where it points; it cannot be accepted', async () => {
    const dir = writePlugin(pluginsDir, 'linker', { 'index.js': entry({}) });
    symlinkSync(ownerSecret(), join(dir, 'readme.txt'));
    const failed = await seen('linker', 'failed');
    expect(failed.reason).toBe(`readme.txt is a link to ${ownerSecret()}, outside the plugin folder: a plugin may only hold its own files (remove the link or copy the file in)`);
    const refused = await tg.asOwner('/plugins/linker/accept', { json: {} });
    expect(refused.status).toBe(409);
    const secret = readFileSync(ownerSecret(), 'utf8').trim();
    expect(JSON.stringify(await readJson(await tg.api('/plugins')))).not.toContain(secret);
  });

  it('a linked folder outside (lib -> ../../../ext) is refused the same way', async () => {
    mkdirSync(join(parent, 'ext'), { recursive: true });
    writeFileSync(join(parent, 'ext', 'payload.js'), 'export default 1;\n');
    const dir = writePlugin(pluginsDir, 'dirlink', { 'index.js': entry({}) });
    symlinkSync('../../../ext', join(dir, 'lib'));
    expect((await seen('dirlink', 'failed')).reason).toContain(`lib is a link to ${join(parent, 'ext')}, outside the plugin folder`);
  });

  it('a hard link to the owner secret is refused (a hard link is a plain file: its inode gives it away)', async () => {
    const dir = writePlugin(pluginsDir, 'hardlink', { 'index.js': entry({}) });
    linkSync(ownerSecret(), join(dir, 'notes.txt'));
    expect((await seen('hardlink', 'failed')).reason).toBe(`notes.txt is a hard link to ${ownerSecret()}, outside the plugin folder: remove it`);
  });

  it('a link that points nowhere, a link into its .git, and plugin.json as a link are refused', async () => {
    const dangling = writePlugin(pluginsDir, 'dangling', { 'index.js': entry({}) });
    symlinkSync('./missing.js', join(dangling, 'helper.js'));
    expect((await seen('dangling', 'failed')).reason).toContain('helper.js is a link to');
    expect(view('dangling')!.reason).toContain('which does not exist');

    const gitlink = writePlugin(pluginsDir, 'gitlink', { 'index.js': entry({}), '.git/hooks.js': 'export default 1;' });
    symlinkSync('./.git/hooks.js', join(gitlink, 'hooks.js'));
    expect((await seen('gitlink', 'failed')).reason).toBe('hooks.js is a link into .git, which is not part of the plugin Pincer checks: remove it');

    const manifestLink = writePlugin(pluginsDir, 'manifestlink', { 'index.js': entry({}) });
    renameSync(join(manifestLink, 'plugin.json'), join(manifestLink, 'manifest.json'));
    symlinkSync('./manifest.json', join(manifestLink, 'plugin.json'));
    expect((await seen('manifestlink', 'failed')).reason).toBe('plugin.json must be a file of its own, not a link');
  });

  it('a link inside that points inside is fine, and the content it points to is hashed: changing it holds the plugin', async () => {
    const made = toolPlugin({ inner_value: { body: "return (await import('./current.js')).default;" } });
    const dir = writePlugin(pluginsDir, 'inner', { ...made.files, 'versions/v1.js': "export default 'v1';\n" }, made.manifest);
    symlinkSync('versions/v1.js', join(dir, 'current.js'));
    const held = await seen('inner', 'new');
    expect(held.files).toContainEqual({ path: 'current.js', size: 21, link: 'versions/v1.js' });
    await acceptAndRun('inner');
    expect((await call('inner_value')).body.result).toBe('v1');
    writeFileSync(join(dir, 'versions/v1.js'), "export default 'swapped';\n");
    const changed = await seen('inner', 'changed');
    expect(changed.changes?.files).toEqual({ added: [], removed: [], changed: ['current.js', 'versions/v1.js'], more: 0 });
    expect((await call('inner_value')).status).toBe(409);
  });

  it('its own .git is not hashed, and not readable by it either', async () => {
    const made = toolPlugin({ gitty_load: { body: "try { return (await import('./.git/payload.js')).default; } catch (e) { return e.code; }" } });
    const dir = writePlugin(pluginsDir, 'gitty', { ...made.files, '.git/HEAD': 'ref: refs/heads/main\n' }, made.manifest);
    await seen('gitty', 'new');
    await acceptAndRun('gitty');
    writeFileSync(join(dir, '.git', 'payload.js'), "export default 'from .git';\n");
    await tg.gateway.plugins.rescan();
    expect(view('gitty')!.status).toBe('running');
    // Refused by the permission model (or, in the OS sandbox, not there at all): never loaded.
    expect((await call('gitty_load')).body.result).toMatch(/^ERR_(ACCESS_DENIED|MODULE_NOT_FOUND)$/);
  });
});

describe('the hash is checked again before every restart and every start', () => {
  const swapper = () =>
    toolPlugin(
      { swapper_value: { body: 'return dep;' }, swapper_crash: { body: 'process.exit(7);' } },
      {},
      "import dep from 'dep';",
    );
  const dependency = (value: string) => ({ 'node_modules/dep/package.json': JSON.stringify({ name: 'dep', main: 'index.js' }), 'node_modules/dep/index.js': `module.exports = ${JSON.stringify(value)};\n` });

  it('a node_modules file swapped after acceptance is held at the next restart after a crash, not run', async () => {
    const made = swapper();
    const dir = writePlugin(pluginsDir, 'swapper', { ...made.files, ...dependency('v1') }, made.manifest);
    await seen('swapper', 'new');
    await acceptAndRun('swapper');
    expect((await call('swapper_value')).body.result).toBe('v1');

    writeFileSync(join(dir, 'node_modules/dep/index.js'), "module.exports = 'swapped in';\n");
    expect((await call('swapper_crash')).body).toMatchObject({ success: false, error: { name: 'PLUGIN_CRASHED' } });
    const held = await settled('swapper', 'changed');
    expect(held.reason).toMatch(/files changed since the owner accepted it/);
    expect((await call('swapper_value')).body).toMatchObject({ error: { name: 'TOOL_HELD' } });
    // What changed, once the folder is read again.
    await until(() => view('swapper')?.changes?.files?.changed.includes('node_modules/dep/index.js'), 'the changed file listed');
  });

  it('a node_modules file swapped while the gateway is down is held at its next start', async () => {
    const dir = join(pluginsDir, 'swapper');
    await acceptAndRun('swapper');
    expect((await call('swapper_value')).body.result).toBe('swapped in');
    await tg.close();
    writeFileSync(join(dir, 'node_modules/dep/index.js'), "module.exports = 'while you were away';\n");
    tg = await quietGateway();
    const held = await settled('swapper', 'changed');
    expect(held.changes?.files?.changed).toEqual(['node_modules/dep/index.js']);
    expect((await call('swapper_value')).body).toMatchObject({ error: { name: 'TOOL_HELD' } });
  });

  it('a tampered build file is held at the next restart after a crash; accepting again builds it afresh', async () => {
    const source = `import { definePlugin, defineTool } from 'pincer/plugin';
const tool = (name, handler) => defineTool({ name, description: 'x', risk: 'safe', parameters: { type: 'object', properties: {} }, handler });
export default definePlugin({ tools: [tool('built_value', () => 'as built'), tool('built_crash', () => process.exit(7))] });
`;
    writePlugin(pluginsDir, 'built', { 'index.ts': source }, { entry: 'index.ts', tools: [{ name: 'built_value', risk: 'safe' }, { name: 'built_crash', risk: 'safe' }] });
    await seen('built', 'new');
    await acceptAndRun('built');
    expect((await call('built_value')).body.result).toBe('as built');

    const build = join(pluginsDir, '.build', 'built', 'index.mjs');
    appendFileSync(build, "\nglobalThis.tampered = 'yes';\n");
    await call('built_crash');
    const held = await settled('built', 'changed');
    expect(held.reason).toContain(`Its build in ${join(pluginsDir, '.build', 'built')} changed after Pincer wrote it`);
    expect((await call('built_value')).body).toMatchObject({ error: { name: 'TOOL_HELD' } });
    // The rescan a restart asks for keeps it held: its sources did not change, its build did.
    await tg.gateway.plugins.rescan();
    expect(view('built')!.status).toBe('changed');

    await acceptAndRun('built');
    expect(readFileSync(build, 'utf8')).not.toContain('tampered');
    expect((await call('built_value')).body.result).toBe('as built');
  });

  it('a tampered build file is held by a rescan too, with the plugin still running', async () => {
    const build = join(pluginsDir, '.build', 'built', 'index.mjs');
    appendFileSync(build, '\n// changed\n');
    await tg.gateway.plugins.rescan();
    expect(view('built')).toMatchObject({ status: 'changed', reason: expect.stringContaining('changed after Pincer wrote it') });
  });
});

describe('two different folders never have the same hash', () => {
  // The old hash ran every file's path and content together with a NUL byte between them: content holding NUL bytes
  // could move the boundary between two files and keep the hash, with other code in the entry file.
  const evil = "globalThis.unaccepted = 'ran'; //";
  const clean = `\n${entry({ nulls_value: { body: "return globalThis.unaccepted ?? 'clean';" } })}`;
  const accepted = { 'a.bin': `X\0index.js\0${evil}`, 'index.js': clean };
  const swapped = { 'a.bin': 'X', 'index.js': `${evil}\0index.js\0${clean}` };

  it('moving bytes from one file into the next changes the hash', () => {
    const parentDir = tempDir('pincer-hash-');
    const a = writePlugin(parentDir, 'a', accepted);
    const b = writePlugin(parentDir, 'b', swapped);
    expect(hashPluginFolder(a).hash).not.toBe(hashPluginFolder(b).hash);
  });

  it('a folder rewritten that way after acceptance is held, and its new code never runs', async () => {
    const made = { tools: [{ name: 'nulls_value', risk: 'safe' }] };
    const dir = writePlugin(pluginsDir, 'nulls', accepted, made);
    await seen('nulls', 'new');
    await acceptAndRun('nulls');
    expect((await call('nulls_value')).body.result).toBe('clean');
    for (const [file, text] of Object.entries(swapped)) writeFileSync(join(dir, file), text);
    await seen('nulls', 'changed');
    expect((await call('nulls_value')).body).toMatchObject({ error: { name: 'TOOL_HELD' } });
    await tg.close();
    tg = await quietGateway();
    await settled('nulls', 'changed');
    expect((await call('nulls_value')).body).toMatchObject({ error: { name: 'TOOL_HELD' } });
  });

  it('an acceptance recorded with an earlier hash format still holds for exactly the files it recorded', async () => {
    const made = toolPlugin({ legacy_value: { body: "return 'legacy';" } });
    writePlugin(pluginsDir, 'legacy', made.files, made.manifest);
    await seen('legacy', 'new');
    await acceptAndRun('legacy');
    // As an earlier Pincer recorded it: another hash over the same files.
    const recorded = tg.gateway.store.plugins.get('legacy')!;
    const reaccept = (files: unknown[]) =>
      tg.gateway.store.plugins.accept({ name: 'legacy', hash: 'f'.repeat(64), tools: recorded.tools, permissions: recorded.permissions, files }, 'owner');
    reaccept(recorded.files!);
    await tg.close();
    tg = await quietGateway();
    await settled('legacy', 'running');
    expect((await call('legacy_value')).body.result).toBe('legacy');

    // The files recorded then are not the files there now: held.
    const [first, ...rest] = recorded.files as { path: string; size: number; sha256: string }[];
    reaccept([{ ...first!, sha256: '0'.repeat(64) }, ...rest]);
    await tg.close();
    tg = await quietGateway();
    await settled('legacy', 'changed');
    expect((await call('legacy_value')).body).toMatchObject({ error: { name: 'TOOL_HELD' } });
  });
});

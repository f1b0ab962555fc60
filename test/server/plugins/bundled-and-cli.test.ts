import { execFile } from 'node:child_process';
import { appendFileSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { bundledRecordFile, readBundledRecord } from '../../../server/plugins/bundled.js';
import { pluginApiFile } from '../../../server/plugins/discover.js';
import { hashPluginFolder } from '../../../server/plugins/integrity.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPincer } from '../../helpers/cli.js';
import { readJson, startGateway, tempDir, type TestGateway } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';
import { writePlugin } from './helpers.js';
import { startSinaStub, type SinaStub } from '../../plugins/investment/sina-stub.js';

const BUNDLED = resolve(import.meta.dirname, '../../../plugins');

describe('the bundled investment plugin, in a real gateway against a local Sina stub', () => {
  let tg: TestGateway;
  let stub: SinaStub;

  beforeAll(async () => {
    stub = await startSinaStub();
    // The owner points the plugin at the stub and opens loopback for it, as they would for a local mirror.
    tg = await startGateway({ httpAllow: ['127.0.0.1'], plugins: { investment: stub.config } }, { bundledPluginsDir: BUNDLED });
    await until(() => tg.gateway.plugins.get('investment')?.status === 'running', 'the investment plugin', 30_000);
  });
  afterAll(async () => {
    await tg?.close();
    await stub?.close();
  });

  const call = async (tool: string, args: Record<string, unknown>) => readJson(await tg.api(`/tools/${tool}/execute`, { method: 'POST', json: args }));

  it('is trusted as shipped: its tools are on at once, from plugin:investment', async () => {
    const tools = (await readJson(await tg.api('/tools'))).tools as { name: string; source: string }[];
    expect(tools.filter((t) => t.source === 'plugin:investment').map((t) => t.name).sort()).toEqual(['index_quote', 'search_stock', 'stock_kline', 'stock_quote']);
  });

  it('stock_quote answers without asking, parsed from GBK, numbers as numbers, with the Referer sent', async () => {
    const answer = await call('stock_quote', { codes: ['sh600030'] });
    expect(answer.success).toBe(true);
    const quote = answer.result.quotes[0];
    expect(quote.code).toBe('sh600030');
    expect(quote.name).toBe('中信证券');
    expect(typeof quote.price).toBe('number');
    expect(stub.requests.at(-1)!.headers.referer).toBe('https://finance.sina.com.cn');
    expect(tg.gateway.approvals.pending()).toHaveLength(0);
  });

  it('repeated quotes within 60 s come from the gateway cache', async () => {
    const before = stub.requests.length;
    await call('index_quote', {});
    const again = await tg.api('/tools/index_quote/execute', { method: 'POST', json: {} });
    expect((await readJson(again)).cached).toBe(true);
    expect(stub.requests.length).toBe(before + 1);
  });

  it('a user\'s folder named like it is listed as not loaded, with why, and takes none of its trust', async () => {
    const dir = writePlugin(join(tg.dataDir, 'plugins'), 'investment', {
      'index.js': "import { definePlugin, defineTool } from 'pincer/plugin';\nexport default definePlugin({ tools: [defineTool({ name: 'borrowed_trust', description: 'x', parameters: { type: 'object', properties: {} }, risk: 'safe', handler: () => 1 })] });\n",
    });
    expect((await tg.asOwner('/plugins/rescan', { json: {} })).status).toBe(200);
    expect((await tg.asOwner('/plugins/reload', { json: {} })).status).toBe(200);
    expect((await tg.api('/plugins/reload', { method: 'POST', json: {} })).status).toBe(403);
    const list = await until(async () => {
      const answer = await readJson(await tg.api('/plugins'));
      return answer.ignored.length > 0 && answer;
    }, 'the folder listed as ignored');
    expect(list.ignored).toEqual([{ name: 'investment', dir, reason: expect.stringMatching(/bundled with Pincer.*rename the folder/) }]);
    expect(list.plugins.find((p: { name: string }) => p.name === 'investment')).toMatchObject({ origin: 'bundled', status: 'running' });
    expect((await tg.api('/tools/borrowed_trust')).status).toBe(404);
  });

  it('an unknown code and an upstream failure are clear errors', async () => {
    expect(await call('stock_quote', { codes: ['sh999999'] })).toMatchObject({ success: false, error: { message: expect.stringContaining('sh999999') } });
    stub.failWith('suggest3', 503);
    expect(await call('search_stock', { query: 'gzmt' })).toMatchObject({ success: false, error: { message: expect.stringContaining('503') } });
    stub.failWith('suggest3', undefined);
  });
});

describe('bundled plugins are trusted only as Pincer was built with them', () => {
  const INVESTMENT_TOOLS = ['stock_quote', 'index_quote', 'search_stock', 'stock_kline'];

  it('the build recorded the bundled folder\'s hash with the gateway\'s own hashing', () => {
    const record = readBundledRecord(bundledRecordFile());
    expect(record?.plugins.investment?.hash).toBe(hashPluginFolder(join(BUNDLED, 'investment')).hash);
  });

  it('a copy of the bundled folder with one file changed is held like a user plugin: TOOL_HELD until the owner accepts it', async () => {
    const copy = join(tempDir('pincer-bundled-copy-'), 'plugins');
    cpSync(BUNDLED, copy, { recursive: true });
    appendFileSync(join(copy, 'investment', 'quotes.js'), "\nconsole.error('changed after the build');\n");
    // The copy's `pincer/plugin` points at this build's API, so it can run once accepted.
    writeFileSync(join(copy, 'node_modules', 'pincer', 'plugin.js'), `export * from ${JSON.stringify(pathToFileURL(pluginApiFile()).href)};\n`);
    const tg = await startGateway({}, { bundledPluginsDir: copy });
    try {
      const held = await until(() => {
        const view = tg.gateway.plugins.get('investment');
        return view?.status === 'changed' && view;
      }, 'the copy to be held', 30_000);
      expect(held.reason).toBe('Its files differ from those Pincer was built with: its tools stay off until the owner accepts it.');
      expect(held.tools.map((t) => [t.name, t.registered])).toEqual(INVESTMENT_TOOLS.map((name) => [name, false]));
      const call = await tg.api('/tools/stock_quote/execute', { method: 'POST', json: { codes: ['sh600030'] } });
      expect(call.status).toBe(409);
      expect((await readJson(call)).error).toMatchObject({ name: 'TOOL_HELD', message: expect.stringContaining('bundled with Pincer but its files differ from those Pincer was built with') });

      expect((await tg.asOwner('/plugins/investment/accept', { json: { hash: held.hash } })).status).toBe(200);
      await until(() => tg.gateway.plugins.get('investment')?.status === 'running', 'the accepted copy to run', 30_000);
      expect(tg.gateway.store.plugins.get('investment')).toMatchObject({ hash: held.hash, accepted_by: 'owner' });
    } finally {
      await tg.close();
    }
  });

  it('with no record of the build, the bundled plugin is held, saying so', async () => {
    const tg = await startGateway({}, { bundledPluginsDir: BUNDLED, bundledPluginsRecord: join(tempDir(), 'no-record.json') });
    try {
      const held = await until(() => {
        const view = tg.gateway.plugins.get('investment');
        return view && view.status !== 'loading' && view;
      }, 'the bundled plugin to be read', 30_000);
      expect(held).toMatchObject({ status: 'changed', reason: expect.stringContaining('Pincer has no record of the files it was built with') });
      expect((await tg.api('/tools/stock_quote/execute', { method: 'POST', json: { codes: ['sh600030'] } })).status).toBe(409);
    } finally {
      await tg.close();
    }
  });
});

describe('pincer plugin new', () => {
  it('writes a skeleton whose own test passes and that loads in a running gateway as accepted', async () => {
    const dataDir = tempDir();
    const made = await runPincer(['plugin', 'new', 'weather-desk', '--data-dir', dataDir]);
    expect(made.code).toBe(0);
    const dir = join(dataDir, 'plugins', 'weather-desk');
    expect(made.stdout).toContain(dir);
    // It declares its tool, as every plugin must for the owner to see what it defines before it runs.
    expect(JSON.parse(readFileSync(join(dir, 'plugin.json'), 'utf8')).tools).toEqual([{ name: 'weather_desk_greet', risk: 'safe', description: expect.stringContaining('Greets someone') }]);
    const tests = await promisify(execFile)(process.execPath, ['--test'], { cwd: dir });
    expect(tests.stdout).toMatch(/# pass 2/);
    const tg = await startGateway({ dataDir }, { bundledPluginsDir: null });
    try {
      await until(() => tg.gateway.plugins.get('weather-desk')?.status === 'running', 'the skeleton to run', 30_000);
      const answer = await readJson(await tg.api('/tools/weather_desk_greet/execute', { method: 'POST', json: { name: 'Ada', language: 'fr' } }));
      expect(answer).toMatchObject({ success: true, result: { greeting: 'Bonjour, Ada!' } });
      const listed = await runPincer(['plugin', 'list', '--data-dir', dataDir, '--port', String(tg.port)]);
      expect(listed.stdout).toMatch(/weather-desk\s+user\s+0\.1\.0\s+running\s+weather_desk_greet/);
      const shown = await runPincer(['plugin', 'show', 'weather-desk', '--data-dir', dataDir, '--port', String(tg.port)]);
      expect(shown.stdout).toContain('weather-desk 0.1.0 (your plugin): running');
      expect(shown.stdout).toMatch(/tools \(1\):\n\s+weather_desk_greet \[safe\] Greets someone/);
      expect(shown.stdout).toMatch(/files \(5, \d+ bytes\):\n\s+index\.js\s+\d+/);
    } finally {
      await tg.close();
    }
    const again = await runPincer(['plugin', 'new', 'weather-desk', '--data-dir', dataDir]);
    expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining('already exists') });
    expect((await runPincer(['plugin', 'new', 'Bad Name', '--data-dir', dataDir])).stderr).toContain('cannot name a plugin');
  });
});

import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
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

describe('pincer plugin new', () => {
  it('writes a skeleton whose own test passes and that loads in a running gateway as accepted', async () => {
    const dataDir = tempDir();
    const made = await runPincer(['plugin', 'new', 'weather-desk', '--data-dir', dataDir]);
    expect(made.code).toBe(0);
    const dir = join(dataDir, 'plugins', 'weather-desk');
    expect(made.stdout).toContain(dir);
    const tests = await promisify(execFile)(process.execPath, ['--test'], { cwd: dir });
    expect(tests.stdout).toMatch(/# pass 2/);
    const tg = await startGateway({ dataDir }, { bundledPluginsDir: null });
    try {
      await until(() => tg.gateway.plugins.get('weather-desk')?.status === 'running', 'the skeleton to run', 30_000);
      const answer = await readJson(await tg.api('/tools/weather_desk_greet/execute', { method: 'POST', json: { name: 'Ada', language: 'fr' } }));
      expect(answer).toMatchObject({ success: true, result: { greeting: 'Bonjour, Ada!' } });
      const listed = await runPincer(['plugin', 'list', '--data-dir', dataDir, '--port', String(tg.port)]);
      expect(listed.stdout).toMatch(/weather-desk\s+user\s+0\.1\.0\s+running\s+weather_desk_greet/);
    } finally {
      await tg.close();
    }
    const again = await runPincer(['plugin', 'new', 'weather-desk', '--data-dir', dataDir]);
    expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining('already exists') });
    expect((await runPincer(['plugin', 'new', 'Bad Name', '--data-dir', dataDir])).stderr).toContain('cannot name a plugin');
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readJson, startGateway, type TestGateway } from '../../helpers/gateway.js';
import { pluginSteps, toolPlugin } from './helpers.js';

/**
 * Where there is no OS sandbox (macOS without sandbox-exec, Windows, Linux without bubblewrap, or switched off as
 * here), a plugin still runs under Node's permission model, and its status says what that cannot stop.
 */

// Read once per process, when the gateway is built: this file's own process has the sandbox switched off.
process.env.PINCER_SANDBOX = 'off';

let tg: TestGateway;
let steps: ReturnType<typeof pluginSteps>;

beforeAll(async () => {
  tg = await startGateway({}, { bundledPluginsDir: null });
  steps = pluginSteps(tg);
});
afterAll(async () => {
  await tg?.close();
  delete process.env.PINCER_SANDBOX;
});

it('GET /plugins says there is no sandbox and what the permission model alone cannot stop', async () => {
  await steps.installed('bare', toolPlugin({ bare_ok: { body: 'return process.ppid === 1;' } }));
  const listed = (await readJson(await tg.api('/plugins'))).plugins.find((p: { name: string }) => p.name === 'bare');
  expect(listed.sandbox).toEqual({
    kind: 'none',
    detail: expect.stringMatching(/PINCER_SANDBOX=off.*Node's permission model alone, which cannot stop raw network sockets or signals to other processes/),
  });
  // No PID namespace: its parent is the gateway itself.
  expect((await steps.call('bare_ok')).body).toMatchObject({ success: true, result: false });
});

it('the permission model still refuses what the plugin did not declare', async () => {
  const body = `try { return (await import('node:fs')).readFileSync(${JSON.stringify(join(tg.dataDir, 'token'))}, 'utf8'); } catch (e) { return e.code; }`;
  await steps.installed('nosy', toolPlugin({ nosy_read: { body } }));
  const answer = (await steps.call('nosy_read')).body;
  expect(answer.result).toBe('ERR_ACCESS_DENIED');
  expect(JSON.stringify(answer)).not.toContain(readFileSync(join(tg.dataDir, 'token'), 'utf8').trim());
});

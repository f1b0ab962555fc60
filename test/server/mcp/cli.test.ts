import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, runPincer } from '../../helpers/cli.js';
import { startGateway, tempDir, type TestGateway } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';

/** `pincer mcp-servers add|list|accept|rm`, the real command, with and without a running gateway. */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const STUB = resolve(import.meta.dirname, 'fixtures/stub-server.mjs');
const dataDir = tempDir('pincer-mcp-cli-');
const work = tempDir('pincer-mcp-cli-stub-');
const descriptionFile = join(work, 'description.txt');
const pidsFile = join(work, 'pids.txt');
writeFileSync(descriptionFile, 'Echoes the text it is given.');
writeFileSync(pidsFile, '');
let tg: TestGateway | undefined;
afterAll(async () => {
  await tg?.close();
});

describe('pincer mcp-servers', () => {
  it('adds a stdio server to config.json with no gateway running, then lists, accepts and removes it on a running one', async () => {
    const port = await freePort();
    const added = await runPincer(
      ['mcp-servers', 'add', 'stub', '--env', `STUB_DESCRIPTION_FILE=${descriptionFile}`, '--env', `STUB_PIDS_FILE=${pidsFile}`, '--data-dir', dataDir, '--port', String(port), '--', process.execPath, STUB],
      { PINCER_TOKEN: '' },
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/outside Pincer's sandbox/);
    const saved = JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8'));
    expect(saved.mcp_servers.stub).toEqual({ command: process.execPath, args: [STUB], env: { STUB_DESCRIPTION_FILE: descriptionFile, STUB_PIDS_FILE: pidsFile } });

    tg = await startGateway({ dataDir }, { loadPlugins: true });
    const cli = (...args: string[]) => runPincer(['mcp-servers', ...args, '--data-dir', dataDir, '--port', String(tg!.port)], { PINCER_TOKEN: '' });
    const listed = await until(async () => {
      const result = await cli('list', '--json');
      const stub = (JSON.parse(result.stdout) as Json).servers.find((s: Json) => s.name === 'stub');
      return stub?.status === 'running' && stub;
    }, 'stub running');
    expect(listed.tools.find((t: Json) => t.name === 'add_numbers').status).toBe('flagged');

    const table = await cli('list');
    expect(table.stdout).toMatch(/stub\s+running/);
    expect(table.stdout).toMatch(/! add_numbers: /);

    const accepted = await cli('accept', 'stub', '--tool', 'add_numbers', '--risk', 'safe');
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toMatch(/add_numbers\s+active\s+safe/);
    expect((await tg.api('/tools/stub__add_numbers')).status).toBe(200);

    const toolOff = await cli('disable', 'stub', '--tool', 'echo');
    expect(toolOff.code, toolOff.stderr).toBe(0);
    expect(toolOff.stdout).toMatch(/echo\s+disabled/);
    expect((await tg.api('/tools/stub__echo')).status).toBe(404);
    const serverOff = await cli('disable', 'stub');
    expect(serverOff.code, serverOff.stderr).toBe(0);
    expect((await tg.api('/tools/stub__add_numbers')).status).toBe(404);
    const serverOn = await cli('enable', 'stub');
    expect(serverOn.code, serverOn.stderr).toBe(0);
    await until(async () => (await tg!.api('/tools/stub__add_numbers')).status === 200, 'the server running again');

    const removed = await cli('rm', 'stub');
    expect(removed.code, removed.stderr).toBe(0);
    expect((await tg.api('/tools/stub__echo')).status).toBe(404);
    expect(JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8')).mcp_servers).toBeUndefined();
  }, 90_000);

  it('refuses a bad command line with the usage', async () => {
    const result = await runPincer(['mcp-servers', 'add', '--data-dir', dataDir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/usage/);
  });
});

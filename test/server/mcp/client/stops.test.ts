import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serve, type Served } from '../../../helpers/cli.js';
import { tempDir } from '../../../helpers/gateway.js';
import { eventually, processesMatching } from '../../../helpers/processes.js';
import { until } from '../../../helpers/wait.js';

/**
 * An imported stdio MCP server is started by the gateway's process runner like every child: after a kill -9 of the
 * gateway, the next start ends it and whatever it started (here a server that outlives its closed standard input
 * and has a child of its own).
 */

const STUB = resolve(import.meta.dirname, '../fixtures/stub-server.mjs');
const dirs: string[] = [];
let served: Served[] = [];

afterEach(async () => {
  for (const s of served) {
    if (s.child.exitCode === null && s.child.signalCode === null) {
      s.child.kill('SIGKILL');
      await s.exited;
    }
  }
  served = [];
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('imported MCP server processes', () => {
  it('are ended, with their children, at the next start after a kill -9 of the gateway', async () => {
    const dataDir = tempDir();
    const work = tempDir('pincer-mcp-stops-');
    dirs.push(dataDir, work);
    const pidsFile = join(work, 'pids.txt');
    writeFileSync(join(work, 'description.txt'), 'Echoes the text it is given.');
    writeFileSync(pidsFile, '');
    writeFileSync(
      join(dataDir, 'config.json'),
      JSON.stringify({
        mcp_servers: {
          stub: { command: process.execPath, args: [STUB], env: { STUB_DESCRIPTION_FILE: join(work, 'description.txt'), STUB_PIDS_FILE: pidsFile, STUB_LINGER: '1' } },
        },
      }),
    );
    const first = await serve(dataDir, 0);
    served.push(first);
    const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
    await until(async () => {
      const view = (await (await fetch(`${first.url}/mcp-servers/stub`, { headers: { authorization: `Bearer ${token}` } })).json()) as { status: string };
      return view.status === 'running';
    }, 'the stub server running');
    const stubPid = Number(readFileSync(pidsFile, 'utf8').trim().split('\n')[0]);
    expect(await eventually(() => processesMatching('stub-grandchild').length > 0)).toBe(true);
    const grandchildren = processesMatching('stub-grandchild');

    first.child.kill('SIGKILL');
    await first.exited;
    // Its own session and group: the gateway's death alone does not end it.
    expect(processesMatching(STUB)).toContain(stubPid);

    const second = await serve(dataDir, 0);
    served.push(second);
    const gone = (pids: number[]) => () => {
      const live = [...processesMatching(STUB), ...processesMatching('stub-grandchild')];
      return pids.every((pid) => !live.includes(pid));
    };
    expect(await eventually(gone([stubPid, ...grandchildren]), 10_000)).toBe(true);

    // A clean stop ends the copy the new gateway started, and its child, too.
    await until(async () => readFileSync(pidsFile, 'utf8').trim().split('\n').length > 1, 'the server started again');
    const secondPid = Number(readFileSync(pidsFile, 'utf8').trim().split('\n').at(-1));
    expect(await eventually(() => processesMatching('stub-grandchild').length > 0)).toBe(true);
    const secondGrandchildren = processesMatching('stub-grandchild');
    second.child.kill('SIGTERM');
    await second.exited;
    expect(await eventually(gone([secondPid, ...secondGrandchildren]), 10_000)).toBe(true);
  }, 60_000);
});

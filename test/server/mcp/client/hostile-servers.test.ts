import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAllTools, TOOL_LIST_LIMITS, ToolListStopped } from '../../../../server/mcp/client/tool-list.js';
import { EventStream } from '../../../helpers/events.js';
import { freePort, serve } from '../../../helpers/cli.js';
import { readJson, startGateway, tempDir, type TestGateway } from '../../../helpers/gateway.js';
import { until } from '../../../helpers/wait.js';

/**
 * Imported MCP servers that attack the gateway: a schema pattern that backtracks for ever, one the linear-time engine
 * cannot run, a tools/list that pages for ever or loops through its cursors. Each through a real gateway and a real
 * stdio server process.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const HOSTILE = resolve(import.meta.dirname, '../fixtures/hostile-server.mjs');
const work = tempDir('pincer-mcp-hostile-');
const countFile = (name: string) => join(work, `${name}.pages`);
const pagesRead = (name: string) => readFileSync(countFile(name), 'utf8').split('\n').filter(Boolean).length;
const entry = (paging: string, name: string) => {
  writeFileSync(countFile(name), '');
  return { command: process.execPath, args: [HOSTILE], env: { HOSTILE_PAGING: paging, HOSTILE_COUNT_FILE: countFile(name) } };
};
/** A bound on a request, so a stalled gateway fails the test instead of hanging it. */
const BOUND_MS = 15_000;

let tg: TestGateway;
const view = async (name: string): Promise<Json> => readJson(await tg.api(`/mcp-servers/${name}`));

beforeAll(async () => {
  tg = await startGateway({ mcpServers: { regex: entry('none', 'regex') } }, { mcpBackoffMs: [50, 100, 200] });
  await until(async () => (await view('regex')).status === 'running', 'the regex server running');
  await tg.asOwner('/mcp-servers/regex/accept', { json: { tools: ['match', 'keys', 'shaped', 'flood'], risk: 'safe' } });
});
afterAll(async () => {
  await tg?.close();
});

describe('an imported schema pattern that backtracks', () => {
  it('answers a call with a 60-character argument against ^(a|aa)+$ while /health keeps answering', async () => {
    const attack = 'a'.repeat(60) + 'b';
    const [call, health] = await Promise.all([
      tg.api('/tools/regex__match/execute', { method: 'POST', json: { text: attack }, signal: AbortSignal.timeout(BOUND_MS) }),
      fetch(`${tg.url}/health`, { signal: AbortSignal.timeout(BOUND_MS) }),
    ]);
    expect(health.status).toBe(200);
    expect(call.status).toBe(400);
    expect((await readJson(call)).error).toMatchObject({ name: 'INVALID_ARGUMENTS', message: expect.stringMatching(/must match pattern/) });
    // The pattern still means what it says: a long run of a's is valid and the tool runs.
    const ok = await readJson(await tg.api('/tools/regex__match/execute', { method: 'POST', json: { text: 'a'.repeat(5000) }, signal: AbortSignal.timeout(BOUND_MS) }));
    expect(ok).toMatchObject({ success: true, result: 'matched 5000 characters' });
  });

  it('answers an argument name crafted against a backtracking patternProperties key', async () => {
    const [call, health] = await Promise.all([
      tg.api('/tools/regex__keys/execute', { method: 'POST', json: { ['a'.repeat(60) + 'b']: 'x', aaaa: 'not a number' }, signal: AbortSignal.timeout(BOUND_MS) }),
      fetch(`${tg.url}/health`, { signal: AbortSignal.timeout(BOUND_MS) }),
    ]);
    expect(health.status).toBe(200);
    expect(call.status).toBe(400);
    expect((await readJson(call)).error.message).toMatch(/"aaaa" must be number/);
  });

  it('answers a call whose result is crafted against a backtracking pattern in the tool\'s own output schema', async () => {
    const [call, health] = await Promise.all([
      tg.api('/tools/regex__shaped/execute', { method: 'POST', json: {}, signal: AbortSignal.timeout(BOUND_MS) }),
      fetch(`${tg.url}/health`, { signal: AbortSignal.timeout(BOUND_MS) }),
    ]);
    expect(health.status).toBe(200);
    const answer = await readJson(call);
    expect(answer).toMatchObject({ success: false, error: { name: 'MCP_SERVER_ERROR' } });
    expect(answer.error.message).toMatch(/output schema/i);
  });

  it('refuses a pattern with a lookahead: the tool is invalid, with the problem in GET /mcp-servers, and cannot be called', async () => {
    const ahead = (await view('regex')).tools.find((t: Json) => t.name === 'ahead');
    expect(ahead).toMatchObject({ status: 'invalid', imported_as: 'regex__ahead' });
    expect(ahead.problem).toMatch(/the pattern "\^\(\?=x\)\\\\w\+\$" uses a lookahead .*which the linear-time engine cannot run/);
    expect((await tg.api('/tools/regex__ahead')).status).toBe(404);
    // Accepting it does not make it run.
    await tg.asOwner('/mcp-servers/regex/accept', { json: { tools: ['ahead'] } });
    expect((await tg.api('/tools/regex__ahead/execute', { method: 'POST', json: { word: 'xy' } })).status).toBe(404);
  });
});

describe('the same attack on `pincer serve` in a process of its own (a stalled gateway fails the bound, not the test runner)', () => {
  it('answers the call and /health while a client sends a 60-character argument against ^(a|aa)+$', async () => {
    const dataDir = tempDir('pincer-hostile-serve-');
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ mcp_servers: { regex: entry('none', 'served') } }));
    const served = await serve(dataDir, await freePort());
    try {
      const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
      const api = (path: string, init: RequestInit = {}) =>
        fetch(`${served.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, signal: AbortSignal.timeout(BOUND_MS) });
      await until(async () => (await api('/tools/regex__match')).status === 200, 'the imported tool listed');
      // Validation runs before policy and approval: the client needs nobody's consent to reach the pattern.
      const [call, health] = await Promise.all([
        api('/tools/regex__match/execute', { method: 'POST', body: JSON.stringify({ text: 'a'.repeat(60) + 'b' }) }),
        fetch(`${served.url}/health`, { signal: AbortSignal.timeout(BOUND_MS) }),
      ]);
      expect(health.status).toBe(200);
      expect(call.status).toBe(400);
      expect((await readJson(call)).error.name).toBe('INVALID_ARGUMENTS');
    } finally {
      served.child.kill('SIGTERM');
      // A gateway whose event loop is frozen cannot act on SIGTERM.
      const stopped = await Promise.race([served.exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 10_000))]);
      if (!stopped) served.child.kill('SIGKILL');
    }
  }, 60_000);
});

describe('a tools/list that never ends', () => {
  it('stops an endless pagination (an empty page with a nextCursor, for ever) after 100 pages and marks the server', async () => {
    const events = await EventStream.open(tg);
    expect((await tg.asOwner('/mcp-servers/endless', { method: 'PUT', json: entry('endless', 'endless') })).status).toBe(200);
    const change = await events.next((e) => e.event === 'mcp_servers' && e.data.name === 'endless' && e.data.last_error !== null);
    expect(change.data.last_error).toMatch(/its tools\/list returned more than 100 pages; none of that listing is imported/);
    const server = await view('endless');
    expect(server.last_error).toBe(change.data.last_error);
    expect(server.tools).toEqual([]);
    expect((await tg.api('/tools/endless__match')).status).toBe(404);
    expect(pagesRead('endless')).toBe(TOOL_LIST_LIMITS.pages);
    events.close();
  });

  it('stops at once on a repeated cursor', async () => {
    await tg.asOwner('/mcp-servers/looping', { method: 'PUT', json: entry('repeat', 'looping') });
    const server = await until(async () => {
      const v = await view('looping');
      return v.last_error !== null && v;
    }, 'the looping server marked');
    expect(server.last_error).toMatch(/its tools\/list returned a repeated cursor \("a", after page 3\)/);
    expect(server.tools).toEqual([]);
    expect(readFileSync(countFile('looping'), 'utf8').split('\n').filter(Boolean)).toEqual(['-', 'a', 'b']);
  });

  it('lists the tools once or twice, not 200 times, when a server sends 200 tools/list_changed at once', async () => {
    const before = pagesRead('regex');
    const flooded = await readJson(await tg.api('/tools/regex__flood/execute', { method: 'POST', json: {}, signal: AbortSignal.timeout(BOUND_MS) }));
    expect(flooded).toMatchObject({ success: true, result: 'flooded' });
    // Settled: the count stops moving (each listing here is one page).
    let last = -1;
    const read = await until(async () => {
      const now = pagesRead('regex');
      const settled = now === last && now > before;
      last = now;
      return settled && now;
    }, 'the listings to settle', 10_000, 500);
    expect(read - before).toBeGreaterThanOrEqual(1);
    expect(read - before).toBeLessThanOrEqual(3);
  });

  it('stops a listing that takes longer than its time bound', async () => {
    writeFileSync(countFile('slow'), '');
    const transport = new StdioClientTransport({ command: process.execPath, args: [HOSTILE], env: { PATH: process.env.PATH ?? '', HOSTILE_PAGING: 'slow', HOSTILE_COUNT_FILE: countFile('slow') } });
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(transport);
    try {
      const stopped = await listAllTools(client, { ...TOOL_LIST_LIMITS, timeMs: 1000 }).catch((error: unknown) => error);
      expect(stopped).toBeInstanceOf(ToolListStopped);
      expect((stopped as Error).message).toMatch(/its tools\/list did not finish within 1 s \(\d+ pages read\)/);
    } finally {
      await client.close();
    }
  });
});

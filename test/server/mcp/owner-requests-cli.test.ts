import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runPincer, serve, type CliResult, type Served } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';

/** `pincer approvals` shows an imported server's question with its form, and answers it: accept with --set, decline. */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const ASKER = resolve(import.meta.dirname, 'fixtures/asking-server.mjs');
let dataDir: string;
let port: number;
let served: Served;
let token: string;

const pincer = (...args: string[]): Promise<CliResult> => runPincer([...args, '--data-dir', dataDir, '--port', String(port)], { PINCER_TOKEN: '' });

function book(): Promise<Json> {
  return fetch(`${served.url}/tool_calls`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tool_calls: [{ id: 'c1', type: 'function', function: { name: 'asker__book', arguments: '{"flight":"PA9"}' } }] }),
  }).then(async (res) => JSON.parse(((await res.json()) as Json).messages[0].content));
}

async function questionId(): Promise<string> {
  return until(async () => {
    const listed = await pincer('approvals', '--json');
    return (JSON.parse(listed.stdout).approvals as Json[]).find((a) => a.kind === 'elicitation')?.id;
  }, 'the question listed');
}

beforeAll(async () => {
  dataDir = tempDir();
  port = await freePort();
  writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ mcp_servers: { asker: { command: process.execPath, args: [ASKER] } } }));
  served = await serve(dataDir, port, realpathSync(tempDir('pincer-ws-')));
  token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
  await until(async () => (await pincer('mcp-servers')).stdout.includes('book'), 'the asking server imported');
  expect((await pincer('mcp-servers', 'accept', 'asker', '--risk', 'safe')).code).toBe(0);
});
afterAll(async () => {
  served?.child.kill('SIGKILL');
  await served?.exited;
});

describe('pincer approvals and an imported server\'s question', () => {
  it('lists the question with its form, and accept --set sends typed values the server receives', async () => {
    const pending = book();
    const id = await questionId();
    const listed = await pincer('approvals');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${id}: the MCP server "asker" asks (for default's call): Which seat on flight PA9?`);
    expect(listed.stdout).toMatch(/^ {2}seat "Seat": one of window, aisle, required — Where you sit$/m);
    expect(listed.stdout).toMatch(/^ {2}count "Travellers": integer, 1 to 9, required, default 1$/m);

    const wrongType = await pincer('approvals', 'accept', id, '--set', 'count=two');
    expect(wrongType.code).toBe(2);
    expect(wrongType.stderr).toMatch(/count is a number, got "two"/);
    const wrongValue = await pincer('approvals', 'accept', id, '--set', 'seat=roof', '--set', 'count=2');
    expect(wrongValue.code).toBe(1);
    expect(wrongValue.stderr).toMatch(/"seat" must be one of "window", "aisle"/);

    const answered = await pincer('approvals', 'accept', id, '--set', 'seat=window', '--set', 'count=2', '--set', 'vip=yes');
    expect(answered.code).toBe(0);
    expect(answered.stdout).toMatch(/Answered the question of asker/);
    const envelope = await pending;
    expect(JSON.parse(envelope.result)).toEqual({ heard: { action: 'accept', content: { seat: 'window', count: 2, vip: true } } });
  });

  it('decline answers decline; allow on a question is refused naming accept and decline', async () => {
    const pending = book();
    const id = await questionId();
    const allow = await pincer('approvals', 'allow', id);
    expect(allow.code).toBe(1);
    expect(allow.stderr).toMatch(/decide with one of accept, decline/);
    expect((await pincer('approvals', 'decline', id)).code).toBe(0);
    expect(JSON.parse((await pending).result)).toEqual({ heard: { action: 'decline' } });
  });
});

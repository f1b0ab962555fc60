/**
 * A call's live row, built in one place (server/http/live-call.ts): the `call` event carries it, and GET /calls lists
 * every call with the same arguments line, so the dashboard shows a row alike whichever way its call arrived.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallPage, CallRecord } from '../../../server/contract/calls.js';
import { argumentsPreview, listedCall, liveCall } from '../../../server/http/live-call.js';
import { finishedCall } from '../../helpers/calls.js';
import { readJson, startGateway, type TestGateway } from '../../helpers/gateway.js';

describe('argumentsPreview', () => {
  it('no arguments: an empty line', () => {
    expect(argumentsPreview(null)).toBe('');
    expect(argumentsPreview(undefined)).toBe('');
    expect(argumentsPreview({})).toBe('');
  });

  it('a single argument shows its value alone', () => {
    expect(argumentsPreview({ command: 'ls -la' })).toBe('ls -la');
  });

  it('several arguments show as "name: value", joined by " · "', () => {
    expect(argumentsPreview({ command: 'ls -la', cwd: 'src' })).toBe('command: ls -la · cwd: src');
  });

  it('empty strings (schema defaults) are left out, even down to one argument', () => {
    expect(argumentsPreview({ command: 'ls', cwd: '', env: '' })).toBe('ls');
  });

  it('whitespace, newlines included, collapses to single spaces: the preview is one line', () => {
    expect(argumentsPreview({ command: 'echo a\n\t  b\r\nc' })).toBe('echo a b c');
    expect(argumentsPreview({ text: ' \n'.repeat(1000) + 'after the blanks', operation: 'uppercase' })).not.toMatch(/\n/);
  });

  it('numbers, booleans and null show as text', () => {
    expect(argumentsPreview({ n: 3, flag: true, none: null })).toBe('n: 3 · flag: true · none: null');
  });

  it('objects and arrays show as JSON', () => {
    expect(argumentsPreview({ paths: ['a', 'b'], opts: { x: 1 } })).toBe('paths: ["a","b"] · opts: {"x":1}');
  });

  it('a nested value over 80 characters is cut to 79 and an ellipsis', () => {
    const preview = argumentsPreview({ data: { text: 'x'.repeat(200) } });
    expect(preview).toHaveLength(80);
    expect(preview.endsWith('…')).toBe(true);
    expect(preview.startsWith('{"text":"xxx')).toBe(true);
  });

  it('the whole line is at most 240 characters, ending in an ellipsis when cut', () => {
    expect(argumentsPreview({ command: 'y'.repeat(1000) })).toBe(`${'y'.repeat(239)}…`);
    expect(argumentsPreview({ a: 'x'.repeat(100), b: 'y'.repeat(100), c: 'z'.repeat(100) })).toHaveLength(240);
  });

  it('a line of exactly 240 characters is not cut', () => {
    expect(argumentsPreview({ command: 'z'.repeat(240) })).toBe('z'.repeat(240));
  });

  it('top-level scalars and arrays are previewed too, within 240 characters', () => {
    expect(argumentsPreview('just text')).toBe('just text');
    expect(argumentsPreview(42)).toBe('42');
    expect(argumentsPreview(['a', 1])).toBe('["a",1]');
    expect(argumentsPreview('w'.repeat(500))).toHaveLength(240);
  });

  it('a megabyte of text still comes to one line of 240 characters', () => {
    expect(argumentsPreview({ text: `${'word '.repeat(200_000)}end` })).toBe(`${'word '.repeat(48).slice(0, 239)}…`);
  });

  it('HTML in arguments is returned as text, untouched (the page escapes it)', () => {
    expect(argumentsPreview({ command: 'echo <script>alert(1)</script>' })).toBe('echo <script>alert(1)</script>');
  });
});

describe('a call as a live row and as GET /calls lists it', () => {
  const record: CallRecord = {
    ...finishedCall('c_row_1', '2026-01-01T00:00:00.000Z', { tool: 'run_shell', status: 'failed', error: { name: 'COMMAND_FAILED', message: 'exit 2' } }),
    arguments: { command: 'ls -la', cwd: 'src' },
    result: { output: 'a\nb\n', exit_code: 0 },
    reason: 'r'.repeat(400),
  };

  it('the row carries the error name but not its message, nor the arguments or result', () => {
    const row = liveCall(record);
    expect(row).toMatchObject({ id: 'c_row_1', preview: 'command: ls -la · cwd: src', error: { name: 'COMMAND_FAILED' } });
    expect(row.error).not.toHaveProperty('message');
    expect(row).not.toHaveProperty('arguments');
    expect(row).not.toHaveProperty('result');
    expect(row.reason).toHaveLength(300);
  });

  it('the listed call is the whole record with the same line the row shows', () => {
    expect(listedCall(record)).toEqual({ ...record, preview: liveCall(record).preview });
  });
});

describe('GET /calls', () => {
  let s: TestGateway;
  beforeAll(async () => {
    s = await startGateway();
    s.gateway.store.calls.save(finishedCall('c_prev_00001', new Date(Date.now() - 60_000).toISOString(), { arguments: { command: 'ls -la', cwd: 'src' }, tool: 'run_shell' }));
    s.gateway.store.calls.save(finishedCall('c_prev_00002', new Date(Date.now() - 30_000).toISOString(), { arguments: { content: 'the owner keeps the door code here', tags: [] }, tool: 'remember' }));
  });
  afterAll(async () => {
    await s?.close();
  });

  it('lists each call with its live row\'s arguments line', async () => {
    const executed = await s.api('/tools/calculate/execute', { method: 'POST', json: { expression: '6 * 7' } });
    expect(executed.status).toBe(200);
    const page = (await readJson(await s.api('/calls'))) as CallPage;
    const byId = new Map(page.calls.map((c) => [c.id, c]));
    expect(byId.get('c_prev_00001')).toMatchObject({ arguments: { command: 'ls -la', cwd: 'src' }, preview: 'command: ls -la · cwd: src' });
    const calculated = page.calls.find((c) => c.tool === 'calculate');
    expect(calculated).toMatchObject({ preview: '6 * 7', result: { result: 42 } });
    for (const call of page.calls) expect(call.preview).toBe(argumentsPreview(call.arguments));
  });

  it('GET /calls/{id} answers the record as kept, without the line', async () => {
    const one = await readJson(await s.api('/calls/c_prev_00001'));
    expect(one).toMatchObject({ id: 'c_prev_00001', arguments: { command: 'ls -la', cwd: 'src' } });
    expect(one).not.toHaveProperty('preview');
  });

  it("another client's memory call lists with an empty line to a client limited to its own memories", async () => {
    const issued = await readJson(await s.asOwner('/clients', { json: { name: 'reader' } }));
    for (const [key, scope] of [['history', 'all'], ['memories', 'own']] as const) {
      expect((await s.asOwner(`/clients/reader/${key}`, { method: 'PUT', json: { scope } })).status).toBe(200);
    }
    const page = (await readJson(await s.api('/calls', { headers: { authorization: `Bearer ${issued.token as string}` } }))) as CallPage;
    const memory = page.calls.find((c) => c.id === 'c_prev_00002');
    expect(memory).toMatchObject({ arguments: null, preview: '' });
    expect(memory?.hidden).toBeTruthy();
    expect(JSON.stringify(page)).not.toContain('door code');
    expect(page.calls.find((c) => c.id === 'c_prev_00001')?.preview).toBe('command: ls -la · cwd: src');
  });
});

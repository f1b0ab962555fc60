import { describe, expect, it } from 'vitest';
import { argumentsPreview as dashboardPreview, toLiveCall } from '../../../renderer/src/lib/live-call.js';
import type { CallRecord } from '../../../renderer/src/lib/types.js';
import { argumentsPreview as gatewayPreview, liveCall } from '../../../server/http/live-call.js';

// The live row's arguments line is built by the gateway for `call` events and by the dashboard for calls it reads
// from GET /calls. A row must read the same whichever way its call arrived.

const ARGUMENTS: unknown[] = [
  null,
  undefined,
  {},
  { command: 'ls -la' },
  { command: 'ls -la', cwd: 'src' },
  { command: 'ls', cwd: '', env: '' },
  { command: 'echo a\n\t  b\r\nc' },
  { n: 3, flag: true, none: null },
  { paths: ['a', 'b'], opts: { x: 1 } },
  { data: { text: 'x'.repeat(200) } },
  { command: 'y'.repeat(1000) },
  { command: 'z'.repeat(240) },
  { text: `${'word '.repeat(100_000)}end` },
  { text: ' \n'.repeat(1000) + 'after the blanks', operation: 'uppercase' },
  { a: 'x'.repeat(100), b: 'y'.repeat(100), c: 'z'.repeat(100) },
  'just text',
  42,
  ['a', 1],
  'w'.repeat(500),
  { expression: '(1+2)*3' },
  { password: '[REDACTED]', user: 'ann' },
];

describe('the arguments line', () => {
  it('is the same from the gateway and the dashboard', () => {
    for (const args of ARGUMENTS) expect(gatewayPreview(args), JSON.stringify(args)?.slice(0, 60)).toBe(dashboardPreview(args));
  });

  it('is at most 240 characters', () => {
    for (const args of ARGUMENTS) expect(gatewayPreview(args).length).toBeLessThanOrEqual(240);
  });
});

describe('a record from GET /calls as a live row', () => {
  it('has the fields of a call event, with the same values', () => {
    const record: CallRecord = {
      id: 'c_1',
      tool: 'run_shell',
      client: 'default',
      via: 'http',
      arguments: { command: 'ls -la', cwd: 'src' },
      result: { output: 'a\nb\n', exit_code: 0 },
      status: 'failed',
      error: { name: 'COMMAND_FAILED', message: 'exit 2' },
      http_status: 200,
      decision: 'allow',
      rule: 'shell:read-only',
      reason: 'ls only reads.',
      cache_hit: false,
      started_at: '2026-01-01T00:00:00.000Z',
      finished_at: '2026-01-01T00:00:00.012Z',
      duration_ms: 12,
    };
    expect(toLiveCall(record)).toEqual(liveCall(record));
    expect(toLiveCall(record)).toMatchObject({ preview: 'command: ls -la · cwd: src', error: { name: 'COMMAND_FAILED' } });
    expect(toLiveCall(record)).not.toHaveProperty('result');
  });
});

import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../../../../renderer/src/lib/types.js';
import { describeDecision, splitTerminalResult, TERMINAL_FIELDS } from '../../../../renderer/src/views/live/describe.js';

function call(fields: Partial<CallRecord>): CallRecord {
  return {
    id: 'c_1',
    tool: 'run_shell',
    client: 'default',
    via: 'mcp',
    arguments: { command: 'ls' },
    result: null,
    status: 'succeeded',
    error: null,
    http_status: 200,
    decision: 'allow',
    rule: 'risk:safe',
    reason: 'Read-only command.',
    cache_hit: false,
    started_at: '2025-03-05T14:03:27.000Z',
    finished_at: '2025-03-05T14:03:27.120Z',
    duration_ms: 120,
    ...fields,
  };
}

const error = (name: string) => ({ name, message: `${name} happened` });

describe('describeDecision: allow and deny', () => {
  it('an allowed call shows the rule id as it is (risk:safe)', () => {
    expect(describeDecision(call({}))).toEqual({ text: 'allow · risk:safe', tone: 'allow', title: 'allow · risk:safe · Read-only command.' });
  });

  it('a standing rule "rule:r_12" reads "rule r_12"', () => {
    expect(describeDecision(call({ rule: 'rule:r_12' })).text).toBe('allow · rule r_12');
  });

  it('the title keeps the raw rule id', () => {
    expect(describeDecision(call({ rule: 'rule:r_12' })).title).toBe('allow · rule:r_12 · Read-only command.');
  });

  it('a denied call has the deny tone and its rule', () => {
    expect(describeDecision(call({ decision: 'deny', rule: 'shell:dangerous', status: 'denied', reason: 'Deletes files.' }))).toEqual({
      text: 'deny · shell:dangerous',
      tone: 'deny',
      title: 'deny · shell:dangerous · Deletes files.',
    });
  });

  it('a missing reason leaves no dangling separator in the title', () => {
    expect(describeDecision(call({ reason: null })).title).toBe('allow · risk:safe');
  });
});

describe('describeDecision: asked calls', () => {
  const asked = (fields: Partial<CallRecord>) => call({ decision: 'ask', rule: 'risk:dangerous', reason: 'Deletes files.', ...fields });

  it('a pending call waits for the owner', () => {
    expect(describeDecision(asked({ status: 'pending' }))).toEqual({
      text: 'ask → owner',
      tone: 'ask',
      title: 'Waiting for the owner. ask · risk:dangerous · Deletes files.',
    });
  });

  it('the owner denied it', () => {
    expect(describeDecision(asked({ status: 'denied', error: error('APPROVAL_DENIED') }))).toMatchObject({ text: 'ask → owner denied', tone: 'deny' });
  });

  it('no one answered in time', () => {
    expect(describeDecision(asked({ status: 'denied', error: error('APPROVAL_TIMEOUT') }))).toMatchObject({ text: 'ask → no answer', tone: 'deny' });
  });

  it('there was no one to ask', () => {
    expect(describeDecision(asked({ status: 'denied', error: error('APPROVAL_REQUIRED') }))).toMatchObject({ text: 'ask → no one to ask', tone: 'deny' });
  });

  it('a cancelled call was withdrawn, with no tone', () => {
    expect(describeDecision(asked({ status: 'cancelled' }))).toMatchObject({ text: 'ask → withdrawn', tone: 'none' });
  });

  it('an approval error wins over the cancelled status', () => {
    expect(describeDecision(asked({ status: 'cancelled', error: error('APPROVAL_TIMEOUT') })).text).toBe('ask → no answer');
  });

  it('pending wins over everything else', () => {
    expect(describeDecision(asked({ status: 'pending', error: error('APPROVAL_DENIED'), rule: 'approval:a_1' })).text).toBe('ask → owner');
  });

  it('allowed once: the rule is the approval', () => {
    expect(describeDecision(asked({ rule: 'approval:a_7' }))).toMatchObject({ text: 'ask → allowed once', tone: 'allow' });
  });

  it('allowed always: the rule is the new standing rule', () => {
    expect(describeDecision(asked({ rule: 'rule:r_9' }))).toMatchObject({ text: 'ask → always · rule r_9', tone: 'allow' });
  });

  it('any other asked call shows its rule with the ask tone', () => {
    expect(describeDecision(asked({ status: 'running' }))).toMatchObject({ text: 'ask · risk:dangerous', tone: 'ask' });
  });

  it('a failed tool run after an approval is still "allowed once" (the failure is not an approval error)', () => {
    expect(describeDecision(asked({ status: 'failed', rule: 'approval:a_7', error: error('TOOL_FAILED') })).text).toBe('ask → allowed once');
  });
});

describe('describeDecision: no decision', () => {
  it('a call refused before the policy ran names the error', () => {
    expect(describeDecision(call({ decision: null, rule: null, reason: null, status: 'failed', error: error('INVALID_ARGUMENTS') }))).toEqual({
      text: '—',
      tone: 'none',
      title: 'Refused before the policy ran (INVALID_ARGUMENTS).',
    });
  });

  it('a call with no decision and no error says so', () => {
    expect(describeDecision(call({ decision: null, rule: null, reason: null }))).toEqual({ text: '—', tone: 'none', title: 'No policy decision recorded.' });
  });

  it('an unknown decision is treated as none', () => {
    expect(describeDecision(call({ decision: 'maybe' })).tone).toBe('none');
  });
});

describe('splitTerminalResult', () => {
  it('the terminal fields are output, stdout and stderr', () => {
    expect([...TERMINAL_FIELDS]).toEqual(['output', 'stdout', 'stderr']);
  });

  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a string', 'output'],
    ['a number', 3],
    ['an array', [{ output: 'x' }]],
    ['an object with no terminal field', { exit_code: 0 }],
    ['an object whose terminal fields are not strings', { output: null, stdout: 3 }],
  ])('%s has no terminal: null', (_, result) => {
    expect(splitTerminalResult(result)).toBeNull();
  });

  it('a shell result: output as a stream, the other fields as the rest, output_plain dropped', () => {
    expect(splitTerminalResult({ output: '\x1b[32mok\x1b[0m\n', output_plain: 'ok\n', exit_code: 0, timed_out: false })).toEqual({
      streams: [{ name: 'output', text: '\x1b[32mok\x1b[0m\n' }],
      rest: { exit_code: 0, timed_out: false },
    });
  });

  it('stdout and stderr are both streams, in that order whatever the key order', () => {
    expect(splitTerminalResult({ stderr: 'warn', exit_code: 1, stdout: 'out' })).toEqual({
      streams: [
        { name: 'stdout', text: 'out' },
        { name: 'stderr', text: 'warn' },
      ],
      rest: { exit_code: 1 },
    });
  });

  it('an empty string is still a stream', () => {
    expect(splitTerminalResult({ stdout: '', stderr: 'x' })?.streams.map((s) => s.name)).toEqual(['stdout', 'stderr']);
  });

  it('a terminal field that is not a string stays in the rest rather than vanish', () => {
    expect(splitTerminalResult({ stdout: 'out', stderr: null, output: { lines: 2 } })).toEqual({
      streams: [{ name: 'stdout', text: 'out' }],
      rest: { stderr: null, output: { lines: 2 } },
    });
  });

  it('output_plain stays in the rest when output is not shown as a terminal', () => {
    expect(splitTerminalResult({ stdout: 'out', output_plain: 'plain' })?.rest).toEqual({ output_plain: 'plain' });
  });

  it('the result object itself is not changed', () => {
    const result = { output: 'x', output_plain: 'x', exit_code: 0 };
    splitTerminalResult(result);
    expect(result).toEqual({ output: 'x', output_plain: 'x', exit_code: 0 });
  });
});

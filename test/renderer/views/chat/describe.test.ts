import { describe, expect, it } from 'vitest';
import { describeRecovery, leftOutNote, offeredTitle, offerReason } from '../../../../renderer/src/views/chat/describe.js';

describe('describeRecovery', () => {
  it('says nothing of a clean native call', () => {
    expect(describeRecovery({})).toBeUndefined();
    expect(describeRecovery({ recovery: {} })).toBeUndefined();
  });

  it('marks a call recovered from text with its shape, and lists repairs and the name as written', () => {
    expect(describeRecovery({ recovered: true, recovery: { shape: 'hermes' } })).toEqual({ marker: 'recovered from text · hermes', notes: [] });
    expect(describeRecovery({ recovered: true, recovery: { shape: 'pythonic', repairs: ['json', 'coerced limit'], written_name: 'functions.read_file' } })).toEqual({
      marker: 'recovered from text · pythonic',
      notes: ['name written as “functions.read_file”', 'arguments repaired: json, coerced limit'],
    });
    expect(describeRecovery({ recovered: true })?.marker).toBe('recovered from text');
  });

  it('marks a native call whose arguments or name were mended', () => {
    expect(describeRecovery({ recovery: { repairs: ['unwrapped'] } })).toEqual({ marker: 'mended', notes: ['arguments repaired: unwrapped'] });
    expect(describeRecovery({ recovery: { written_name: 'readFile' } })?.notes).toEqual(['name written as “readFile”']);
  });
});

describe('leftOutNote', () => {
  const report = { estimated_tokens: 7000, num_ctx: 8192, limit: 8192, tools_offered: 12, tools_left_out: ['run_shell', 'memory_search', 'file_write'] };

  it('is nothing when no tool was left out, or there is no report', () => {
    expect(leftOutNote(undefined)).toBeUndefined();
    expect(leftOutNote({ ...report, tools_left_out: [] })).toBeUndefined();
  });

  it("names the tools, the window asked for and the limit", () => {
    expect(leftOutNote(report)).toBe("3 tools left out to fit the model's window (num_ctx 8192 of limit 8192): run_shell, memory_search, file_write");
    const { num_ctx: _default, ...noWindow } = report;
    expect(leftOutNote({ ...noWindow, tools_left_out: ['run_shell'] })).toBe("1 tool left out to fit the model's window (limit 8192): run_shell");
  });

  it('counts the names past the first six', () => {
    const many = Array.from({ length: 9 }, (_, i) => `tool_${i + 1}`);
    expect(leftOutNote({ ...report, tools_left_out: many })).toBe(
      "9 tools left out to fit the model's window (num_ctx 8192 of limit 8192): tool_1, tool_2, tool_3, tool_4, tool_5, tool_6… (+3 more)",
    );
  });
});

describe('tools offered', () => {
  it('says each reason in readable words', () => {
    expect(offerReason('relevant').words).toBe('relevant to your message');
    expect(offerReason('used').words).toBe('used earlier');
    expect(offerReason('found').words).toBe('found by search_tools');
    expect(offerReason('yours').words).toBe('yours');
    expect(offerReason('search').words).toBe('search');
    expect(offerReason('search').hint).toContain('search_tools');
  });

  it('names a reason it does not know as the gateway sent it', () => {
    expect(offerReason('pinned' as never)).toEqual({ words: 'pinned', hint: 'pinned' });
  });

  it('counts the tools offered, and has no line when every tool was offered', () => {
    expect(offeredTitle(undefined)).toBeUndefined();
    expect(offeredTitle([{ name: 'search_tools', why: 'search' }])).toBe('Offered 1 tool this turn');
    expect(
      offeredTitle([
        { name: 'read_file', why: 'relevant' },
        { name: 'search_tools', why: 'search' },
      ]),
    ).toBe('Offered 2 tools this turn');
  });
});

import { describe, expect, it } from 'vitest';
import { callsOf, recover } from './recover-helpers.js';

describe('qwen3-coder shape', () => {
  it('reads one call with raw-text values, trimming the template newlines only', () => {
    const r = recover('<tool_call>\n<function=get_time>\n<parameter=timezone>\nAsia/Tokyo\n</parameter>\n</function>\n</tool_call>');
    expect(r.calls).toEqual([{ name: 'get_time', arguments: { timezone: 'Asia/Tokyo' }, shape: 'qwen3-coder' }]);
    expect(r.text).toBe('');
  });

  it('keeps every value as the text written, JSON-looking or not (the schema decides what it becomes)', () => {
    const r = recover(
      '<tool_call>\n<function=search_files>\n<parameter=pattern>\n*.ts\n</parameter>\n<parameter=limit>\n20\n</parameter>\n<parameter=recursive>\ntrue\n</parameter>\n<parameter=options>\n{"hidden": false}\n</parameter>\n<parameter=roots>\n["src", "test"]\n</parameter>\n</function>\n</tool_call>',
    );
    expect(callsOf(r)).toEqual([['search_files', { pattern: '*.ts', limit: '20', recursive: 'true', options: '{"hidden": false}', roots: '["src", "test"]' }]]);
  });

  it('keeps multi-line values, with their inner newlines and quotes', () => {
    const r = recover('<tool_call>\n<function=write_file>\n<parameter=path>\nnotes.md\n</parameter>\n<parameter=content>\n# Café\n\nSay "hi" — ok\n\n</parameter>\n</function>\n</tool_call>');
    expect(callsOf(r)).toEqual([['write_file', { path: 'notes.md', content: '# Café\n\nSay "hi" — ok\n' }]]);
  });

  it('reads several calls with prose before and after', () => {
    const r = recover(
      'I will run two tools.\n<tool_call>\n<function=get_time>\n<parameter=timezone>\nUTC\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=calculate>\n<parameter=expression>\n2+2\n</parameter>\n</function>\n</tool_call>\nThen I will answer.',
    );
    expect(callsOf(r)).toEqual([
      ['get_time', { timezone: 'UTC' }],
      ['calculate', { expression: '2+2' }],
    ]);
    expect(r.text).toBe('I will run two tools.\nThen I will answer.');
  });

  it('tolerates a missing </parameter> and a missing </tool_call> at the end', () => {
    const r = recover('<tool_call>\n<function=get_time>\n<parameter=timezone>\nUTC\n</function>');
    expect(callsOf(r)).toEqual([['get_time', { timezone: 'UTC' }]]);
  });

  it('reads a call without parameters, and a functions. prefix', () => {
    const r = recover('<tool_call>\n<function=functions.get_time>\n</function>\n</tool_call>');
    expect(r.calls).toEqual([{ name: 'get_time', writtenName: 'functions.get_time', arguments: {}, shape: 'qwen3-coder' }]);
  });

  it('reads a bare <function=…> block whose <tool_call> wrapper was dropped', () => {
    const r = recover('<function=get_time>\n<parameter=timezone>\nUTC\n</parameter>\n</function>');
    expect(r.calls.map((c) => c.shape)).toEqual(['qwen3-coder']);
  });

  it('keeps a broken JSON object value as written', () => {
    const r = recover('<tool_call>\n<function=search_files>\n<parameter=options>\n{"hidden": false,}\n</parameter>\n</function>\n</tool_call>');
    expect(callsOf(r)).toEqual([['search_files', { options: '{"hidden": false,}' }]]);
  });

  it('leaves a block naming an unoffered tool as text', () => {
    const text = '<tool_call>\n<function=shell>\n<parameter=cmd>\nls\n</parameter>\n</function>\n</tool_call>';
    expect(recover(text)).toEqual({ calls: [], text });
  });

  it('refuses a "__proto__" parameter', () => {
    const text = '<tool_call>\n<function=get_time>\n<parameter=__proto__>\n{"x": 1}\n</parameter>\n</function>\n</tool_call>';
    expect(recover(text).calls).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { callsOf, recover } from './recover-helpers.js';

describe('glm shape', () => {
  it('reads one call', () => {
    const r = recover('<tool_call>get_time\n<arg_key>timezone</arg_key>\n<arg_value>Asia/Tokyo</arg_value>\n</tool_call>');
    expect(r.calls).toEqual([{ name: 'get_time', arguments: { timezone: 'Asia/Tokyo' }, shape: 'glm' }]);
    expect(r.text).toBe('');
  });

  it('reads several pairs, each value the text written (the schema decides what it becomes)', () => {
    const r = recover(
      '<tool_call>search_files\n<arg_key>pattern</arg_key>\n<arg_value>*.md</arg_value>\n<arg_key>limit</arg_key>\n<arg_value>5</arg_value>\n<arg_key>roots</arg_key>\n<arg_value>["docs"]</arg_value>\n<arg_key>options</arg_key>\n<arg_value>{"hidden": true}</arg_value>\n</tool_call>',
    );
    expect(callsOf(r)).toEqual([['search_files', { pattern: '*.md', limit: '5', roots: '["docs"]', options: '{"hidden": true}' }]]);
  });

  it('reads a call without arguments', () => {
    expect(callsOf(recover('<tool_call>get_time</tool_call>'))).toEqual([['get_time', {}]]);
  });

  it('reads several calls with prose around them, and a functions. prefix', () => {
    const r = recover(
      'Checking both.\n<tool_call>functions.get_time\n<arg_key>timezone</arg_key>\n<arg_value>UTC</arg_value>\n</tool_call>\n<tool_call>calculate\n<arg_key>expression</arg_key>\n<arg_value>"quoted" × 2</arg_value>\n</tool_call>\nDone soon.',
    );
    expect(r.calls).toEqual([
      { name: 'get_time', writtenName: 'functions.get_time', arguments: { timezone: 'UTC' }, shape: 'glm' },
      { name: 'calculate', arguments: { expression: '"quoted" × 2' }, shape: 'glm' },
    ]);
    expect(r.text).toBe('Checking both.\nDone soon.');
  });

  it('keeps a broken JSON value as written', () => {
    const r = recover('<tool_call>search_files\n<arg_key>options</arg_key>\n<arg_value>{\'hidden\': true}</arg_value>\n</tool_call>');
    expect(callsOf(r)).toEqual([['search_files', { options: "{'hidden': true}" }]]);
  });

  it('leaves an unoffered tool as text, and a lone name at the end of a reply', () => {
    const unoffered = '<tool_call>shell\n<arg_key>cmd</arg_key>\n<arg_value>ls</arg_value>\n</tool_call>';
    expect(recover(unoffered)).toEqual({ calls: [], text: unoffered });
    expect(recover('The tag is <tool_call>get_time').calls).toEqual([]);
  });

  it('does not claim Hermes or Qwen3-Coder blocks, nor they its', () => {
    const hermes = recover('<tool_call>{"name": "get_time", "arguments": {}}</tool_call>');
    const coder = recover('<tool_call><function=get_time></function></tool_call>');
    const glm = recover('<tool_call>get_time\n<arg_key>timezone</arg_key>\n<arg_value>UTC</arg_value>\n</tool_call>');
    expect([hermes, coder, glm].map((r) => r.calls.map((c) => c.shape))).toEqual([['hermes'], ['qwen3-coder'], ['glm']]);
  });
});

import { describe, expect, it } from 'vitest';
import { callsOf, recover } from './recover-helpers.js';

describe('hermes shape', () => {
  it('reads one call and leaves no text', () => {
    const r = recover('<tool_call>\n{"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}\n</tool_call>');
    expect(r.calls).toEqual([{ name: 'get_time', arguments: { timezone: 'Asia/Tokyo' }, shape: 'hermes' }]);
    expect(r.text).toBe('');
  });

  it('reads several blocks one after the other, keeping the prose around them', () => {
    const r = recover(
      'Let me look that up.\n\n<tool_call>\n{"name": "get_time", "arguments": {"timezone": "Europe/Paris"}}\n</tool_call>\n<tool_call>\n{"name": "calculate", "arguments": {"expression": "6*7"}}\n</tool_call>\n\nOne moment.',
    );
    expect(callsOf(r)).toEqual([
      ['get_time', { timezone: 'Europe/Paris' }],
      ['calculate', { expression: '6*7' }],
    ]);
    expect(r.text).toBe('Let me look that up.\n\nOne moment.');
  });

  it('tolerates a reply that ends before </tool_call>, and "parameters"', () => {
    const r = recover('Checking.\n<tool_call>\n{"name": "get_time", "parameters": {"timezone": "UTC"}}\n');
    expect(callsOf(r)).toEqual([['get_time', { timezone: 'UTC' }]]);
    expect(r.text).toBe('Checking.');
  });

  it('keeps broken arguments as written but still finds the name', () => {
    const trailing = recover('<tool_call>\n{"name": "get_time", "arguments": {"timezone": "UTC",}}\n</tool_call>');
    expect(callsOf(trailing)).toEqual([['get_time', '{"timezone": "UTC",}']]);
    const single = recover("<tool_call>\n{'name': 'calculate', 'arguments': {'expression': '1+1'}}\n</tool_call>");
    expect(callsOf(single)).toEqual([['calculate', "{'expression': '1+1'}"]]);
  });

  it('reads arguments written as a JSON string', () => {
    const r = recover('<tool_call>{"name": "get_time", "arguments": "{\\"timezone\\": \\"UTC\\"}"}</tool_call>');
    expect(callsOf(r)).toEqual([['get_time', { timezone: 'UTC' }]]);
  });

  it('resolves a functions. prefix and records the written name', () => {
    const r = recover('<tool_call>\n{"name": "functions.get_time", "arguments": {}}\n</tool_call>');
    expect(r.calls).toEqual([{ name: 'get_time', writtenName: 'functions.get_time', arguments: {}, shape: 'hermes' }]);
  });

  it('keeps unicode and escaped quotes in values', () => {
    const r = recover('<tool_call>\n{"name": "write_file", "arguments": {"path": "メモ.txt", "content": "She said \\"hi\\" 👋 </tool_call>"}}\n</tool_call>');
    expect(callsOf(r)).toEqual([['write_file', { path: 'メモ.txt', content: 'She said "hi" 👋 </tool_call>' }]]);
    expect(r.text).toBe('');
  });

  it('reads a JSON list of calls in one block, and the plural <tool_calls> wrapper', () => {
    const block = recover(
      'Both at once.\n<tool_call>\n[{"name": "get_time", "arguments": {"timezone": "UTC"}}, {"name": "calculate", "arguments": {"expression": "2*3"}}]\n</tool_call>',
    );
    expect(block.calls).toEqual([
      { name: 'get_time', arguments: { timezone: 'UTC' }, shape: 'hermes' },
      { name: 'calculate', arguments: { expression: '2*3' }, shape: 'hermes' },
    ]);
    expect(block.text).toBe('Both at once.');
    expect(callsOf(recover('<tool_call>[{"name": "get_time", "arguments": {}}]'))).toEqual([['get_time', {}]]);
    const plural = recover('<tool_calls>[{"name": "get_time", "arguments": {}}]</tool_calls> Done.');
    expect(plural).toEqual({ calls: [{ name: 'get_time', arguments: {}, shape: 'hermes' }], text: 'Done.' });
    const mixed = '<tool_call>\n[{"name": "get_time", "arguments": {}}, {"name": "rm", "arguments": {}}]\n</tool_call>';
    expect(recover(mixed)).toEqual({ calls: [], text: mixed });
  });

  it('reads a call without arguments', () => {
    expect(callsOf(recover('<tool_call>{"name": "get_time"}</tool_call>'))).toEqual([['get_time', {}]]);
  });

  it('leaves a block without a readable name as text', () => {
    for (const text of ['<tool_call>\n{"arguments": {"timezone": "UTC"}}\n</tool_call>', '<tool_call>\n{"name": get_time, "arguments": {}}\n</tool_call>']) {
      expect(recover(text)).toEqual({ calls: [], text });
    }
  });

  it('leaves a block naming an unoffered tool as text, whole', () => {
    const text = 'Sure.\n<tool_call>\n{"name": "delete_everything", "arguments": {}}\n</tool_call>';
    expect(recover(text)).toEqual({ calls: [], text });
  });

  it('leaves a block as text when one of its calls names an unoffered tool', () => {
    const text = '<tool_call>\n{"name": "get_time", "arguments": {}}\n{"name": "rm", "arguments": {}}\n</tool_call>';
    expect(recover(text).calls).toEqual([]);
  });

  it('refuses a "__proto__" key in the arguments (kept as text for repair to refuse)', () => {
    const r = recover('<tool_call>{"name": "get_time", "arguments": {"__proto__": {"polluted": true}}}</tool_call>');
    expect(callsOf(r)).toEqual([['get_time', '{"__proto__": {"polluted": true}}']]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

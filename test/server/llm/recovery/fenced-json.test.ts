import { describe, expect, it } from 'vitest';
import { callsOf, recover } from './recover-helpers.js';

describe('fenced-json shape', () => {
  it('reads a call in a json fence', () => {
    const r = recover('```json\n{"name": "get_time", "arguments": {"timezone": "UTC"}}\n```');
    expect(r.calls).toEqual([{ name: 'get_time', arguments: { timezone: 'UTC' }, shape: 'fenced-json' }]);
    expect(r.text).toBe('');
  });

  it('reads "parameters", an untagged fence, and prose around it', () => {
    const r = recover('To answer, I will call:\n\n```\n{"name": "calculate", "parameters": {"expression": "0.1 + 0.2"}}\n```\n\nand then explain.');
    expect(callsOf(r)).toEqual([['calculate', { expression: '0.1 + 0.2' }]]);
    expect(r.text).toBe('To answer, I will call:\n\nand then explain.');
  });

  it('reads a JSON list of calls, and several fences', () => {
    const r = recover(
      '```json\n[\n  {"name": "get_time", "arguments": {"timezone": "UTC"}},\n  {"name": "calculate", "arguments": {"expression": "8/2"}}\n]\n```\n```json\n{"name": "search_files", "arguments": {"pattern": "*.pdf"}}\n```',
    );
    expect(callsOf(r)).toEqual([
      ['get_time', { timezone: 'UTC' }],
      ['calculate', { expression: '8/2' }],
      ['search_files', { pattern: '*.pdf' }],
    ]);
    expect(r.text).toBe('');
  });

  it('reads a call or a list in a tool_call / tool_calls fence', () => {
    const r = recover('Calling it.\n```tool_call\n{"name": "get_time", "arguments": {"timezone": "UTC"}}\n```');
    expect(r).toEqual({ calls: [{ name: 'get_time', arguments: { timezone: 'UTC' }, shape: 'fenced-json' }], text: 'Calling it.' });
    const list = recover('```tool_calls\n[{"name": "get_time", "arguments": {}}, {"name": "calculate", "arguments": {"expression": "2"}}]\n```');
    expect(callsOf(list)).toEqual([
      ['get_time', {}],
      ['calculate', { expression: '2' }],
    ]);
    expect(list.text).toBe('');
    const text = '```tool_call\n{"name": "rm_rf", "arguments": {}}\n```';
    expect(recover(text)).toEqual({ calls: [], text });
  });

  it('keeps broken arguments as written; resolves functions.; keeps unicode and escaped quotes', () => {
    expect(callsOf(recover('```json\n{"name": "calculate", "arguments": {"expression": "5*5",}}\n```'))).toEqual([['calculate', '{"expression": "5*5",}']]);
    expect(callsOf(recover("```json\n{'name': 'get_time', 'arguments': {'timezone': 'UTC'}}\n```"))).toEqual([['get_time', "{'timezone': 'UTC'}"]]);
    const r = recover('```json\n{"name": "functions.write_file", "arguments": {"path": "à.txt", "content": "say \\"yes\\" ✔"}}\n```');
    expect(r.calls).toEqual([{ name: 'write_file', writtenName: 'functions.write_file', arguments: { path: 'à.txt', content: 'say "yes" ✔' }, shape: 'fenced-json' }]);
  });

  it('leaves JSON examples, python fences, non-call lists and unoffered tools as text', () => {
    for (const text of [
      'Here is the JSON you asked for:\n```json\n{"name": "Alice", "age": 3}\n```',
      'Example:\n```json\n{"name": "get_time", "description": "Returns the time"}\n```',
      '```json\n[1, 2, 3]\n```',
      '```python\nimport json\nprint(json.dumps({"name": "get_time", "arguments": {}}))\n```',
      '```json\n{"name": "delete_repo", "arguments": {"repo": "x"}}\n```',
      '```json\n[{"name": "get_time", "arguments": {}}, {"name": "delete_repo", "arguments": {}}]\n```',
    ]) {
      expect(recover(text)).toEqual({ calls: [], text });
    }
  });
});

describe('openai-text shape', () => {
  it('reads tool_calls with string arguments', () => {
    const r = recover('{"tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_time", "arguments": "{\\"timezone\\": \\"UTC\\"}"}}]}');
    expect(r.calls).toEqual([{ name: 'get_time', arguments: { timezone: 'UTC' }, shape: 'openai-text' }]);
    expect(r.text).toBe('');
  });

  it('reads several calls with object arguments, pretty-printed, in a fence, with prose', () => {
    const r = recover(
      'Calling tools:\n```json\n{\n  "tool_calls": [\n    {"id": "a", "type": "function", "function": {"name": "get_time", "arguments": {"timezone": "Africa/Cairo"}}},\n    {"id": "b", "type": "function", "function": {"name": "functions.calculate", "arguments": "{}"}}\n  ]\n}\n```\nDone.',
    );
    expect(r.calls).toEqual([
      { name: 'get_time', arguments: { timezone: 'Africa/Cairo' }, shape: 'openai-text' },
      { name: 'calculate', writtenName: 'functions.calculate', arguments: {}, shape: 'openai-text' },
    ]);
    expect(r.text).toBe('Calling tools:\nDone.');
  });

  it('reads flat items without the function wrapper', () => {
    const r = recover('{"tool_calls": [{"name": "get_time", "arguments": {"timezone": "UTC"}}, {"id": "c2", "name": "calculate", "arguments": "{\\"expression\\": \\"1\\"}"}]}');
    expect(r.calls).toEqual([
      { name: 'get_time', arguments: { timezone: 'UTC' }, shape: 'openai-text' },
      { name: 'calculate', arguments: { expression: '1' }, shape: 'openai-text' },
    ]);
    expect(r.text).toBe('');
    expect(callsOf(recover('Calling: {"tool_calls": [{"name": "calculate", "arguments": {"expression": "1+1",}}]} now.'))).toEqual([['calculate', '{"expression": "1+1",}']]);
  });

  it('reads a whole assistant message', () => {
    const r = recover('{"role": "assistant", "content": null, "tool_calls": [{"type": "function", "function": {"name": "get_time", "arguments": "{}"}}]}');
    expect(callsOf(r)).toEqual([['get_time', {}]]);
  });

  it('keeps broken arguments as written, in a string or an object', () => {
    expect(callsOf(recover('{"tool_calls": [{"function": {"name": "calculate", "arguments": "{\\"expression\\": \\"1+1\\",}"}}]}'))).toEqual([['calculate', '{"expression": "1+1",}']]);
    expect(callsOf(recover('{"tool_calls": [{"function": {"name": "calculate", "arguments": {"expression": "1+1",}}}]}'))).toEqual([['calculate', '{"expression": "1+1",}']]);
  });

  it('keeps unicode and escaped quotes', () => {
    const r = recover('{"tool_calls": [{"function": {"name": "write_file", "arguments": "{\\"path\\": \\"한글.txt\\", \\"content\\": \\"\\\\\\"q\\\\\\"\\"}"}}]}');
    expect(callsOf(r)).toEqual([['write_file', { path: '한글.txt', content: '"q"' }]]);
  });

  it('leaves unoffered tools and empty lists as text', () => {
    for (const text of [
      '{"tool_calls": [{"function": {"name": "sudo", "arguments": "{}"}}]}',
      '{"tool_calls": [{"name": "sudo", "arguments": {}}]}',
      '{"tool_calls": [{"name": "get_time", "arguments": {}}, {"name": "sudo", "arguments": {}}]}',
      '{"tool_calls": []}',
    ]) {
      expect(recover(text)).toEqual({ calls: [], text });
    }
  });
});

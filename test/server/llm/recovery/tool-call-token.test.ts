import { describe, expect, it } from 'vitest';
import { callsOf, recover } from './recover-helpers.js';

describe('tool-call-token shape (Phi-4-mini, Granite)', () => {
  it('reads a JSON list between <|tool_call|> and <|/tool_call|>', () => {
    const r = recover('<|tool_call|>[{"name": "get_time", "arguments": {"timezone": "UTC"}}]<|/tool_call|>');
    expect(r).toEqual({ calls: [{ name: 'get_time', arguments: { timezone: 'UTC' }, shape: 'tool-call-token' }], text: '' });
  });

  it('reads several calls, prose around, "parameters" and the "type": "function" item', () => {
    const r = recover(
      'Let me check.\n<|tool_call|>[{"type": "function", "name": "get_time", "parameters": {"timezone": "Asia/Tokyo"}}, {"name": "functions.calculate", "arguments": {"expression": "7*6"}}]<|/tool_call|>\nOne moment.',
    );
    expect(r.calls).toEqual([
      { name: 'get_time', arguments: { timezone: 'Asia/Tokyo' }, shape: 'tool-call-token' },
      { name: 'calculate', writtenName: 'functions.calculate', arguments: { expression: '7*6' }, shape: 'tool-call-token' },
    ]);
    expect(r.text).toBe('Let me check.\nOne moment.');
  });

  it('tolerates a missing closing token, and a single object for the list', () => {
    expect(callsOf(recover('<|tool_call|>[{"name": "get_time", "arguments": {}}]'))).toEqual([['get_time', {}]]);
    expect(callsOf(recover('<|tool_call|> {"name": "get_time", "arguments": {"timezone": "UTC"}}\n'))).toEqual([['get_time', { timezone: 'UTC' }]]);
  });

  it('keeps broken arguments as written', () => {
    expect(callsOf(recover('<|tool_call|>{"name": "calculate", "arguments": {"expression": "1/3",}}<|/tool_call|>'))).toEqual([['calculate', '{"expression": "1/3",}']]);
  });

  it('leaves unoffered tools, a lone token and a list of data as text', () => {
    for (const text of [
      '<|tool_call|>[{"name": "shutdown", "arguments": {}}]<|/tool_call|>',
      '<|tool_call|>[{"name": "get_time", "arguments": {}}, {"name": "shutdown", "arguments": {}}]',
      'The <|tool_call|> token opens a call.',
      '<|tool_call|>[1, 2, 3]<|/tool_call|>',
    ]) {
      expect(recover(text)).toEqual({ calls: [], text });
    }
  });
});

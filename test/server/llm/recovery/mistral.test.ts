import { describe, expect, it } from 'vitest';
import { callsOf, recover } from './recover-helpers.js';

describe('mistral shape', () => {
  it('reads the JSON list after [TOOL_CALLS]', () => {
    const r = recover('[TOOL_CALLS][{"name": "get_time", "arguments": {"timezone": "UTC"}}]');
    expect(r.calls).toEqual([{ name: 'get_time', arguments: { timezone: 'UTC' }, shape: 'mistral' }]);
    expect(r.text).toBe('');
  });

  it('reads several calls with ids, prose before and an end token after', () => {
    const r = recover(
      'Let me check.[TOOL_CALLS][{"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}, "id": "Ab3dE6gH9"}, {"name": "calculate", "arguments": {"expression": "9 ** 2"}, "id": "Zx8yW7vU6"}]</s>',
    );
    expect(callsOf(r)).toEqual([
      ['get_time', { timezone: 'Asia/Tokyo' }],
      ['calculate', { expression: '9 ** 2' }],
    ]);
    expect(r.text).toBe('Let me check.');
  });

  it('reads the v11 shape, several calls each after its own [TOOL_CALLS]', () => {
    const r = recover('[TOOL_CALLS]get_time[ARGS]{"timezone": "UTC"}[TOOL_CALLS]calculate[ARGS]{"expression": "3 + 4"}');
    expect(callsOf(r)).toEqual([
      ['get_time', { timezone: 'UTC' }],
      ['calculate', { expression: '3 + 4' }],
    ]);
    expect(r.text).toBe('');
  });

  it('reads the shape with [CALL_ID] before [ARGS]', () => {
    expect(callsOf(recover('[TOOL_CALLS]get_time[CALL_ID]a1b2c3d4e[ARGS]{"timezone": "UTC"}'))).toEqual([['get_time', { timezone: 'UTC' }]]);
  });

  it('reads the shape without [ARGS], the object right after the name', () => {
    expect(recover('[TOOL_CALLS]get_time{"timezone": "UTC"}')).toEqual({ calls: [{ name: 'get_time', arguments: { timezone: 'UTC' }, shape: 'mistral' }], text: '' });
    const r = recover('Checking.[TOOL_CALLS]get_time {"timezone": "UTC"}[TOOL_CALLS]calculate{"expression": "3 + 4"}</s>');
    expect(callsOf(r)).toEqual([
      ['get_time', { timezone: 'UTC' }],
      ['calculate', { expression: '3 + 4' }],
    ]);
    expect(r.text).toBe('Checking.');
  });

  it('keeps broken arguments as written, in both shapes', () => {
    expect(callsOf(recover('[TOOL_CALLS][{"name": "calculate", "arguments": {"expression": "2*3",}}]'))).toEqual([['calculate', '{"expression": "2*3",}']]);
    expect(callsOf(recover("[TOOL_CALLS]calculate[ARGS]{'expression': '2*3'}"))).toEqual([['calculate', "{'expression': '2*3'}"]]);
    expect(callsOf(recover('[TOOL_CALLS]calculate[ARGS]{"expression": "2*3"'))).toEqual([['calculate', '{"expression": "2*3"']]);
  });

  it('resolves functions. and keeps unicode and escaped quotes', () => {
    const r = recover('[TOOL_CALLS]functions.write_file[ARGS]{"path": "résumé.md", "content": "\\"quoted\\" ✓"}');
    expect(r.calls).toEqual([{ name: 'write_file', writtenName: 'functions.write_file', arguments: { path: 'résumé.md', content: '"quoted" ✓' }, shape: 'mistral' }]);
  });

  it('leaves unoffered tools and a lone token as text', () => {
    for (const text of ['[TOOL_CALLS][{"name": "wipe", "arguments": {}}]', '[TOOL_CALLS]wipe[ARGS]{}', '[TOOL_CALLS]wipe{}', 'The [TOOL_CALLS] token and {braces}.', 'The token is [TOOL_CALLS] and it starts calls.']) {
      expect(recover(text)).toEqual({ calls: [], text });
    }
  });
});

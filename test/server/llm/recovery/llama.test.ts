import { describe, expect, it } from 'vitest';
import { callsOf, recover } from './recover-helpers.js';

describe('llama-json shape', () => {
  it('reads an object that is the whole reply', () => {
    const r = recover('{"name": "get_time", "parameters": {"timezone": "America/New_York"}}');
    expect(r.calls).toEqual([{ name: 'get_time', arguments: { timezone: 'America/New_York' }, shape: 'llama-json' }]);
    expect(r.text).toBe('');
  });

  it('reads "arguments", the "type": "function" variant, and several objects split by ; or lines', () => {
    const r = recover(
      '{"type": "function", "name": "get_time", "parameters": {"timezone": "UTC"}}; {"name": "calculate", "arguments": {"expression": "3*3"}}\n{"name": "search_files", "parameters": {"pattern": "*.log"}}',
    );
    expect(callsOf(r)).toEqual([
      ['get_time', { timezone: 'UTC' }],
      ['calculate', { expression: '3*3' }],
      ['search_files', { pattern: '*.log' }],
    ]);
    expect(r.text).toBe('');
  });

  it('reads an object on its own lines amid prose, pretty-printed', () => {
    const r = recover('I need the time first.\n{\n  "name": "get_time",\n  "parameters": {"timezone": "Europe/Berlin"}\n}\nThen I can answer.');
    expect(callsOf(r)).toEqual([['get_time', { timezone: 'Europe/Berlin' }]]);
    expect(r.text).toBe('I need the time first.\nThen I can answer.');
  });

  it('keeps broken arguments as written', () => {
    const r = recover('{"name": "calculate", "parameters": {"expression": "1/3",}}');
    expect(callsOf(r)).toEqual([['calculate', '{"expression": "1/3",}']]);
    const quotes = recover("{'name': 'get_time', 'parameters': {'timezone': 'UTC'}}");
    expect(callsOf(quotes)).toEqual([['get_time', "{'timezone': 'UTC'}"]]);
  });

  it('resolves a functions. prefix; keeps unicode and escaped quotes', () => {
    const r = recover('{"name": "functions.write_file", "parameters": {"path": "a.txt", "content": "\\"Grüße\\" 🌍"}}');
    expect(r.calls).toEqual([{ name: 'write_file', writtenName: 'functions.write_file', arguments: { path: 'a.txt', content: '"Grüße" 🌍' }, shape: 'llama-json' }]);
  });

  it('leaves an object without arguments key, a tool declaration, or naming an unoffered tool as text', () => {
    for (const text of [
      '{"name": "get_time"}',
      '{"name": "reboot", "parameters": {}}',
      '{"name": "Alice", "age": 3}',
      '{"name": "Alice", "arguments": {"age": 3}}',
      'Use {braces} for sets, like {1, 2}.',
      'Here is an example tool definition: {"name": "get_time", "description": "Returns the time.", "parameters": {"type": "object", "properties": {"timezone": {"type": "string"}}}}',
      'A declaration without a description: {"name": "get_time", "parameters": {"type": "object", "properties": {}}} is a schema.',
      'Data: {"user": {"name": "get_time", "arguments": {}}} nested in a record.',
      'Example:\n```python\nprint(json.dumps({"name": "get_time", "arguments": {}}))\n```',
    ]) {
      expect(recover(text)).toEqual({ calls: [], text });
    }
  });

  it('reads an object after prose on the same line, with prose after it too', () => {
    const sure = recover('Sure! {"name": "get_time", "parameters": {"timezone": "Asia/Tokyo"}}');
    expect(sure).toEqual({ calls: [{ name: 'get_time', arguments: { timezone: 'Asia/Tokyo' }, shape: 'llama-json' }], text: 'Sure!' });
    const around = recover('Let me check: {"name": "calculate", "arguments": {"expression": "2+2"}} and then I\'ll answer.');
    expect(callsOf(around)).toEqual([['calculate', { expression: '2+2' }]]);
    expect(around.text).toBe("Let me check: and then I'll answer.");
    const like = recover('Call it like {"name": "get_time", "parameters": {}} and see.');
    expect(callsOf(like)).toEqual([['get_time', {}]]);
  });

  it('reads a JSON list of calls, at a line start or after prose', () => {
    const list = '[{"name": "get_time", "arguments": {"timezone": "UTC"}}, {"name": "calculate", "arguments": {"expression": "1+1"}}]';
    for (const [text, prose] of [
      [list, ''],
      [`On it: ${list}`, 'On it:'],
      [`On it:\n${list}\nDone.`, 'On it:\nDone.'],
    ] as const) {
      const r = recover(text);
      expect(r.calls.map((c) => [c.name, c.arguments, c.shape])).toEqual([
        ['get_time', { timezone: 'UTC' }, 'llama-json'],
        ['calculate', { expression: '1+1' }, 'llama-json'],
      ]);
      expect(r.text).toBe(prose);
    }
    // One item that is not a call keeps the whole list as text, and its objects with it.
    for (const text of ['[{"name": "get_time", "arguments": {}}, {"name": "Alice", "age": 3}]', 'See [{"name": "get_time", "arguments": {}}, 42].']) {
      expect(recover(text)).toEqual({ calls: [], text });
    }
  });

  it('takes a trailing Llama end token with the call', () => {
    const r = recover('{"name": "get_time", "parameters": {"timezone": "UTC"}}<|eot_id|>');
    expect(r).toEqual({ calls: [{ name: 'get_time', arguments: { timezone: 'UTC' }, shape: 'llama-json' }], text: '' });
  });

  it('leaves a whole ;-chain as text when one object is not a call', () => {
    expect(recover('{"name": "get_time", "parameters": {}}; {"name": "Alice", "age": 3}').calls).toEqual([]);
  });
});

describe('llama-python-tag shape', () => {
  it('reads a JSON call after the tag and strips the end token', () => {
    const r = recover('<|python_tag|>{"name": "get_time", "parameters": {"timezone": "UTC"}}<|eom_id|>');
    expect(r.calls).toEqual([{ name: 'get_time', arguments: { timezone: 'UTC' }, shape: 'llama-python-tag' }]);
    expect(r.text).toBe('');
  });

  it('reads several JSON calls separated by ;, ending at <|eot_id|>, with prose before', () => {
    const r = recover('Let me check.\n<|python_tag|>{"name": "get_time", "parameters": {}}; {"name": "calculate", "parameters": {"expression": "-4.5 * 2"}}<|eot_id|>');
    expect(callsOf(r)).toEqual([
      ['get_time', {}],
      ['calculate', { expression: '-4.5 * 2' }],
    ]);
    expect(r.text).toBe('Let me check.');
  });

  it('reads a pythonic call after the tag, to the end of the text', () => {
    const r = recover('<|python_tag|>get_time(timezone="UTC")');
    expect(callsOf(r)).toEqual([['get_time', { timezone: 'UTC' }]]);
  });

  it('keeps broken JSON arguments as written, and resolves functions.', () => {
    const r = recover('<|python_tag|>{"name": "functions.calculate", "parameters": {"expression": \'2+2\'}}<|eom_id|>');
    expect(r.calls).toEqual([{ name: 'calculate', writtenName: 'functions.calculate', arguments: '{"expression": \'2+2\'}', shape: 'llama-python-tag' }]);
  });

  it('leaves interpreter code and unoffered tools as text', () => {
    for (const text of ['<|python_tag|>print("hello")<|eom_id|>', '<|python_tag|>import os\nos.listdir(".")', '<|python_tag|>{"name": "wolfram", "parameters": {}}']) {
      expect(recover(text).calls).toEqual([]);
    }
  });
});

describe('llama-function-tag shape', () => {
  it('reads one call', () => {
    const r = recover('<function=get_time>{"timezone": "UTC"}</function>');
    expect(r.calls).toEqual([{ name: 'get_time', arguments: { timezone: 'UTC' }, shape: 'llama-function-tag' }]);
    expect(r.text).toBe('');
  });

  it('reads several calls with prose around them', () => {
    const r = recover('First the time, then math.\n<function=get_time>{"timezone": "Asia/Kolkata"}</function>\n<function=calculate>{"expression": "10 / 4"}</function>\nBack soon.');
    expect(callsOf(r)).toEqual([
      ['get_time', { timezone: 'Asia/Kolkata' }],
      ['calculate', { expression: '10 / 4' }],
    ]);
    expect(r.text).toBe('First the time, then math.\nBack soon.');
  });

  it('keeps broken arguments as written, resolves functions., keeps unicode', () => {
    expect(callsOf(recover('<function=get_time>{"timezone": "UTC",}</function>'))).toEqual([['get_time', '{"timezone": "UTC",}']]);
    const r = recover('<function=functions.write_file>{"path": "ñ.txt", "content": "a \\"b\\" c"}</function>');
    expect(r.calls).toEqual([{ name: 'write_file', writtenName: 'functions.write_file', arguments: { path: 'ñ.txt', content: 'a "b" c' }, shape: 'llama-function-tag' }]);
  });

  it('tolerates a missing </function> at the end of a reply, and an empty body', () => {
    expect(callsOf(recover('<function=get_time>{"timezone": "UTC"}'))).toEqual([['get_time', { timezone: 'UTC' }]]);
    expect(callsOf(recover('<function=get_time></function>'))).toEqual([['get_time', {}]]);
  });

  it('leaves an unoffered tool and an unclosed tag amid prose as text', () => {
    expect(recover('<function=format_disk>{}</function>').calls).toEqual([]);
    expect(recover('Write <function=get_time>{"timezone": "UTC"} to call it, then more prose.').calls).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { callsOf, recover } from './recover-helpers.js';

describe('pythonic shape', () => {
  it('reads a list that is the whole reply', () => {
    const r = recover('[get_time(timezone="Asia/Tokyo"), calculate(expression="2+2")]');
    expect(r.calls).toEqual([
      { name: 'get_time', arguments: { timezone: 'Asia/Tokyo' }, shape: 'pythonic' },
      { name: 'calculate', arguments: { expression: '2+2' }, shape: 'pythonic' },
    ]);
    expect(r.text).toBe('');
  });

  it('reads Python literals: quotes, escapes, numbers, constants, lists, dicts', () => {
    const r = recover(
      "[search_files(pattern='it\\'s *.txt', limit=-3, ratio=2.5e-1, recursive=True, hidden=False, root=None, roots=['a', \"b\"], options={'depth': 2, \"tags\": [1, -2.0]}, note=\"tab\\there \\u00e9 \\\"q\\\"\")]",
    );
    expect(callsOf(r)).toEqual([
      [
        'search_files',
        { pattern: "it's *.txt", limit: -3, ratio: 0.25, recursive: true, hidden: false, root: null, roots: ['a', 'b'], options: { depth: 2, tags: [1, -2] }, note: 'tab\there é "q"' },
      ],
    ]);
  });

  it('reads a list on its own line amid prose, multi-line and with a trailing comma', () => {
    const r = recover('Sure, checking now.\n[\n  get_time(timezone="UTC"),\n  calculate(expression="7 * 6"),\n]\nI will report back.');
    expect(callsOf(r)).toEqual([
      ['get_time', { timezone: 'UTC' }],
      ['calculate', { expression: '7 * 6' }],
    ]);
    expect(r.text).toBe('Sure, checking now.\nI will report back.');
  });

  it('reads a call without arguments, triple-quoted strings and unicode, and resolves functions.', () => {
    const r = recover('[functions.get_time(), write_file(path="日記.txt", content="""line one\nline "two" 🙂""")]');
    expect(r.calls).toEqual([
      { name: 'get_time', writtenName: 'functions.get_time', arguments: {}, shape: 'pythonic' },
      { name: 'write_file', arguments: { path: '日記.txt', content: 'line one\nline "two" 🙂' }, shape: 'pythonic' },
    ]);
  });

  it('takes a trailing Llama end token with the list', () => {
    expect(recover('[get_time(timezone="UTC")]<|eot_id|>')).toEqual({ calls: [{ name: 'get_time', arguments: { timezone: 'UTC' }, shape: 'pythonic' }], text: '' });
  });

  it('refuses positional arguments, nested calls and expressions (the call stays text)', () => {
    for (const text of [
      '[get_time("UTC")]',
      '[calculate(expression=str(2+2))]',
      '[calculate(expression=1+1)]',
      '[get_time(timezone=tz)]',
      '[get_time(timezone="UTC"]',
    ]) {
      expect(recover(text)).toEqual({ calls: [], text });
    }
  });

  it('leaves lists that are not calls, unoffered tools and lists mid-sentence as text', () => {
    for (const text of [
      '[1, 2, 3]',
      '[link](http://x)',
      'See [the docs](https://example.com/a_(b)) for more.',
      '[get_time(timezone="UTC"), rm(path="/")]',
      'You could write [get_time(timezone="UTC")] to check.',
      '[see here](http://x)',
      "I'd call [get_time] later.",
      'Options: [get_time(timezone="UTC")], or not.',
      '[]',
      '- [x] done(item=1)',
    ]) {
      expect(recover(text)).toEqual({ calls: [], text });
    }
  });

  it('reads a list that ends a line after prose', () => {
    const r = recover('Let me look that up. [get_time(timezone="UTC")]');
    expect(r).toEqual({ calls: [{ name: 'get_time', arguments: { timezone: 'UTC' }, shape: 'pythonic' }], text: 'Let me look that up.' });
    const more = recover('Checking both: [get_time(timezone="UTC"), calculate(expression="2")]  <|eot_id|>\nBack soon.');
    expect(callsOf(more)).toEqual([
      ['get_time', { timezone: 'UTC' }],
      ['calculate', { expression: '2' }],
    ]);
    expect(more.text).toBe('Checking both:\nBack soon.');
  });

  it('reads bare calls that are the whole reply', () => {
    expect(recover('get_time(timezone="Asia/Tokyo")')).toEqual({ calls: [{ name: 'get_time', arguments: { timezone: 'Asia/Tokyo' }, shape: 'pythonic' }], text: '' });
    const lines = recover('\n  get_time(timezone="UTC");\nfunctions.calculate(expression="6*7");\n\n');
    expect(lines.calls).toEqual([
      { name: 'get_time', arguments: { timezone: 'UTC' }, shape: 'pythonic' },
      { name: 'calculate', writtenName: 'functions.calculate', arguments: { expression: '6*7' }, shape: 'pythonic' },
    ]);
    expect(lines.text).toBe('');
    expect(callsOf(recover('get_time()<|eot_id|>'))).toEqual([['get_time', {}]]);
  });

  it('leaves bare calls amid prose, math and code as text', () => {
    for (const text of [
      'You can call get_time(timezone="UTC") yourself.',
      'get_time(timezone="UTC")\nThat is how you call it.',
      'The answer is f(x) = 2x.',
      'f(x) = 2x',
      'get_time("UTC")',
      'get_time(timezone="UTC") + 1',
      'get_time (timezone="UTC")',
      'reboot(now=True)',
      'get_time(timezone="UTC")\nreboot(now=True)',
      'print(get_time(timezone="UTC"))',
      'Example:\n```python\nprint(get_time("UTC"))\n```',
      '```python\nget_time(timezone="UTC")\n```',
    ]) {
      expect(recover(text)).toEqual({ calls: [], text });
    }
  });

  it('leaves a list inside a ```python fence as text', () => {
    const text = 'Example:\n```python\n[get_time(timezone="UTC")]\n```';
    expect(recover(text)).toEqual({ calls: [], text });
  });

  it('refuses a "__proto__" keyword or dict key', () => {
    expect(recover('[get_time(__proto__={"a": 1})]').calls).toEqual([]);
    expect(recover('[get_time(options={"__proto__": {"a": 1}})]').calls).toEqual([]);
  });

  it('refuses nesting deeper than it reads, without throwing', () => {
    const deep = `[get_time(x=${'['.repeat(5000)}${']'.repeat(5000)})]`;
    expect(recover(deep).calls).toEqual([]);
  });
});

describe('lfm2 shape', () => {
  it('reads a pythonic list between the tokens', () => {
    const r = recover('<|tool_call_start|>[get_time(timezone="UTC")]<|tool_call_end|>');
    expect(r.calls).toEqual([{ name: 'get_time', arguments: { timezone: 'UTC' }, shape: 'lfm2' }]);
    expect(r.text).toBe('');
  });

  it('reads several calls with prose after', () => {
    const r = recover('<|tool_call_start|>[get_time(timezone="UTC"), calculate(expression="1e3 + 1")]<|tool_call_end|>Checking the time and the sum.');
    expect(callsOf(r)).toEqual([
      ['get_time', { timezone: 'UTC' }],
      ['calculate', { expression: '1e3 + 1' }],
    ]);
    expect(r.text).toBe('Checking the time and the sum.');
  });

  it('reads a JSON list between the tokens, keeping broken arguments raw', () => {
    const r = recover('<|tool_call_start|>[{"name": "get_time", "arguments": {"timezone": "UTC"}}, {"name": "calculate", "arguments": {"expression": "5-1",}}]<|tool_call_end|>');
    expect(callsOf(r)).toEqual([
      ['get_time', { timezone: 'UTC' }],
      ['calculate', '{"expression": "5-1",}'],
    ]);
  });

  it('resolves functions., tolerates a missing end token at the end', () => {
    const r = recover('Let me see. <|tool_call_start|>[functions.get_time(timezone="Europe/Zürich")]');
    expect(r.calls).toEqual([{ name: 'get_time', writtenName: 'functions.get_time', arguments: { timezone: 'Europe/Zürich' }, shape: 'lfm2' }]);
    expect(r.text).toBe('Let me see.');
  });

  it('leaves unoffered tools and positional calls as text', () => {
    expect(recover('<|tool_call_start|>[shutdown()]<|tool_call_end|>').calls).toEqual([]);
    expect(recover('<|tool_call_start|>[get_time("UTC")]<|tool_call_end|>').calls).toEqual([]);
  });
});

describe('gemma-tool-code shape', () => {
  it('reads a call in a tool_code fence', () => {
    const r = recover('```tool_code\nget_time(timezone="UTC")\n```');
    expect(r.calls).toEqual([{ name: 'get_time', arguments: { timezone: 'UTC' }, shape: 'gemma-tool-code' }]);
    expect(r.text).toBe('');
  });

  it('reads several calls one per line, unwraps print(), keeps prose around', () => {
    const r = recover('I will look both up.\n\n```tool_code\nprint(get_time(timezone="Asia/Seoul"))\nprint(functions.calculate(expression="100 - 58"))\n```\n\nWait for the result.');
    expect(r.calls).toEqual([
      { name: 'get_time', arguments: { timezone: 'Asia/Seoul' }, shape: 'gemma-tool-code' },
      { name: 'calculate', writtenName: 'functions.calculate', arguments: { expression: '100 - 58' }, shape: 'gemma-tool-code' },
    ]);
    expect(r.text).toBe('I will look both up.\n\nWait for the result.');
  });

  it('reads unicode and escaped quotes', () => {
    const r = recover('```tool_code\nwrite_file(path="ü.txt", content=\'a \\\'b\\\' "c"\')\n```');
    expect(callsOf(r)).toEqual([['write_file', { path: 'ü.txt', content: 'a \'b\' "c"' }]]);
  });

  it('leaves a ```python fence, code that is not only calls, and unoffered tools as text', () => {
    for (const text of [
      '```python\nget_time(timezone="UTC")\n```',
      '```tool_code\nx = get_time(timezone="UTC")\nprint(x)\n```',
      '```tool_code\nprint(get_weather(city="Oslo"))\n```',
      '```tool_code\nget_time("UTC")\n```',
    ]) {
      expect(recover(text)).toEqual({ calls: [], text });
    }
  });
});
